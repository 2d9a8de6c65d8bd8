// Coordinate descent for the elastic net with the top-k term (see
// linear_model.hpp for the objective). One loop, two ways of keeping the
// gradients: the residuals (naive) or X^T X w (covariance), as in glmnet.
//
// Weights in the top-k set S see both loss terms: curvature (1 + lambda3) and
// gradient x_j^T (r + lambda3 r_S) / n; the others see the lead model only.
// S is a constant of each sweep. While fewer than k weights are non-zero the
// set has free slots, and a zero weight that would move takes one: moving it
// away from zero would put it in the top k, so its one-sided derivative
// includes the sub-model's term.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "dense_kernels.hpp"
#include "fit_checks.hpp"
#include "path_walk.hpp"
#include "top_set.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/select/selector.hpp"
#include "topkfs/select/top_k.hpp"

namespace topkfs {
namespace {

using linear_detail::Columns;
using linear_detail::top_nonzero;

// Auto picks covariance updates up to this Gram size (512 MB); forced, they
// are refused beyond 4 GB.
constexpr double auto_gram_bytes = 512e6;
constexpr double max_gram_bytes = 4e9;

// Step of the lambda2 sequence a cold covariance fit walks down: at 0.8 the
// strong rule (Tibshirani et al. 2012) keeps |gradient| >= 0.6 lambda, so only
// columns likely to enter get a Gram column.
constexpr double warm_up_ratio = 0.8;
constexpr double warm_up_tol = 1e-6;

// Smallest batch of Gram columns computed at once (see CovarianceUpdates::prepare):
// the product reads all of X once per batch, which costs about as much as
// computing a few tens of columns (bench/speed/README.md, "Measurements behind the
// code"), so batches of 32 keep those passes a minor share.
constexpr std::size_t gram_batch = 32;

double soft_threshold(double z, double threshold) {
  if (z > threshold) return z - threshold;
  if (z < -threshold) return z + threshold;
  return 0.0;
}

// Residual updates: O(n) per gradient and per changed weight.
class NaiveUpdates {
 public:
  NaiveUpdates(LinearProblem& problem, const Eigen::VectorXd& w, const std::vector<char>& in_top,
               bool with_top)
      : x_(problem.x()), inv_n_(1.0 / static_cast<double>(problem.rows())), with_top_(with_top) {
    r_ = problem.y();
    if (with_top_) rs_ = problem.y();
    for (Eigen::Index j = 0; j < w.size(); ++j) {
      if (w[j] == 0.0) continue;
      r_.noalias() -= w[j] * x_.col(j);
      if (with_top_ && in_top[static_cast<std::size_t>(j)]) rs_.noalias() -= w[j] * x_.col(j);
    }
  }

  void prepare(const Columns&) {}
  double gradient(std::int64_t j) const { return x_.col(j).dot(r_) * inv_n_; }
  double gradient_top(std::int64_t j) const { return x_.col(j).dot(rs_) * inv_n_; }
  void change(std::int64_t j, double delta, bool in_top) {
    r_.noalias() -= delta * x_.col(j);
    if (in_top) rs_.noalias() -= delta * x_.col(j);
  }
  void enter_top(std::int64_t j, double wj) { rs_.noalias() -= wj * x_.col(j); }
  void leave_top(std::int64_t j, double wj) { rs_.noalias() += wj * x_.col(j); }
  double loss(const Eigen::VectorXd&, const Columns&) const {
    return 0.5 * r_.squaredNorm() * inv_n_;
  }
  double loss_top(const Eigen::VectorXd&, const Columns&) const {
    return 0.5 * rs_.squaredNorm() * inv_n_;
  }
  void all_gradients(Eigen::VectorXd& g, Eigen::VectorXd& g_top) const {
    linear_detail::multiply_transposed(x_, r_, inv_n_, g);
    if (with_top_) linear_detail::multiply_transposed(x_, rs_, inv_n_, g_top);
  }

 private:
  const LinearProblem::ColumnMatrix& x_;
  double inv_n_;
  bool with_top_;
  Eigen::VectorXd r_, rs_;
};

// Covariance updates: q = G w and q_S = G w_S with G = X^T X / n, so a
// gradient is c_j - q_j (O(1)) and a changed weight costs one Gram column
// (O(m)). Every weight in the working set has its column.
class CovarianceUpdates {
 public:
  CovarianceUpdates(LinearProblem& problem, const Eigen::VectorXd& w,
                    const std::vector<char>& in_top, bool with_top)
      : problem_(problem), c_(problem.xty()), with_top_(with_top) {
    Columns nonzero;
    for (Eigen::Index j = 0; j < w.size(); ++j) {
      if (w[j] != 0.0) nonzero.push_back(j);
    }
    problem_.ensure_gram_columns(nonzero);
    q_ = Eigen::VectorXd::Zero(w.size());
    if (with_top_) qs_ = Eigen::VectorXd::Zero(w.size());
    for (auto j : nonzero) {
      q_.noalias() += w[j] * problem_.gram().col(j);
      if (with_top_ && in_top[static_cast<std::size_t>(j)])
        qs_.noalias() += w[j] * problem_.gram().col(j);
    }
  }

  // Computes the Gram columns of `columns` that are missing, topped up with
  // the columns closest to entering (largest |gradient|) to a batch of at
  // least gram_batch and at least as many as computed before: a batch reads X
  // once at matrix-product speed, so the extra columns cost little and, the
  // batches doubling, a fit passes over X a logarithmic number of times.
  void prepare(const Columns& columns) {
    Columns batch;
    for (auto j : columns) {
      if (!problem_.has_gram_column(j)) batch.push_back(j);
    }
    if (batch.empty()) return;
    const auto wanted = std::max<std::size_t>(
        gram_batch, static_cast<std::size_t>(problem_.gram_columns_computed()));
    if (batch.size() < wanted) {
      Columns others;
      for (Eigen::Index j = 0; j < c_.size(); ++j) {
        if (!problem_.has_gram_column(j) && problem_.column_norm()[j] > 0 &&
            !std::binary_search(columns.begin(), columns.end(), j)) {
          others.push_back(j);
        }
      }
      keep_top_k(others, wanted - batch.size(),
                 [&](std::int64_t j) { return std::abs(gradient(j)); });
      batch.insert(batch.end(), others.begin(), others.end());
    }
    problem_.ensure_gram_columns(batch);
  }
  double gradient(std::int64_t j) const { return c_[j] - q_[j]; }
  double gradient_top(std::int64_t j) const { return c_[j] - qs_[j]; }
  void change(std::int64_t j, double delta, bool in_top) {
    TOPKFS_ASSERT(problem_.has_gram_column(j));
    add_column(delta, j, q_);
    if (in_top) add_column(delta, j, qs_);
  }
  void enter_top(std::int64_t j, double wj) { add_column(wj, j, qs_); }
  void leave_top(std::int64_t j, double wj) { add_column(-wj, j, qs_); }
  // ||y - Xw||^2 / (2n) = y'y/(2n) - c'w + w'Gw/2, over the non-zero weights.
  double loss(const Eigen::VectorXd& w, const Columns& nonzero) const {
    double sum = 0.0;
    for (auto j : nonzero) sum += w[j] * (0.5 * q_[j] - c_[j]);
    return 0.5 * problem_.yy() + sum;
  }
  double loss_top(const Eigen::VectorXd& w, const Columns& top) const {
    double sum = 0.0;
    for (auto j : top) sum += w[j] * (0.5 * qs_[j] - c_[j]);
    return 0.5 * problem_.yy() + sum;
  }
  void all_gradients(Eigen::VectorXd& g, Eigen::VectorXd& g_top) const {
    g = c_ - q_;
    if (with_top_) g_top = c_ - qs_;
  }

 private:
  void add_column(double alpha, std::int64_t j, Eigen::VectorXd& target) const {
    linear_detail::add_scaled(alpha, problem_.gram().col(j).data(), target.data(), target.size());
  }

  LinearProblem& problem_;
  const Eigen::VectorXd& c_;
  bool with_top_;
  Eigen::VectorXd q_, qs_;
};

template <class Updates>
class CoordinateDescent {
 public:
  CoordinateDescent(LinearProblem& problem, const LinearPenalty& penalty,
                    const SolverControl& control, Eigen::VectorXd start)
      : problem_(problem),
        penalty_(penalty),
        control_(control),
        with_top_(penalty.lambda3 > 0.0),
        w_(std::move(start)),
        top_(penalty.k, with_top_, w_.size()),
        updates_(problem, w_, start_top(), with_top_) {}

  // Runs from the start weights; `previous_lambda2` is the penalty the start
  // weights solve (for the strong rule), +inf when unknown.
  void run(double previous_lambda2, LinearFit& fit) {
    working_ = strong_set(previous_lambda2);
    updates_.prepare(working_);
    bool converged = false;
    double last = objective();
    while (fit.sweeps < control_.max_sweeps) {
      const bool inner_converged = sweep_until_stable(last, fit);
      if (!inner_converged) break;
      const Columns violators = kkt_violators();
      if (violators.empty()) {
        converged = true;
        break;
      }
      updates_.prepare(violators);
      Columns merged;
      std::set_union(working_.begin(), working_.end(), violators.begin(), violators.end(),
                     std::back_inserter(merged));
      working_ = std::move(merged);
    }
    fit.converged = converged;
    fit.objective = last;
    fit.coef_std = w_;
    fit.top_set_settled = top_.settled(w_, working_);
  }

 private:
  const std::vector<char>& start_top() {
    top_.start(w_);
    return top_.flags();
  }

  bool takes_top_term(std::int64_t j) const { return top_.takes_term(j, w_[j] == 0.0); }

  // Non-zero weights plus the columns whose gradient at the start passes the
  // sequential strong rule |g_j| >= 2 lambda - lambda_previous.
  Columns strong_set(double previous_lambda2) {
    const double threshold = 2.0 * penalty_.lambda2 - previous_lambda2;
    const auto m = static_cast<std::int64_t>(w_.size());
    Eigen::VectorXd g, g_top;
    if ((w_.array() == 0.0).all()) {
      g = problem_.xty();
      g_top = problem_.xty();
    } else if (std::isfinite(threshold) && threshold > 0) {
      updates_.all_gradients(g, g_top);
    }
    Columns set;
    for (std::int64_t j = 0; j < m; ++j) {
      if (problem_.column_norm()[j] == 0.0) continue;
      if (w_[j] != 0.0 || !(threshold > 0) || !std::isfinite(threshold)) {
        set.push_back(j);
        continue;
      }
      double z = g[j];
      if (takes_top_term(j)) z += penalty_.lambda3 * g_top[j];
      if (std::abs(z) >= threshold) set.push_back(j);
    }
    return set;
  }

  // One pass over `columns`; returns the decrease of the objective (S held
  // fixed), summed coordinate by coordinate: exact to rounding at the scale of
  // each step, where the difference of two objective values would lose it.
  double sweep(const Columns& columns) {
    const auto& norm = problem_.column_norm();
    double decrease = 0.0;
    for (auto j : columns) {
      const double d = norm[j];
      if (d == 0.0) continue;
      const bool free_slot = top_.is_free_slot(j, w_[j] == 0.0);
      const bool top = takes_top_term(j);
      double g = updates_.gradient(j);
      double curvature = d;
      if (top) {
        g += penalty_.lambda3 * updates_.gradient_top(j);
        curvature = (1.0 + penalty_.lambda3) * d;
      }
      const double next =
          soft_threshold(g + curvature * w_[j], penalty_.lambda2) / (curvature + penalty_.lambda1);
      if (next == w_[j]) continue;
      const double step = next - w_[j];
      decrease += g * step - 0.5 * curvature * step * step -
                  0.5 * penalty_.lambda1 * step * (next + w_[j]) -
                  penalty_.lambda2 * (std::abs(next) - std::abs(w_[j]));
      if (free_slot) top_.claim(j);
      updates_.change(j, step, top);
      w_[j] = next;
    }
    return decrease;
  }

  // Makes S the top k of the non-zero weights (TopSet::recompute); true when
  // it did not change.
  bool recompute_top() {
    return top_.recompute(
        w_, working_,
        [&](std::int64_t j) {
          if (w_[j] != 0.0) updates_.leave_top(j, w_[j]);
        },
        [&](std::int64_t j) { updates_.enter_top(j, w_[j]); });
  }

  double objective() const {
    double l1 = 0.0, l2 = 0.0;
    for (auto j : working_) {
      l1 += std::abs(w_[j]);
      l2 += w_[j] * w_[j];
    }
    double value =
        updates_.loss(w_, working_) + penalty_.lambda2 * l1 + 0.5 * penalty_.lambda1 * l2;
    if (with_top_) value += penalty_.lambda3 * updates_.loss_top(w_, top_.members());
    return value;
  }

  // Sweeps over the working set until S is stable and the objective settles;
  // false when the sweep budget ran out first.
  bool sweep_until_stable(double& last, LinearFit& fit) {
    while (fit.sweeps < control_.max_sweeps) {
      const auto start = Clock::now();
      const double decrease = sweep(working_);
      ++fit.sweeps;
      working_.erase(std::remove_if(working_.begin(), working_.end(),
                                    [&](std::int64_t j) { return w_[j] == 0.0; }),
                     working_.end());
      const bool stable = recompute_top();
      const double value = objective();
      EpochRecord record;
      record.epoch = static_cast<int>(fit.history.size()) + 1;
      record.loss = value;
      record.seconds = seconds_since(start);
      fit.history.push_back(record);
      // The objective's relative change over the sweep (while S is stable the
      // recompute does not change it).
      const double change = std::abs(decrease) / std::max(std::abs(value), 1e-300);
      last = value;
      if (stable && change < control_.tol) return true;
    }
    return false;
  }

  // Zero weights (outside the working set) whose optimality condition fails.
  Columns kkt_violators() {
    Eigen::VectorXd g, g_top;
    updates_.all_gradients(g, g_top);
    const double slack = penalty_.lambda2 * (1.0 + 1e-9) + 1e-13 * std::sqrt(problem_.yy());
    Columns violators;
    const auto m = static_cast<std::int64_t>(w_.size());
    for (std::int64_t j = 0; j < m; ++j) {
      if (w_[j] != 0.0 || problem_.column_norm()[j] == 0.0) continue;
      double z = g[j];
      if (takes_top_term(j)) z += penalty_.lambda3 * g_top[j];
      if (std::abs(z) > slack) violators.push_back(j);
    }
    return violators;
  }

  LinearProblem& problem_;
  LinearPenalty penalty_;
  SolverControl control_;
  bool with_top_;
  Eigen::VectorXd w_;
  linear_detail::TopSet top_;
  Columns working_;
  Updates updates_;
};

LinearSolver choose_solver(const LinearProblem& problem, LinearSolver requested) {
  if (!problem.has_rows()) {
    if (requested == LinearSolver::Naive) {
      throw OptionError(
          fmt::format("{} needs every row in one process; a data-parallel fit solves from the Gram "
                      "matrix summed over the ranks: use {} or auto",
                      option_ref("solver", "naive"), option_ref("solver", "covariance")));
    }
    return LinearSolver::Covariance;
  }
  const double gram_bytes =
      8.0 * static_cast<double>(problem.cols()) * static_cast<double>(problem.cols());
  if (requested == LinearSolver::Covariance && gram_bytes > max_gram_bytes) {
    throw OptionError(fmt::format("{} needs a {} x {} Gram matrix ({:.1f} GB); use {}",
                                  option_ref("solver", "covariance"), problem.cols(),
                                  problem.cols(), gram_bytes / 1e9, option_ref("solver", "naive")));
  }
  if (requested != LinearSolver::Auto) return requested;
  return problem.rows() >= 2 * problem.cols() && gram_bytes <= auto_gram_bytes
             ? LinearSolver::Covariance
             : LinearSolver::Naive;
}

// One fit from `start` (which solves `previous_lambda2`, +inf when unknown).
void descend(LinearProblem& problem, const LinearPenalty& penalty, const SolverControl& control,
             LinearSolver solver, const Eigen::VectorXd& start, double previous_lambda2,
             LinearFit& fit) {
  if (solver == LinearSolver::Covariance) {
    CoordinateDescent<CovarianceUpdates>(problem, penalty, control, start)
        .run(previous_lambda2, fit);
  } else {
    CoordinateDescent<NaiveUpdates>(problem, penalty, control, start).run(previous_lambda2, fit);
  }
}

void finish_fit(const LinearProblem& problem, LinearFit& fit) {
  const auto& scale = problem.column_scale();
  fit.coef = Eigen::VectorXd::Zero(fit.coef_std.size());
  double offset = 0.0;
  for (Eigen::Index j = 0; j < fit.coef_std.size(); ++j) {
    if (scale[j] > 0) fit.coef[j] = fit.coef_std[j] / scale[j];
    offset += fit.coef[j] * problem.column_mean()[j];
  }
  fit.intercept = problem.target_mean() - offset;
}

}  // namespace

namespace linear_detail {

void check_fit_request(const LinearProblem& problem, const LinearPenalty& penalty,
                       const SolverControl& control) {
  if (!(penalty.lambda1 >= 0) || !(penalty.lambda2 >= 0) || !(penalty.lambda3 >= 0)) {
    throw OptionError(
        fmt::format("lambda1, lambda2 and lambda3 must not be negative (got {}, {}, {})",
                    penalty.lambda1, penalty.lambda2, penalty.lambda3));
  }
  if (penalty.lambda3 > 0) {
    const std::int64_t selectable =
        penalty.groups.empty()
            ? problem.cols()
            : *std::max_element(penalty.groups.begin(), penalty.groups.end()) + 1;
    check_k(penalty.k, selectable, "the data");
  }
  if (!(control.tol > 0))
    throw OptionError(fmt::format("{} must be positive, got {}", option_ref("tol"), control.tol));
  if (control.max_sweeps < 1) {
    throw OptionError(
        fmt::format("{} must be at least 1, got {}", option_ref("max-iter"), control.max_sweeps));
  }
}

}  // namespace linear_detail

std::int64_t LinearFit::nonzero() const { return (coef_std.array() != 0.0).count(); }

double lambda2_max(const LinearProblem& problem, const LinearPenalty& penalty) {
  const double plain = problem.xty().size() ? problem.xty().cwiseAbs().maxCoeff() : 0.0;
  return penalty.lambda3 > 0 ? (1.0 + penalty.lambda3) * plain : plain;
}

std::vector<double> lambda2_grid(double max, int points, double eps) {
  if (points < 1)
    throw OptionError(
        fmt::format("{} must be at least 1, got {}", option_ref("path-points"), points));
  if (!(eps > 0 && eps < 1))
    throw OptionError(fmt::format("{} must be in (0, 1), got {}", option_ref("eps"), eps));
  std::vector<double> grid(static_cast<std::size_t>(points));
  for (int i = 0; i < points; ++i) {
    grid[static_cast<std::size_t>(i)] =
        points == 1 ? max : max * std::pow(eps, static_cast<double>(i) / (points - 1));
  }
  return grid;
}

LinearFit fit_linear(LinearProblem& problem, const LinearPenalty& penalty,
                     const SolverControl& control, const LinearFit* warm_start) {
  linear_detail::check_fit_request(problem, penalty, control);
  if (!penalty.groups.empty()) {
    throw OptionError(
        "fit_linear updates one weight at a time; a grouped least-squares fit is fit_glm's "
        "(gaussian family)");
  }
  LinearFit fit;
  fit.penalty = penalty;
  fit.solver = choose_solver(problem, control.solver);
  const auto m = problem.cols();
  const double max = lambda2_max(problem, penalty);

  if (warm_start != nullptr) {
    TOPKFS_ASSERT(warm_start->coef_std.size() == m);
    descend(problem, penalty, control, fit.solver, warm_start->coef_std,
            warm_start->penalty.lambda2, fit);
  } else if (penalty.lambda3 > 0) {
    // The top-k fit starts from the plain model at the same lambdas: a start
    // free of any column order, from which the top-k term reshapes the set.
    LinearPenalty plain = penalty;
    plain.lambda3 = 0.0;
    LinearFit lead = fit_linear(problem, plain, control);
    fit.sweeps = lead.sweeps;
    fit.history = std::move(lead.history);
    descend(problem, penalty, control, fit.solver, lead.coef_std, penalty.lambda2, fit);
  } else if (fit.solver == LinearSolver::Covariance && penalty.lambda2 > 0 &&
             penalty.lambda2 < warm_up_ratio * max) {
    // Walk lambda2 down from the top so that the strong rule keeps the Gram
    // columns to those of weights that enter.
    // The steps only find the columns that enter: a loose tolerance will do.
    Eigen::VectorXd w = Eigen::VectorXd::Zero(m);
    double previous = max;
    SolverControl loose = control;
    loose.tol = std::max(control.tol, warm_up_tol);
    for (double lambda = max * warm_up_ratio; lambda > penalty.lambda2; lambda *= warm_up_ratio) {
      LinearPenalty step = penalty;
      step.lambda2 = lambda;
      descend(problem, step, loose, fit.solver, w, previous, fit);
      w = fit.coef_std;
      previous = lambda;
    }
    descend(problem, penalty, control, fit.solver, w, previous, fit);
  } else {
    descend(problem, penalty, control, fit.solver, Eigen::VectorXd::Zero(m), max, fit);
  }
  finish_fit(problem, fit);
  return fit;
}

std::vector<LinearFit> fit_linear_path(LinearProblem& problem, const LinearPenalty& penalty,
                                       const std::vector<double>& lambdas,
                                       const SolverControl& control, int stop_at_nonzeros,
                                       const std::function<void(const LinearFit&)>& on_point) {
  // A whole path usually ends with most weights non-zero, which needs nearly
  // every Gram column: one symmetric product is cheaper than the batches
  // (scikit-learn's lasso_path precomputes it too). A path stopped at a few
  // non-zero weights computes only the columns it meets.
  if (!lambdas.empty() && choose_solver(problem, control.solver) == LinearSolver::Covariance &&
      (stop_at_nonzeros <= 0 || 3 * static_cast<std::int64_t>(stop_at_nonzeros) > problem.cols())) {
    problem.compute_gram();
  }
  return linear_detail::walk_path<LinearFit>(
      penalty, lambdas, stop_at_nonzeros, on_point,
      [&](const LinearPenalty& point, const LinearFit* previous) {
        linear_detail::check_fit_request(problem, point, control);
        LinearFit fit;
        fit.penalty = point;
        fit.solver = choose_solver(problem, control.solver);
        const Eigen::VectorXd start =
            previous ? previous->coef_std : Eigen::VectorXd::Zero(problem.cols());
        const double previous_lambda2 =
            previous ? previous->penalty.lambda2 : lambda2_max(problem, point);
        descend(problem, point, control, fit.solver, start, previous_lambda2, fit);
        finish_fit(problem, fit);
        return fit;
      },
      [](const LinearFit&) { return false; });
}

std::vector<std::int64_t> top_k_columns(const Eigen::VectorXd& w, int k) {
  Columns all(static_cast<std::size_t>(w.size()));
  std::iota(all.begin(), all.end(), 0);
  keep_top_k(all, static_cast<std::size_t>(std::max(k, 0)),
             [&](std::int64_t j) { return std::abs(w[j]); });
  return all;
}

Eigen::VectorXd linear_gradient_magnitudes(const LinearProblem& problem, const LinearFit& fit) {
  // X^T (y - X w) / n = X^T y / n - G w.
  if (!problem.has_rows()) return (problem.xty() - problem.gram() * fit.coef_std).cwiseAbs();
  const Eigen::VectorXd r = problem.y() - problem.x() * fit.coef_std;
  Eigen::VectorXd gradient;
  linear_detail::multiply_transposed(problem.x(), r, 1.0 / static_cast<double>(problem.rows()),
                                     gradient);
  return gradient.cwiseAbs();
}

namespace {

// ||y - X w||^2 / n from the Gram matrix: y^T y / n - 2 w^T X^T y / n + w^T G w.
double residual_square(const LinearProblem& problem, const Eigen::VectorXd& w) {
  return problem.yy() - 2.0 * w.dot(problem.xty()) + w.dot(problem.gram() * w);
}

// The objective of a problem built from sums over ranks, which has no rows.
double objective_from_gram(const LinearProblem& problem, const LinearPenalty& penalty,
                           const Eigen::VectorXd& coef_std) {
  double value = 0.5 * residual_square(problem, coef_std) + penalty.lambda2 * coef_std.lpNorm<1>() +
                 0.5 * penalty.lambda1 * coef_std.squaredNorm();
  if (penalty.lambda3 > 0) {
    Eigen::VectorXd masked = Eigen::VectorXd::Zero(coef_std.size());
    for (auto j : top_k_columns(coef_std, penalty.k)) masked[j] = coef_std[j];
    value += penalty.lambda3 * 0.5 * residual_square(problem, masked);
  }
  return value;
}

}  // namespace

double linear_objective(const LinearProblem& problem, const LinearPenalty& penalty,
                        const Eigen::VectorXd& coef_std) {
  if (!problem.has_rows()) return objective_from_gram(problem, penalty, coef_std);
  const double inv_n = 1.0 / static_cast<double>(problem.rows());
  Eigen::VectorXd r = problem.y() - problem.x() * coef_std;
  double value = 0.5 * r.squaredNorm() * inv_n + penalty.lambda2 * coef_std.lpNorm<1>() +
                 0.5 * penalty.lambda1 * coef_std.squaredNorm();
  if (penalty.lambda3 > 0) {
    Eigen::VectorXd masked = Eigen::VectorXd::Zero(coef_std.size());
    for (auto j : top_k_columns(coef_std, penalty.k)) masked[j] = coef_std[j];
    Eigen::VectorXd rs = problem.y() - problem.x() * masked;
    value += penalty.lambda3 * 0.5 * rs.squaredNorm() * inv_n;
  }
  return value;
}

}  // namespace topkfs
