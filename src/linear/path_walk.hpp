#pragma once
// The lambda2 path of both solvers (fit_linear_path, fit_glm_path): one fit
// per value, each warm-started from the one before, reported as it is done,
// and stopped after the first point with enough non-zero weights or where
// the family says the path has gone far enough.
#include <functional>
#include <vector>

#include "topkfs/linear/linear_model.hpp"

namespace topkfs::linear_detail {

// `fit_point(penalty, previous)` fits at `penalty` from the fit before
// (nullptr at the first point); `done(fit)` ends the path early after `fit`.
template <class Fit, class FitPoint, class Done>
std::vector<Fit> walk_path(const LinearPenalty& penalty, const std::vector<double>& lambdas,
                           int stop_at_nonzeros, const std::function<void(const Fit&)>& on_point,
                           FitPoint fit_point, Done done) {
  std::vector<Fit> fits;
  fits.reserve(lambdas.size());
  for (double lambda : lambdas) {
    LinearPenalty point = penalty;
    point.lambda2 = lambda;
    fits.push_back(fit_point(point, fits.empty() ? nullptr : &fits.back()));
    if (on_point) on_point(fits.back());
    if (stop_at_nonzeros > 0 && fits.back().nonzero() >= stop_at_nonzeros) break;
    if (done(fits.back())) break;
  }
  return fits;
}

}  // namespace topkfs::linear_detail
