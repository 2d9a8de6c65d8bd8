// Proximal Newton for the logistic and multinomial models with the grouped
// elastic-net penalty and the top-k term (see glm_model.hpp), as glmnet:
// an outer loop approximates both loss terms by quadratics at the current
// point (glm_likelihood.hpp), coordinate descent minimises the approximation
// plus the penalty over a working set, and a backtracking step keeps the true
// objective from rising.
//
// A feature's row of coefficients B_j (one entry per output) is updated as a
// block, exactly in the approximation (group_step.hpp): with one output
// (binomial) that is glmnet's soft-threshold update.
//
// The top-k set S is fixed during an outer step (recomputed between them);
// rows in S see the sub-model's loss as well, and a zero row takes a free
// slot while S has one (top_set.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Cholesky>

#include "dense_kernels.hpp"
#include "fit_checks.hpp"
#include "glm_likelihood.hpp"
#include "group_step.hpp"
#include "path_walk.hpp"
#include "top_set.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/linear/glm_model.hpp"

namespace topkfs {
namespace {

using linear_detail::Columns;
using linear_detail::Expansion;

// An outer step's inner sweeps stop once a sweep decreases the expansion by
// less than this fraction of what the step has decreased it so far.
constexpr double inexact_ratio = 0.01;

// Halvings of a step before the line search gives up (the step is then
// 1e-9 of the Newton step: the point is optimal to rounding).
constexpr int max_halvings = 30;

// The path stops once the model explains this fraction of the null deviance
// (glmnet's `devmax`): beyond it the classes are nearly separated.
constexpr double max_deviance_ratio = 0.999;

Eigen::VectorXd row_norms(const Eigen::MatrixXd& coef) { return coef.rowwise().norm(); }

double penalty_value(const LinearPenalty& penalty, const Eigen::MatrixXd& coef) {
  return penalty.lambda2 * row_norms(coef).sum() + 0.5 * penalty.lambda1 * coef.squaredNorm();
}

// eta += X_rows B_rows over `rows`: column by column for a few rows, one
// matrix product (BLAS) when many would read X anyway.
void add_rows(const LinearProblem& problem, const Eigen::MatrixXd& coef, const Columns& rows,
              Eigen::MatrixXd& eta) {
  if (4 * static_cast<std::int64_t>(rows.size()) > problem.cols()) {
    Eigen::MatrixXd masked = Eigen::MatrixXd::Zero(coef.rows(), coef.cols());
    for (auto j : rows) masked.row(j) = coef.row(j);
    linear_detail::multiply_add(problem.x(), masked, eta);
    return;
  }
  for (auto j : rows) {
    for (Eigen::Index c = 0; c < coef.cols(); ++c) {
      if (coef(j, c) != 0.0) eta.col(c).noalias() += coef(j, c) * problem.x().col(j);
    }
  }
}

Columns nonzero_rows(const Eigen::MatrixXd& coef) {
  Columns rows;
  for (Eigen::Index j = 0; j < coef.rows(); ++j) {
    if (!coef.row(j).isZero()) rows.push_back(j);
  }
  return rows;
}

// eta = b + X_rows B_rows over `rows` (every non-zero row when null).
Eigen::MatrixXd linear_predictor(const LinearProblem& problem, const Eigen::MatrixXd& coef,
                                 const Eigen::VectorXd& intercept, const Columns* rows) {
  Eigen::MatrixXd eta = intercept.transpose().replicate(problem.rows(), 1);
  add_rows(problem, coef, rows != nullptr ? *rows : nonzero_rows(coef), eta);
  return eta;
}

class GlmDescent {
 public:
  GlmDescent(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
             const LinearPenalty& penalty, const SolverControl& control, Eigen::MatrixXd coef,
             Eigen::VectorXd intercept)
      : problem_(problem),
        target_(target),
        family_(family),
        penalty_(penalty),
        control_(control),
        with_top_(penalty.lambda3 > 0.0),
        coef_(std::move(coef)),
        intercept_(std::move(intercept)),
        top_(penalty.k, with_top_, problem.cols()),
        inv_n_(1.0 / static_cast<double>(problem.rows())) {
    top_.start(row_norms(coef_));
    eta_ = linear_predictor(problem_, coef_, intercept_, nullptr);
  }

  // Runs from the start coefficients, which solve `previous_lambda2` (+inf
  // when unknown; for the strong rule).
  void run(double previous_lambda2, GlmFit& fit) {
    double value = refresh();
    working_ = strong_set(previous_lambda2);
    bool converged = false;
    while (fit.sweeps < control_.max_sweeps) {
      const auto start = Clock::now();
      const double predicted = newton_step(value, fit);
      ++fit.outer_steps;
      const bool stable = recompute_top();
      if (!stable) value = refresh();
      EpochRecord record;
      record.epoch = static_cast<int>(fit.history.size()) + 1;
      record.loss = value;
      record.seconds = seconds_since(start);
      fit.history.push_back(record);
      if (!stable || predicted > control_.tol * std::abs(value)) continue;
      const Columns violators = kkt_violators();
      if (violators.empty()) {
        converged = true;
        break;
      }
      Columns merged;
      std::set_union(working_.begin(), working_.end(), violators.begin(), violators.end(),
                     std::back_inserter(merged));
      working_ = std::move(merged);
    }
    fit.converged = converged;
    fit.objective = value;
    fit.coef_std = coef_;
    fit.intercept_std = intercept_;
    fit.top_set_settled = top_.settled(row_norms(coef_), working_);
    lead_loss_ = lead_.loss;
  }

  double lead_loss() const { return lead_loss_; }

 private:
  struct CachedCurvature {
    long stamp = -1;
    bool top = false;
    Eigen::MatrixXd matrix;  // the model's curvature along the row, plus lambda1
    linear_detail::GroupStep step;
  };

  // The quadratic approximations at the current point, and F there.
  double refresh() {
    linear_detail::expand(eta_, target_, family_, lead_);
    double value = lead_.loss + penalty_value(penalty_, coef_);
    if (with_top_) {
      linear_detail::expand(linear_predictor(problem_, coef_, intercept_, &top_.members()), target_,
                            family_, sub_);
      value += penalty_.lambda3 * sub_.loss;
    }
    ++stamp_;  // the weights changed: every cached curvature is stale
    return value;
  }

  // Minimises the approximation over the working set, then steps towards its
  // minimiser as far as the true objective keeps falling. Returns the
  // approximation's decrease (summed coordinate by coordinate); `value`
  // becomes F at the new point.
  double newton_step(double& value, GlmFit& fit) {
    const Eigen::MatrixXd coef0 = coef_;
    const Eigen::VectorXd intercept0 = intercept_;
    double predicted = 0.0;
    while (fit.sweeps < control_.max_sweeps) {
      const double decrease = sweep();
      ++fit.sweeps;
      predicted += decrease;
      // Inexact Newton: the expansion is only a model, so solving it further
      // than the step's own progress justifies wastes sweeps; near the
      // optimum the first bound takes over and the steps become exact.
      if (decrease <= control_.tol * std::abs(value) || decrease <= inexact_ratio * predicted) {
        break;
      }
    }
    working_.erase(std::remove_if(working_.begin(), working_.end(),
                                  [&](std::int64_t j) { return coef_.row(j).isZero(); }),
                   working_.end());

    // The step of eta, from the rows that changed.
    const Eigen::VectorXd step_intercept = intercept_ - intercept0;
    const Eigen::MatrixXd step_coef = coef_ - coef0;
    Eigen::MatrixXd step_eta = step_intercept.transpose().replicate(problem_.rows(), 1);
    add_rows(problem_, step_coef, nonzero_rows(step_coef), step_eta);
    const Eigen::MatrixXd eta0 = eta_;
    const double previous = value;
    double t = 1.0;
    for (int halving = 0;; ++halving) {
      coef_ = coef0 + t * step_coef;
      intercept_ = intercept0 + t * step_intercept;
      eta_ = eta0 + t * step_eta;
      centre_intercepts();
      value = refresh();
      // Rounding can raise F by a few ulps at the optimum: that is no rise.
      if (value <= previous + 1e-13 * std::abs(previous)) break;
      if (halving == max_halvings) {
        coef_ = coef0;
        intercept_ = intercept0;
        eta_ = eta0;
        value = refresh();
        return 0.0;
      }
      t *= 0.5;
    }
    return t * predicted;
  }

  // The multinomial likelihood does not change when every class's intercept
  // moves by the same amount: keep them summing to 0 (glmnet's convention).
  void centre_intercepts() {
    if (family_ != LinearFamily::Multinomial) return;
    const double shift = intercept_.mean();
    intercept_.array() -= shift;
    eta_.array() -= shift;
  }

  // One pass: the intercepts, then every row of the working set. Returns the
  // approximation's decrease.
  double sweep() {
    double decrease = update_intercepts();
    for (auto j : working_) decrease += update_row(j);
    return decrease;
  }

  // The intercepts as one block, exactly in the approximation (both terms):
  // one solve with their curvature (outputs x outputs, factored once per
  // outer step) and one shift of the residuals. One at a time, each of
  // the multinomial's intercepts moved every class's residuals: O(rows x
  // classes^2) a sweep, which dominated fits of a hundred classes.
  double update_intercepts() {
    if (intercept_stamp_ != stamp_) {
      Eigen::MatrixXd curvature = linear_detail::intercept_curvature(lead_, family_);
      if (with_top_)
        curvature += penalty_.lambda3 * linear_detail::intercept_curvature(sub_, family_);
      intercept_solver_.compute(curvature);
      intercept_stamp_ = stamp_;
    }
    Eigen::VectorXd gradient = lead_.residual.colwise().sum().transpose() * inv_n_;
    if (with_top_)
      gradient += penalty_.lambda3 * inv_n_ * sub_.residual.colwise().sum().transpose();
    const Eigen::VectorXd step = intercept_solver_.solve(gradient);
    if ((step.array() == 0.0).all()) return 0.0;
    intercept_ += step;
    linear_detail::shift(lead_, family_, ones_, step);
    if (with_top_) linear_detail::shift(sub_, family_, ones_, step);
    return 0.5 * gradient.dot(step);
  }

  // The model's curvature along row j, lead model plus (for rows that take
  // it) lambda3 times the sub-model's, with lambda1 added, ready to solve
  // (GroupStep); cached for the outer step.
  const CachedCurvature& curvature(std::int64_t j, bool top) {
    auto& cache = curvature_[static_cast<std::size_t>(j)];
    if (cache.stamp != stamp_ || cache.top != top) {
      const auto x = problem_.x().col(j);
      cache.matrix = linear_detail::row_curvature(lead_, family_, x);
      if (top) cache.matrix += penalty_.lambda3 * linear_detail::row_curvature(sub_, family_, x);
      cache.matrix.diagonal().array() += penalty_.lambda1;
      cache.step.reset(cache.matrix);
      cache.stamp = stamp_;
      cache.top = top;
    }
    return cache;
  }

  // The exact update of row j in the model (GroupStep); returns the model's
  // decrease.
  double update_row(std::int64_t j) {
    if (problem_.column_norm()[j] == 0.0) return 0.0;
    const auto x = problem_.x().col(j);
    const bool zero = coef_.row(j).isZero();
    const bool free_slot = top_.is_free_slot(j, zero);
    const bool top = top_.takes_term(j, zero);
    Eigen::VectorXd gradient = lead_.residual.transpose() * x * inv_n_;
    if (top) gradient.noalias() += penalty_.lambda3 * inv_n_ * (sub_.residual.transpose() * x);
    const CachedCurvature& cached = curvature(j, top);
    const Eigen::MatrixXd& a = cached.matrix;  // includes lambda1
    const Eigen::VectorXd old = coef_.row(j).transpose();
    const Eigen::VectorXd c = a * old + gradient - penalty_.lambda1 * old;
    // A row whose gradient ties with lambda2 (the first row at lambda2_max)
    // stays at zero: rounding in the residuals must not move it.
    const Eigen::VectorXd next = c.norm() > penalty_.lambda2 * (1.0 + 1e-12)
                                     ? cached.step.solve(c, penalty_.lambda2)
                                     : Eigen::VectorXd::Zero(old.size());
    if (next == old) return 0.0;
    const Eigen::VectorXd step = next - old;
    const double decrease = gradient.dot(step) - penalty_.lambda1 * old.dot(step) -
                            0.5 * step.dot(a * step) -
                            penalty_.lambda2 * (next.norm() - old.norm());
    if (free_slot) top_.claim(j);
    linear_detail::shift(lead_, family_, x, step);
    if (top) linear_detail::shift(sub_, family_, x, step);
    coef_.row(j) = next.transpose();
    return decrease;
  }

  // S = the top k rows by norm; the sub-model's approximation is rebuilt when
  // S changed. True when it did not.
  bool recompute_top() {
    auto no_op = [](std::int64_t) {};
    return top_.recompute(row_norms(coef_), working_, no_op, no_op);
  }

  // The true gradient of the smooth part at the current point (the
  // approximations were just rebuilt there): X^T residual / n, per output.
  void gradients(Eigen::MatrixXd& lead, Eigen::MatrixXd& sub) const {
    linear_detail::multiply_transposed_block(problem_.x(), lead_.residual, inv_n_, lead);
    if (with_top_)
      linear_detail::multiply_transposed_block(problem_.x(), sub_.residual, inv_n_, sub);
  }

  // The gradient row that decides whether zero row j may stay zero.
  Eigen::VectorXd decisive_gradient(std::int64_t j, const Eigen::MatrixXd& lead,
                                    const Eigen::MatrixXd& sub) const {
    Eigen::VectorXd z = lead.row(j).transpose();
    if (top_.takes_term(j, true)) z += penalty_.lambda3 * sub.row(j).transpose();
    return z;
  }

  // Zero rows whose optimality condition ||gradient_j|| <= lambda2 fails.
  Columns kkt_violators() const {
    Eigen::MatrixXd lead, sub;
    gradients(lead, sub);
    const double slack = penalty_.lambda2 * (1.0 + 1e-9) + 1e-13;
    Columns violators;
    for (std::int64_t j = 0; j < problem_.cols(); ++j) {
      if (problem_.column_norm()[j] == 0.0 || !coef_.row(j).isZero()) continue;
      if (decisive_gradient(j, lead, sub).norm() > slack) violators.push_back(j);
    }
    return violators;
  }

  // Non-zero rows plus the zero rows passing the sequential strong rule
  // ||gradient_j|| >= 2 lambda2 - lambda2_previous.
  Columns strong_set(double previous_lambda2) const {
    const double threshold = 2.0 * penalty_.lambda2 - previous_lambda2;
    const bool screen = std::isfinite(threshold) && threshold > 0;
    Eigen::MatrixXd lead, sub;
    if (screen) gradients(lead, sub);
    Columns set;
    for (std::int64_t j = 0; j < problem_.cols(); ++j) {
      if (problem_.column_norm()[j] == 0.0) continue;
      if (!screen || !coef_.row(j).isZero() ||
          decisive_gradient(j, lead, sub).norm() >= threshold) {
        set.push_back(j);
      }
    }
    return set;
  }

  const LinearProblem& problem_;
  const ClassTarget& target_;
  LinearFamily family_;
  LinearPenalty penalty_;
  SolverControl control_;
  bool with_top_;
  Eigen::MatrixXd coef_;
  Eigen::VectorXd intercept_;
  linear_detail::TopSet top_;
  double inv_n_;
  Eigen::MatrixXd eta_;  // b + X B, the lead model's linear predictor
  Expansion lead_, sub_;
  Columns working_;
  long stamp_ = 0;
  long intercept_stamp_ = -1;
  Eigen::LLT<Eigen::MatrixXd> intercept_solver_;  // the intercepts' curvature, factored
  std::vector<CachedCurvature> curvature_{static_cast<std::size_t>(problem_.cols())};
  double lead_loss_ = 0.0;
  Eigen::VectorXd ones_ = Eigen::VectorXd::Ones(problem_.rows());  // the intercepts' column
};

double null_loss(const LinearProblem& problem, const ClassTarget& target, LinearFamily family) {
  const Eigen::VectorXd b = linear_detail::null_intercepts(target, family);
  Expansion null;
  linear_detail::expand(b.transpose().replicate(problem.rows(), 1), target, family, null);
  return null.loss;
}

void check_target(const LinearProblem& problem, const ClassTarget& target, LinearFamily family) {
  if (family == LinearFamily::Gaussian) {
    throw OptionError("fit_glm fits the binomial and multinomial families; gaussian is fit_linear");
  }
  TOPKFS_ASSERT(static_cast<std::int64_t>(target.labels.size()) == problem.rows());
  if (family == LinearFamily::Binomial && target.classes != 2) {
    throw DataError(fmt::format(
        "the binomial family takes two classes, and the target has {}: use --family multinomial",
        target.classes));
  }
  if (target.classes < 2) {
    throw DataError("a class model needs at least two classes among the training rows");
  }
}

// Coefficients on the original columns, and the deviance ratio.
void finish_glm_fit(const LinearProblem& problem, double lead_loss, double null, GlmFit& fit) {
  const auto& scale = problem.column_scale();
  fit.coef = Eigen::MatrixXd::Zero(fit.coef_std.rows(), fit.coef_std.cols());
  for (Eigen::Index j = 0; j < fit.coef_std.rows(); ++j) {
    if (scale[j] > 0) fit.coef.row(j) = fit.coef_std.row(j) / scale[j];
  }
  fit.intercept = fit.intercept_std - fit.coef.transpose() * problem.column_mean();
  fit.deviance_ratio = null > 0 ? 1.0 - lead_loss / null : 0.0;
}

}  // namespace

LinearFamily parse_linear_family(const std::string& name) {
  if (name == "gaussian") return LinearFamily::Gaussian;
  if (name == "binomial") return LinearFamily::Binomial;
  if (name == "multinomial") return LinearFamily::Multinomial;
  throw OptionError(
      fmt::format("--family takes auto, gaussian, binomial or multinomial, not '{}'", name));
}

const char* to_string(LinearFamily family) {
  switch (family) {
    case LinearFamily::Gaussian: return "gaussian";
    case LinearFamily::Binomial: return "binomial";
    case LinearFamily::Multinomial: return "multinomial";
  }
  return "?";
}

int glm_outputs(LinearFamily family, const ClassTarget& target) {
  return family == LinearFamily::Binomial ? 1 : target.classes;
}

Eigen::VectorXd GlmFit::row_norms() const { return coef_std.rowwise().norm(); }

std::int64_t GlmFit::nonzero() const { return (row_norms().array() != 0.0).count(); }

double glm_lambda2_max(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
                       const LinearPenalty& penalty) {
  check_target(problem, target, family);
  const Eigen::VectorXd b = linear_detail::null_intercepts(target, family);
  Expansion null;
  linear_detail::expand(b.transpose().replicate(problem.rows(), 1), target, family, null);
  Eigen::MatrixXd gradient;
  linear_detail::multiply_transposed_block(problem.x(), null.residual,
                                           1.0 / static_cast<double>(problem.rows()), gradient);
  const double plain = gradient.rows() ? gradient.rowwise().norm().maxCoeff() : 0.0;
  return penalty.lambda3 > 0 ? (1.0 + penalty.lambda3) * plain : plain;
}

Eigen::VectorXd glm_gradient_norms(const LinearProblem& problem, const ClassTarget& target,
                                   const GlmFit& fit) {
  check_target(problem, target, fit.family);
  Expansion at_fit;
  linear_detail::expand(linear_predictor(problem, fit.coef_std, fit.intercept_std, nullptr), target,
                        fit.family, at_fit);
  Eigen::MatrixXd gradient;
  linear_detail::multiply_transposed_block(problem.x(), at_fit.residual,
                                           1.0 / static_cast<double>(problem.rows()), gradient);
  return gradient.rowwise().norm();
}

GlmFit fit_glm(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
               const LinearPenalty& penalty, const SolverControl& control,
               const GlmFit* warm_start) {
  linear_detail::check_fit_request(problem, penalty, control);
  check_target(problem, target, family);
  if (control.solver == LinearSolver::Covariance) {
    throw OptionError(fmt::format(
        "--solver covariance is for the gaussian family; the {} family updates residuals "
        "(--solver naive or auto)",
        to_string(family)));
  }
  GlmFit fit;
  fit.penalty = penalty;
  fit.family = family;
  const int outputs = glm_outputs(family, target);
  Eigen::MatrixXd coef = Eigen::MatrixXd::Zero(problem.cols(), outputs);
  Eigen::VectorXd intercept = linear_detail::null_intercepts(target, family);
  double previous = std::numeric_limits<double>::infinity();
  if (warm_start != nullptr) {
    TOPKFS_ASSERT(warm_start->coef_std.rows() == problem.cols() &&
                  warm_start->coef_std.cols() == outputs);
    coef = warm_start->coef_std;
    intercept = warm_start->intercept_std;
    previous = warm_start->penalty.lambda2;
  } else if (penalty.lambda3 > 0) {
    // As the least-squares models: start from the plain model at the same
    // lambdas, a start free of any column order.
    LinearPenalty plain = penalty;
    plain.lambda3 = 0.0;
    GlmFit lead = fit_glm(problem, target, family, plain, control);
    fit.sweeps = lead.sweeps;
    fit.outer_steps = lead.outer_steps;
    fit.history = std::move(lead.history);
    coef = lead.coef_std;
    intercept = lead.intercept_std;
    previous = penalty.lambda2;
  }
  GlmDescent descent(problem, target, family, penalty, control, std::move(coef),
                     std::move(intercept));
  descent.run(previous, fit);
  finish_glm_fit(problem, descent.lead_loss(), null_loss(problem, target, family), fit);
  return fit;
}

std::vector<GlmFit> fit_glm_path(const LinearProblem& problem, const ClassTarget& target,
                                 LinearFamily family, const LinearPenalty& penalty,
                                 const std::vector<double>& lambdas, const SolverControl& control,
                                 int stop_at_nonzeros,
                                 const std::function<void(const GlmFit&)>& on_point) {
  return linear_detail::walk_path<GlmFit>(
      penalty, lambdas, stop_at_nonzeros, on_point,
      [&](const LinearPenalty& point, const GlmFit* previous) {
        if (previous) return fit_glm(problem, target, family, point, control, previous);
        // The first point starts from the intercepts-only model, which solves
        // lambda2_max: every later one from the point before.
        GlmFit first;
        first.penalty = point;
        first.penalty.lambda2 = glm_lambda2_max(problem, target, family, point);
        first.coef_std = Eigen::MatrixXd::Zero(problem.cols(), glm_outputs(family, target));
        first.intercept_std = linear_detail::null_intercepts(target, family);
        return fit_glm(problem, target, family, point, control, &first);
      },
      [](const GlmFit& fit) { return fit.deviance_ratio > max_deviance_ratio; });
}

double glm_objective(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
                     const LinearPenalty& penalty, const Eigen::MatrixXd& coef_std,
                     const Eigen::VectorXd& intercept_std) {
  Expansion lead;
  linear_detail::expand(linear_predictor(problem, coef_std, intercept_std, nullptr), target, family,
                        lead);
  double value = lead.loss + penalty_value(penalty, coef_std);
  if (penalty.lambda3 > 0) {
    const Columns top = top_k_columns(row_norms(coef_std), penalty.k);
    Expansion sub;
    linear_detail::expand(linear_predictor(problem, coef_std, intercept_std, &top), target, family,
                          sub);
    value += penalty.lambda3 * sub.loss;
  }
  return value;
}

}  // namespace topkfs
