// The six linear methods as Selectors: the target as one real vector, the
// standardised problem, one fit or a lambda2 path, and the result
// (scores = |w| on the standardised columns).
#include "topkfs/linear/linear_selector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "linear_target.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/data/sample_weights.hpp"
#include "topkfs/data/scaling.hpp"
#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/linear/marginal_screen.hpp"

namespace topkfs {
namespace {

// Options that mean nothing for a model are hidden from it (the CLI then says
// "--lambda3 does not apply to method lasso").
bool applies(LinearModel model, bool top_k, const std::string& option) {
  if (option == "lambda1") return model != LinearModel::Lasso;
  if (option == "lambda3") return top_k;
  if (option == "lambda2" || option == "path-points" || option == "eps" || option == "path-stop") {
    return model != LinearModel::Ridge;
  }
  return true;
}

// How each family's fits are run, seen the same way by the selector: the
// largest useful lambda2, one fit, a path, and how close each zero weight is
// to entering a fit (the norm of its loss gradient: the lambda2 below which it
// would leave zero).
struct GaussianFits {
  LinearProblem& problem;
  double max(const LinearPenalty& penalty) const { return lambda2_max(problem, penalty); }
  LinearFit once(const LinearPenalty& penalty, const SolverControl& control) const {
    return fit_linear(problem, penalty, control);
  }
  std::vector<LinearFit> path(const LinearPenalty& penalty, const std::vector<double>& grid,
                              const SolverControl& control, int stop,
                              const std::function<void(const LinearFit&)>& on_point) const {
    return fit_linear_path(problem, penalty, grid, control, stop, on_point);
  }
  Eigen::VectorXd closeness(const LinearFit& fit) const {
    return linear_gradient_magnitudes(problem, fit);
  }
  Eigen::VectorXd screen_statistics() const { return marginal_score_statistics(problem); }
  int screen_df() const { return 1; }
};

// The class families, and the gaussian family of grouped columns (whose
// blocks only the class solver updates).
struct ClassFits {
  const LinearProblem& problem;
  const ClassTarget& target;
  LinearFamily family;
  double max(const LinearPenalty& penalty) const {
    return glm_lambda2_max(problem, target, family, penalty);
  }
  GlmFit once(const LinearPenalty& penalty, const SolverControl& control) const {
    return fit_glm(problem, target, family, penalty, control);
  }
  std::vector<GlmFit> path(const LinearPenalty& penalty, const std::vector<double>& grid,
                           const SolverControl& control, int stop,
                           const std::function<void(const GlmFit&)>& on_point) const {
    return fit_glm_path(problem, target, family, penalty, grid, control, stop, on_point);
  }
  Eigen::VectorXd closeness(const GlmFit& fit) const {
    return glm_gradient_norms(problem, target, fit);
  }
  Eigen::VectorXd screen_statistics() const { return marginal_score_statistics(problem, target); }
  int screen_df() const { return target.classes - 1; }
};

// The ranking: |w_j|, or the norm of feature j's row of class coefficients.
Eigen::VectorXd scores_of(const LinearFit& fit) { return fit.coef_std.cwiseAbs(); }
Eigen::VectorXd scores_of(const GlmFit& fit) { return fit.row_norms(); }

std::string describe_fit(const LinearFit& fit, const LinearProblem& problem, int sweeps) {
  return fmt::format(
      "coordinate descent ({} updates): {} of {} weights non-zero, {} sweeps in all, objective "
      "{:.6g}, intercept {:.6g}",
      to_string(fit.solver), fit.nonzero(), problem.cols(), sweeps, fit.objective, fit.intercept);
}

std::string describe_fit(const GlmFit& fit, const LinearProblem& problem, int sweeps) {
  if (!fit.penalty.groups.empty()) {
    const auto groups = *std::max_element(fit.penalty.groups.begin(), fit.penalty.groups.end()) + 1;
    return fmt::format(
        "group lasso ({} family, {}block coordinate descent): {} of {} groups non-zero ({} "
        "columns), {} sweeps in all, objective {:.6g}, deviance ratio {:.4f}",
        to_string(fit.family), fit.family == LinearFamily::Gaussian ? "" : "proximal Newton with ",
        fit.nonzero(), groups, problem.cols(), sweeps, fit.objective, fit.deviance_ratio);
  }
  return fmt::format(
      "proximal Newton ({} family; coordinate descent inside): {} of {} features non-zero, {} "
      "sweeps in all, objective {:.6g}, deviance ratio {:.4f}",
      to_string(fit.family), fit.nonzero(), problem.cols(), sweeps, fit.objective,
      fit.deviance_ratio);
}

std::vector<double> as_vector(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

// The model on the original columns: intercept + sum_j coef_j x_j.
nlohmann::json model_json(const LinearFit& fit, const Dataset&) {
  return {{"intercept", fit.intercept}, {"coefficients", as_vector(fit.coef)}};
}

nlohmann::json model_json(const GlmFit& fit, const Dataset& data) {
  if (fit.family == LinearFamily::Gaussian) {
    return {{"intercept", fit.intercept[0]}, {"coefficients", as_vector(fit.coef.col(0))}};
  }
  if (fit.family == LinearFamily::Binomial) {
    return {{"intercept", fit.intercept[0]},
            {"coefficients", as_vector(fit.coef.col(0))},
            {"log_odds_of", data.class_names[1]}};
  }
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index j = 0; j < fit.coef.rows(); ++j) rows.push_back(as_vector(fit.coef.row(j)));
  return {{"intercept", as_vector(fit.intercept)},
          {"coefficients", rows},  // one row per feature, one entry per class
          {"classes", data.class_names}};
}

class LinearSelector final : public TableSelector<LinearOptions> {
 public:
  LinearSelector(LinearModel model, bool top_k)
      : TableSelector(linear_option_table()), model_(model), top_k_(top_k) {
    if (model_ == LinearModel::Lasso) options_.lambda1 = 0.0;
    // The plain models stop at k non-zero weights; the top-k term does its
    // work as the L1 penalty fades, so the -top models walk the whole path
    // (docs/linear.md has the recovery and detection figures behind this).
    if (top_k_) options_.path_stop = PathStop::End;
    if (model_ == LinearModel::Ridge) options_.lambda2 = 0.0;
    if (!top_k_) options_.lambda3 = 0.0;
  }

  std::string name() const override { return linear_method_name(model_, top_k_); }
  // With groups (Dataset::column_group) and --group-fit group-lasso: a
  // group's columns enter and leave the model together, k counts groups.
  bool selects_groups() const override { return options_.group_fit == GroupFit::GroupLasso; }
  // Real targets only: fit() refuses ranks for the class families.
  bool data_parallel() const override { return true; }

  bool has_option(const std::string& option) const override {
    return table_.has(option) && applies(model_, top_k_, option);
  }

  void set_option(const std::string& option, const std::string& value) override {
    if (table_.has(option) && !applies(model_, top_k_, option)) {
      throw OptionError(fmt::format("{} does not apply to method {}{}", option_ref(option), name(),
                                    option == "lambda3" ? " (use " + name() + "-top)" : ""));
    }
    TableSelector::set_option(option, value);
  }

  // The defaults shown are this model's (lasso: lambda1 = 0, ...).
  std::vector<OptionInfo> describe_options() const override {
    const nlohmann::json current = options_json();
    std::vector<OptionInfo> out;
    for (auto info : table_.describe()) {
      if (!applies(model_, top_k_, info.name)) continue;
      const auto& value = current.at(info.name);
      info.default_text = value.is_string() ? value.get<std::string>() : value.dump();
      out.push_back(std::move(info));
    }
    return out;
  }

  nlohmann::json options_json() const override {
    nlohmann::json all = table_.to_json(options_);
    nlohmann::json out = nlohmann::json::object();
    for (auto it = all.begin(); it != all.end(); ++it) {
      if (applies(model_, top_k_, it.key())) out[it.key()] = it.value();
    }
    return out;
  }

  SelectionResult fit(const Dataset& data, const std::vector<std::int64_t>& rows, int k,
                      const FitCallbacks& callbacks) override {
    const auto start = Clock::now();
    options_.validate();
    check_k(data, k);
    SelectionResult result;
    result.method = name();
    result.k = k;
    linear_detail::LinearTarget target =
        linear_detail::linear_target(data, rows, options_.family, name());
    if (!target.note.empty()) result.notes.push_back(target.note);

    const ScalingKind scaling =
        options_.scaling == LinearScaling::None ? ScalingKind::None : ScalingKind::Standard;
    if (callbacks.ranks && target.family != LinearFamily::Gaussian) {
      throw OptionError(
          fmt::format("{}: a data-parallel fit ({}, WORLD_SIZE) sums the Gram matrix of the "
                      "gaussian family only; the {} family's weights change every row's weight at "
                      "every step (run it in one process)",
                      name(), option_ref("nproc"), to_string(target.family)));
    }
    const std::vector<double> weights = row_weights(data, rows);
    check_rows_weigh(weights, data.source);
    if (callbacks.ranks && !weights.empty()) {
      throw OptionError(
          fmt::format("{}: a data-parallel fit ({}, WORLD_SIZE) of the linear models sums "
                      "unweighted moments; run a weighted fit in one process",
                      name(), option_ref("nproc")));
    }
    const bool grouped = !data.column_group.empty() && selects_groups();
    if (callbacks.ranks && grouped) {
      throw OptionError(fmt::format(
          "{}: a data-parallel fit ({}, WORLD_SIZE) sums the Gram matrix, which the group lasso's "
          "block updates do not use; run a fit of grouped columns in one process",
          name(), option_ref("nproc")));
    }
    const RowWeighting weighting =
        target.family == LinearFamily::Gaussian ? RowWeighting::ScaledRows : RowWeighting::Apart;
    LinearProblem problem = callbacks.ranks
                                ? LinearProblem(data.features, rows, target.y, options_.threads,
                                                scaling, *callbacks.ranks)
                                : LinearProblem(data.features, rows, target.y, options_.threads,
                                                scaling, weights, weighting);
    target.classes.weights = problem.row_weights();
    if (target.family == LinearFamily::Gaussian && grouped) {
      ClassTarget values;  // the rows carry their weights (ScaledRows)
      values.values = problem.y();
      select_with(ClassFits{problem, values, LinearFamily::Gaussian}, problem, data, k, callbacks,
                  start, result);
    } else if (target.family == LinearFamily::Gaussian) {
      select_with(GaussianFits{problem}, problem, data, k, callbacks, start, result);
    } else {
      select_with(ClassFits{problem, target.classes, target.family}, problem, data, k, callbacks,
                  start, result);
    }
    result.options["family_used"] = to_string(target.family);
    result.options["scaling_used"] = enum_name(options_.scaling);
    result.options["task"] = target.task;
    result.fit_seconds = seconds_since(start);
    return result;
  }

 private:
  // The fit the selection comes from, and what the way there adds up to.
  template <class Fit>
  struct Outcome {
    Fit fit;
    double lambda2_max = 0.0;
    int sweeps = 0;
    bool converged = true;
    int unsettled_points = 0;  // path points before the last whose top-k set cycled
  };

  LinearPenalty make_penalty(const Dataset& data, int k) const {
    LinearPenalty penalty;
    if (selects_groups()) penalty.groups = data.column_group;
    penalty.lambda1 = options_.lambda1;
    penalty.lambda2 = std::max(0.0, options_.lambda2);
    penalty.lambda3 = options_.lambda3;
    penalty.k = k;
    return penalty;
  }

  SolverControl make_control() const {
    SolverControl control;
    control.tol = options_.tol;
    control.max_sweeps = options_.max_iter;
    control.solver = options_.solver;
    return control;
  }

  // One fit or a path with `fits` (GaussianFits or ClassFits), and the
  // selection: the top k of the scores.
  template <class Fits>
  void select_with(const Fits& fits, const LinearProblem& problem, const Dataset& data, int k,
                   const FitCallbacks& callbacks, Clock::time_point start,
                   SelectionResult& result) const {
    const LinearPenalty penalty = make_penalty(data, k);
    const auto outcome = options_.lambda2 >= 0 ? fit_once(fits, penalty, result)
                                               : fit_path(fits, penalty, callbacks, start, result);
    report(problem, outcome, k, result);
    const Eigen::VectorXd scores = scores_of(outcome.fit);
    result.scores.assign(scores.data(), scores.data() + scores.size());
    // Zero weights tie at score 0: the one closest to entering ranks first
    // (the order a longer path would bring them in), not column order. Columns
    // that fail the marginal screen follow those that pass it
    // (docs/linear.md, "The marginal screen").
    finish_selection(result, data.feature_names, as_vector(fits.closeness(outcome.fit)));
    put_first(screen(fits, data, result), data.feature_names, result);
    record_options(problem, outcome, data, result);
  }

  // Per column, whether it passes the marginal screen (empty when it is off),
  // and a note saying how many do.
  // Grouped columns are ranked by group afterwards (fit_groups), by their
  // group norms: a screen of single columns has no place there.
  template <class Fits>
  std::vector<char> screen(const Fits& fits, const Dataset& data, SelectionResult& result) const {
    if (options_.screen_level <= 0 || (selects_groups() && !data.column_group.empty())) return {};
    const auto passes =
        passes_screen(fits.screen_statistics(), fits.screen_df(), options_.screen_level);
    const auto passing = std::count(passes.begin(), passes.end(), 1);
    result.notes.push_back(fmt::format(
        "{} of {} columns pass the marginal screen (score test of each column alone against the "
        "intercept-only model, p < {:g}) and rank first, by weight; the others follow, by weight "
        "({} ranks by weight alone)",
        passing, passes.size(), options_.screen_level, option_ref("screen-level", "0")));
    return passes;
  }

  // The columns flagged in `first` move before the others in the ranking,
  // each group keeping its order; the selection follows.
  static void put_first(const std::vector<char>& first,
                        const std::vector<std::string>& feature_names, SelectionResult& result) {
    if (first.empty()) return;
    std::stable_partition(result.ranking.begin(), result.ranking.end(),
                          [&](std::int64_t j) { return first[static_cast<std::size_t>(j)] != 0; });
    result.selected.assign(result.ranking.begin(), result.ranking.begin() + result.k);
    result.selected_names.clear();
    for (auto j : result.selected) {
      result.selected_names.push_back(feature_names[static_cast<std::size_t>(j)]);
    }
  }

  // One fit at the given lambda2 (ridge: 0); history per sweep.
  template <class Fits>
  auto fit_once(const Fits& fits, const LinearPenalty& penalty, SelectionResult& result) const {
    Outcome<decltype(fits.once(penalty, make_control()))> outcome;
    outcome.lambda2_max = fits.max(penalty);
    outcome.fit = fits.once(penalty, make_control());
    outcome.sweeps = outcome.fit.sweeps;
    outcome.converged = outcome.fit.converged;
    result.history = outcome.fit.history;
    if (model_ != LinearModel::Ridge) {
      result.notes.push_back(fmt::format("lambda2 = {:.6g} as given (lambda2_max = {:.6g})",
                                         penalty.lambda2, outcome.lambda2_max));
    }
    if (!outcome.fit.converged) result.warnings.push_back(not_converged(outcome.fit));
    return outcome;
  }

  // The lambda2 path down from lambda2_max, stopped where --path-stop says;
  // history per path point (a path runs thousands of sweeps). Progress: one
  // step per point (ProgressUnit::PathPoints).
  template <class Fits>
  auto fit_path(const Fits& fits, const LinearPenalty& penalty, const FitCallbacks& callbacks,
                Clock::time_point start, SelectionResult& result) const {
    using Fit = decltype(fits.once(penalty, make_control()));
    Outcome<Fit> outcome;
    outcome.lambda2_max = fits.max(penalty);
    const auto grid = lambda2_grid(outcome.lambda2_max, options_.path_points, options_.eps);
    const bool stop_at_k = options_.path_stop == PathStop::K;
    int done = 0;
    auto on_point = [&](const Fit& point) {
      Progress progress;
      progress.unit = ProgressUnit::PathPoints;
      progress.epoch = ++done;
      // The point where the path stops at k is its last: say so, so that
      // the display keeps its line.
      const bool last = stop_at_k && point.nonzero() >= penalty.k;
      progress.epochs = last ? done : static_cast<int>(grid.size());
      progress.batch = progress.batches = 1;
      progress.loss = point.objective;
      progress.elapsed_seconds = seconds_since(start);
      progress.epoch_done = true;
      callbacks.report(progress);
    };
    const auto path = fits.path(penalty, grid, make_control(), stop_at_k ? penalty.k : 0,
                                std::function<void(const Fit&)>(on_point));
    std::vector<const Fit*> unconverged;
    for (const auto& point : path) {
      outcome.sweeps += point.sweeps;
      EpochRecord record;
      record.epoch = static_cast<int>(result.history.size()) + 1;
      record.loss = point.objective;
      for (const auto& sweep : point.history) record.seconds += sweep.seconds;
      result.history.push_back(record);
      if (!point.converged) unconverged.push_back(&point);
      outcome.converged = outcome.converged && point.converged;
      if (!point.top_set_settled && &point != &path.back()) ++outcome.unsettled_points;
    }
    if (!unconverged.empty()) {
      result.warnings.push_back(path_not_converged(unconverged, path.size()));
    }
    outcome.fit = path.back();
    result.notes.push_back(
        stop_at_k ? fmt::format("lambda2 path from lambda2_max = {:.6g}: point {} of {} (lambda2 "
                                "= {:.6g}) is the first with at least k = {} non-zero weights; "
                                "history: one entry per path point",
                                outcome.lambda2_max, path.size(), grid.size(),
                                outcome.fit.penalty.lambda2, penalty.k)
                  : fmt::format("lambda2 path from lambda2_max = {:.6g} to its end, point {} "
                                "(lambda2 = {:.6g}); history: one entry per path point",
                                outcome.lambda2_max, path.size(), outcome.fit.penalty.lambda2));
    const bool stopped_early =
        path.size() < grid.size() && !(stop_at_k && outcome.fit.nonzero() >= penalty.k);
    if (stopped_early) {
      result.notes.push_back(fmt::format(
          "the path stopped at point {} of {}: the model explains more than 99.9% of the null "
          "deviance (glmnet's rule; the classes are nearly separated there)",
          path.size(), grid.size()));
    }
    result.options["path_point"] = path.size();
    return outcome;
  }

  // Notes and warnings about the fit the selection comes from.
  template <class Fit>
  void report(const LinearProblem& problem, const Outcome<Fit>& outcome, int k,
              SelectionResult& result) const {
    const Fit& fit = outcome.fit;
    result.notes.push_back(describe_fit(fit, problem, outcome.sweeps));
    if (!fit.top_set_settled) {
      result.warnings.push_back(fmt::format(
          "the top-k set did not settle at lambda2 = {:.6g}: it cycled between sets that tie for "
          "the k-th place, and was frozen; the selection (the top k of |w|) may differ from the "
          "sub-model's set at that place",
          fit.penalty.lambda2));
    }
    if (outcome.unsettled_points > 0) {
      result.notes.push_back(fmt::format(
          "the top-k set cycled and was frozen at {} earlier path points (near-ties at the k-th "
          "place); the path went on from there",
          outcome.unsettled_points));
    }
    if (fit.nonzero() < k) {
      result.warnings.push_back(fmt::format(
          "only {} {} non-zero, fewer than k = {}: the other selected columns have weight 0 and "
          "were ranked by how close each is to entering the model (the norm of its loss gradient); "
          "lower {} or {}{}",
          fit.nonzero(), fit.penalty.groups.empty() ? "weights are" : "groups of weights are", k,
          option_ref("lambda2"), option_ref("eps"),
          model_ == LinearModel::Lasso ? " (a Lasso keeps at most n weights)" : ""));
    }
    if (problem.constant_columns() > 0) {
      result.notes.push_back(fmt::format("{} columns are constant on the training rows: weight 0",
                                         problem.constant_columns()));
    }
  }

  // Every option, what was decided at run time, and the model.
  template <class Fit>
  void record_options(const LinearProblem& problem, const Outcome<Fit>& outcome,
                      const Dataset& data, SelectionResult& result) const {
    const Fit& fit = outcome.fit;
    result.options.update(options_json());
    result.options["lambda2_used"] = fit.penalty.lambda2;
    result.options["lambda2_max"] = outcome.lambda2_max;
    result.options["solver_used"] = to_string(fit.solver);
    result.options["threads_used"] = problem.threads();
    result.options["sweeps"] = outcome.sweeps;
    result.options["objective"] = fit.objective;
    result.options["converged"] = outcome.converged;
    result.options["nonzero"] = fit.nonzero();
    // On the original columns (the scores are on the problem's columns).
    result.options["model"] = model_json(fit, data);
  }

  template <class Fit>
  std::string not_converged(const Fit& fit) const {
    return fmt::format(
        "{}: coordinate descent did not converge at lambda2 = {:.6g} within {} sweeps (objective "
        "{:.6g}); raise {} or {}",
        name(), fit.penalty.lambda2, option_ref("max-iter", options_.max_iter), fit.objective,
        option_ref("max-iter"), option_ref("tol"));
  }

  // One warning for a path, however many of its points stopped short: a
  // warning per point buried the fit's output under dozens of lines.
  template <class Fit>
  std::string path_not_converged(const std::vector<const Fit*>& points, std::size_t length) const {
    if (points.size() == 1) return not_converged(*points.front());
    return fmt::format(
        "{}: coordinate descent did not converge at {} of the path's {} points (lambda2 from "
        "{:.6g} to {:.6g}) within {} sweeps; raise {} or {}",
        name(), points.size(), length, points.front()->penalty.lambda2,
        points.back()->penalty.lambda2, option_ref("max-iter", options_.max_iter),
        option_ref("max-iter"), option_ref("tol"));
  }

  LinearModel model_;
  bool top_k_;
};

}  // namespace

std::string linear_method_name(LinearModel model, bool top_k) {
  const char* base = model == LinearModel::Lasso   ? "lasso"
                     : model == LinearModel::Ridge ? "ridge"
                                                   : "elastic-net";
  return top_k ? std::string(base) + "-top" : std::string(base);
}

std::unique_ptr<Selector> make_linear_selector(LinearModel model, bool top_k) {
  return std::make_unique<LinearSelector>(model, top_k);
}

std::unique_ptr<Selector> make_linear_selector(const std::string& method) {
  for (const auto model : {LinearModel::Lasso, LinearModel::Ridge, LinearModel::ElasticNet}) {
    for (const bool top_k : {false, true}) {
      if (linear_method_name(model, top_k) == method) return make_linear_selector(model, top_k);
    }
  }
  throw OptionError(fmt::format(
      "'{}' is not a linear method; choose lasso, ridge, elastic-net or their -top versions",
      method));
}

}  // namespace topkfs
