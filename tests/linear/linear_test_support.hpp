#pragma once
// Helpers of the linear models' tests: datasets from plain arrays, and the
// optimality (KKT) conditions computed from scratch, independently of the
// solver's bookkeeping.
#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace topkfs::test {

inline Dataset regression_dataset(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  Dataset data;
  data.features = x.cast<float>();
  for (Eigen::Index j = 0; j < x.cols(); ++j) data.feature_names.push_back(fmt::format("x{}", j));
  data.target_kind = TargetKind::Real;
  data.targets = y;
  data.target_names = {"y"};
  data.source = "test data";
  data.format = "memory";
  return data;
}

inline std::vector<std::int64_t> all_rows(std::int64_t n) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  return rows;
}

inline LinearProblem make_problem(const Dataset& data, int threads = 1) {
  Eigen::VectorXd y = data.targets.col(0);
  return LinearProblem(data.features, all_rows(data.rows()), y, threads);
}

// The largest violation of the optimality conditions of F with the top-k set
// S = top_k_columns(w) held fixed (the fixed point coordinate descent reaches):
//   w_j != 0: grad_j - lambda1 w_j = lambda2 sign(w_j)
//   w_j == 0: |grad_j| <= lambda2
// where grad_j = x_j'r/n (+ lambda3 x_j'r_S/n for j in S, and for every zero
// weight while S has fewer than k non-zero members).
inline double kkt_violation(const LinearProblem& problem, const LinearPenalty& penalty,
                            const Eigen::VectorXd& w) {
  const double inv_n = 1.0 / static_cast<double>(problem.rows());
  const Eigen::VectorXd r = problem.y() - problem.x() * w;
  Eigen::VectorXd g = problem.x().transpose() * r * inv_n;
  Eigen::VectorXd g_top = Eigen::VectorXd::Zero(w.size());
  std::vector<char> in_top(static_cast<std::size_t>(w.size()), 0);
  bool open_slots = false;
  if (penalty.lambda3 > 0) {
    Eigen::VectorXd masked = Eigen::VectorXd::Zero(w.size());
    int nonzero_members = 0;
    for (auto j : top_k_columns(w, penalty.k)) {
      if (w[j] == 0.0) continue;
      masked[j] = w[j];
      in_top[static_cast<std::size_t>(j)] = 1;
      ++nonzero_members;
    }
    open_slots = nonzero_members < penalty.k;
    g_top = problem.x().transpose() * (problem.y() - problem.x() * masked) * inv_n;
  }
  double worst = 0.0;
  for (Eigen::Index j = 0; j < w.size(); ++j) {
    if (problem.column_norm()[j] == 0.0) continue;
    const bool top = in_top[static_cast<std::size_t>(j)] || (open_slots && w[j] == 0.0);
    const double grad = g[j] + (top ? penalty.lambda3 * g_top[j] : 0.0);
    double violation;
    if (w[j] != 0.0) {
      violation = std::abs(grad - penalty.lambda1 * w[j] - penalty.lambda2 * (w[j] > 0 ? 1 : -1));
    } else {
      violation = std::max(0.0, std::abs(grad) - penalty.lambda2);
    }
    worst = std::max(worst, violation);
  }
  return worst;
}

}  // namespace topkfs::test
