// inffs as a Selector: the graph over the training rows, the path sums, and
// the result (scores = the path sums, which do not depend on k).
#include <fmt/format.h>

#include "baseline_support.hpp"
#include "topkfs/baselines/inffs.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/data/sample_weights.hpp"

namespace topkfs {
namespace {

// Which formulation the data gets (docs/algorithms.md).
std::string describe_graph(const Dataset& data, const InfFsOptions& options) {
  const std::string spread =
      fmt::format("a_ij = {} sigma_ij + {} c_ij, sigma_ij = normalised max(sd_i, sd_j)",
                  options.alpha, 1.0 - options.alpha);
  if (!options.supervised) {
    return spread + ", c_ij = 1 - |Spearman(x_i, x_j)| (unsupervised, ICCV 2015)";
  }
  if (data.target_kind == TargetKind::Real) {
    return spread +
           ", c_ij = normalised f_i f_j with f = rho^2 / (1 - rho^2), rho Spearman's correlation "
           "with the target (extension of the supervised variant to real targets)";
  }
  return spread +
         fmt::format(", c_ij = normalised f_i f_j with f the Fisher criterion of the {} classes{}",
                     data.num_classes(),
                     data.num_classes() == 2
                         ? " (the authors' supervised variant)"
                         : " (extension: squared differences of class means summed over class "
                           "pairs, over the summed within-class variances)");
}

class InfFsSelector final : public TableSelector<InfFsOptions> {
 public:
  InfFsSelector() : TableSelector(inffs_option_table()) {}

  std::string name() const override { return "inffs"; }
  bool ranking_depends_on_k() const override { return false; }

  SelectionResult fit(const Dataset& data, const std::vector<std::int64_t>& rows, int k,
                      const FitCallbacks& callbacks) override {
    const auto start = Clock::now();
    options_.validate();
    baselines_detail::check_fit_request(data, k, name(), options_.supervised);
    if (has_weights(data)) {
      throw OptionError(fmt::format(
          "{}: sample and class weights are not supported: its graph of rank correlations "
          "between features has no weighted form here; choose another method or drop the "
          "weights",
          name()));
    }
    callbacks.info(
        fmt::format("{}: graph of {} features from {} rows", name(), data.cols(), rows.size()));
    const Eigen::MatrixXd graph = inffs_graph(data, rows, options_);
    const double graph_seconds = seconds_since(start);
    callbacks.info(fmt::format("{}: path sums ({} solver)", name(), to_string(options_.solver)));
    const InfFsPathSums sums =
        inffs_path_sums(graph, options_.factor, options_.solver, options_.tol);

    SelectionResult result;
    result.method = name();
    result.k = k;
    result.scores.assign(sums.scores.data(), sums.scores.data() + sums.scores.size());
    finish_selection(result, data.feature_names);
    result.fit_seconds = seconds_since(start);
    report(data, sums, graph_seconds, result);
    return result;
  }

 private:
  void report(const Dataset& data, const InfFsPathSums& sums, double graph_seconds,
              SelectionResult& result) const {
    result.notes.push_back(describe_graph(data, options_));
    result.notes.push_back(fmt::format(
        "scores: ((I - r A)^-1 - I) 1 with r = {} / rho(A) = {:.6g}, rho(A) = {:.6g} ({} power "
        "iterations); {} solve{}, relative residual {:.2g}; graph {:.2f} s, solve {:.2f} s",
        options_.factor, sums.r, sums.spectral_radius, sums.eigen_iterations,
        to_string(options_.solver),
        sums.solver_iterations > 0 ? fmt::format(" in {} iterations", sums.solver_iterations) : "",
        sums.solver_residual, graph_seconds, result.fit_seconds - graph_seconds));
    if (!sums.eigen_converged) {
      result.warnings.push_back(fmt::format(
          "the power iteration for the spectral radius stopped at {} iterations before reaching "
          "its tolerance; r may be slightly off",
          sums.eigen_iterations));
    }
    if (sums.solver_residual > 1e3 * options_.tol) {
      result.warnings.push_back(fmt::format(
          "the linear solve ended with relative residual {:.2g}, above {}; try {}",
          sums.solver_residual, option_ref("tol", options_.tol), option_ref("solver", "cholesky")));
    }
    if (sums.spectral_radius == 0.0) {
      result.warnings.push_back(
          "the graph has no edge (every weight is 0): every score is 0 and the selection is in "
          "column order");
    }
    result.options.update(options_json());
    result.options["spectral_radius"] = sums.spectral_radius;
    result.options["r"] = sums.r;
    result.options["eigen_iterations"] = sums.eigen_iterations;
    result.options["solver_iterations"] = sums.solver_iterations;
    result.options["solver_residual"] = sums.solver_residual;
  }
};

}  // namespace

std::unique_ptr<Selector> make_inffs_selector() { return std::make_unique<InfFsSelector>(); }

}  // namespace topkfs
