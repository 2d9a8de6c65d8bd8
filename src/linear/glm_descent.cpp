// Proximal Newton for the logistic and multinomial models with the grouped
// elastic-net penalty and the top-k term (see glm_model.hpp), as glmnet:
// an outer loop approximates both loss terms by quadratics at the current
// point (glm_likelihood.hpp), coordinate descent minimises the approximation
// plus the penalty over a working set, and a backtracking step keeps the true
// objective from rising.
//
// A feature's row of coefficients B_j (one entry per output) is updated as a
// block, exactly in the approximation (group_step.hpp): with one output
// (binomial) that is glmnet's soft-threshold update. A group of columns
// (feature_blocks.hpp) is updated as one block by a majorised step: the
// approximation's curvature along the block is bounded by a multiple of the
// identity, whose problem has a closed-form solution (the blockwise
// majorisation descent of Yang and Zou's gglasso), so a step costs a product
// with the group's columns and no factorisation of a (columns x outputs)
// square matrix.
//
// The top-k set S (of blocks) is fixed during an outer step (recomputed
// between them); blocks in S see the sub-model's loss as well, and a zero
// block takes a free slot while S has one (top_set.hpp).
//
// The gaussian family runs here only with groups: its expansion is exact,
// so one outer step solves it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Cholesky>

#include "dense_kernels.hpp"
#include "feature_blocks.hpp"
#include "fit_checks.hpp"
#include "glm_likelihood.hpp"
#include "group_step.hpp"
#include "path_walk.hpp"
#include "top_set.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/linear/glm_model.hpp"

namespace topkfs {
namespace {

using linear_detail::Columns;
using linear_detail::Expansion;
using linear_detail::FeatureBlocks;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// An outer step's inner sweeps stop once a sweep decreases the expansion by
// less than this fraction of what the step has decreased it so far.
constexpr double inexact_ratio = 0.01;

// A group's block of coefficients (columns x outputs) up to this size takes
// the exact step, whose curvature costs rows x size^2 to form and size^3 to
// reduce; a larger one the majorised step, a product with its columns.
// Majorised steps alone took 251,077 sweeps over soybean's lasso-top path
// (value and missing-indicator pairs, 19 classes), exact ones far fewer.
constexpr Eigen::Index max_exact_block = 256;

// Halvings of a step before the line search gives up (the step is then
// 1e-9 of the Newton step: the point is optimal to rounding).
constexpr int max_halvings = 30;

// The path stops once the model explains this fraction of the null deviance
// (glmnet's `devmax`): beyond it the classes are nearly separated.
constexpr double max_deviance_ratio = 0.999;

double penalty_value(const FeatureBlocks& blocks, const LinearPenalty& penalty,
                     const Eigen::MatrixXd& coef) {
  return blocks.penalty(coef, penalty.lambda2) + 0.5 * penalty.lambda1 * coef.squaredNorm();
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
        blocks_(problem, penalty.groups),
        top_(penalty.k, with_top_, blocks_.count()),
        inv_n_(1.0 / static_cast<double>(problem.rows())) {
    top_.start(blocks_.norms(coef_));
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
    fit.top_set_settled = top_.settled(blocks_.norms(coef_), working_);
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
    double value = lead_.loss + penalty_value(blocks_, penalty_, coef_);
    if (with_top_) {
      const Columns top_columns = blocks_.columns_of(top_.members());
      linear_detail::expand(linear_predictor(problem_, coef_, intercept_, &top_columns), target_,
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
                                  [&](std::int64_t b) { return blocks_.is_zero(coef_, b); }),
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

  // One pass: the intercepts, then every block of the working set. Returns
  // the approximation's decrease.
  double sweep() {
    double decrease = update_intercepts();
    for (auto b : working_) {
      const Columns& columns = blocks_.columns(b);
      decrease += columns.size() == 1 ? update_row(columns.front(), b) : update_group(b);
    }
    return decrease;
  }

  // The intercepts as one block, exactly in the approximation (both terms):
  // one solve with their curvature (outputs x outputs, factored once per
  // outer step) and one shift of the residuals. One at a time, each of
  // the multinomial's intercepts moved every class's residuals: O(rows x
  // classes^2) a sweep, which dominated fits of a hundred classes.
  double update_intercepts() {
    // The gaussian problem's columns and target are centred (with the rows'
    // weights): the intercept's gradient is 0 at every point.
    if (family_ == LinearFamily::Gaussian) return 0.0;
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

  // `cache`, refreshed when stale: the model's curvature `of(expansion)`
  // along a row or block, the lead model's plus (for blocks that take it)
  // lambda3 times the sub-model's, with lambda1 added, ready to solve
  // (GroupStep); cached for the outer step.
  template <class Of>
  const CachedCurvature& refreshed(CachedCurvature& cache, bool top, Of of) {
    if (cache.stamp != stamp_ || cache.top != top) {
      cache.matrix = of(lead_);
      if (top) cache.matrix += penalty_.lambda3 * of(sub_);
      cache.matrix.diagonal().array() += penalty_.lambda1;
      cache.step.reset(cache.matrix);
      cache.stamp = stamp_;
      cache.top = top;
    }
    return cache;
  }

  const CachedCurvature& curvature(std::int64_t j, bool top) {
    const auto x = problem_.x().col(j);
    return refreshed(curvature_[static_cast<std::size_t>(j)], top, [&](const Expansion& e) {
      return linear_detail::row_curvature(e, family_, x);
    });
  }

  // The exact update of row j, block `block` alone, in the model
  // (GroupStep); returns the model's decrease.
  double update_row(std::int64_t j, std::int64_t block) {
    const auto x = problem_.x().col(j);
    const bool zero = coef_.row(j).isZero();
    const bool free_slot = top_.is_free_slot(block, zero);
    const bool top = top_.takes_term(block, zero);
    const double lambda2 = penalty_.lambda2 * blocks_.weight(block);
    Eigen::VectorXd gradient = lead_.residual.transpose() * x * inv_n_;
    if (top) gradient.noalias() += penalty_.lambda3 * inv_n_ * (sub_.residual.transpose() * x);
    const CachedCurvature& cached = curvature(j, top);
    const Eigen::MatrixXd& a = cached.matrix;  // includes lambda1
    const Eigen::VectorXd old = coef_.row(j).transpose();
    const Eigen::VectorXd c = a * old + gradient - penalty_.lambda1 * old;
    // A row whose gradient ties with lambda2 (the first row at lambda2_max)
    // stays at zero: rounding in the residuals must not move it.
    const Eigen::VectorXd next = c.norm() > lambda2 * (1.0 + 1e-12)
                                     ? cached.step.solve(c, lambda2)
                                     : Eigen::VectorXd::Zero(old.size());
    if (next == old) return 0.0;
    const Eigen::VectorXd step = next - old;
    const double decrease = gradient.dot(step) - penalty_.lambda1 * old.dot(step) -
                            0.5 * step.dot(a * step) - lambda2 * (next.norm() - old.norm());
    if (free_slot) top_.claim(block);
    linear_detail::shift(lead_, family_, x, step);
    if (top) linear_detail::shift(sub_, family_, x, step);
    coef_.row(j) = next.transpose();
    return decrease;
  }

  // The update of a group of rows in the model; returns its decrease.
  // Groups of few coefficients (columns x outputs <= max_exact_block) take
  // the exact step (GroupStep on the block's whole curvature), larger ones
  // the majorised step.
  double update_group(std::int64_t block) {
    const Columns& columns = blocks_.columns(block);
    const auto size = static_cast<Eigen::Index>(columns.size());
    const bool zero = blocks_.is_zero(coef_, block);
    const bool free_slot = top_.is_free_slot(block, zero);
    const bool top = top_.takes_term(block, zero);
    const double lambda2 = penalty_.lambda2 * blocks_.weight(block);
    RowMatrix old(size, coef_.cols());
    RowMatrix gradient(size, coef_.cols());
    for (Eigen::Index r = 0; r < size; ++r) {
      const auto x = problem_.x().col(columns[static_cast<std::size_t>(r)]);
      old.row(r) = coef_.row(columns[static_cast<std::size_t>(r)]);
      gradient.row(r) = (lead_.residual.transpose() * x).transpose() * inv_n_;
      if (top) {
        gradient.row(r) += penalty_.lambda3 * inv_n_ * (sub_.residual.transpose() * x).transpose();
      }
    }
    RowMatrix next;
    const double decrease = size * coef_.cols() <= max_exact_block
                                ? exact_group_step(block, top, lambda2, old, gradient, next)
                                : majorised_group_step(block, top, lambda2, old, gradient, next);
    if (next == old) return 0.0;
    if (free_slot) top_.claim(block);
    for (Eigen::Index r = 0; r < size; ++r) {
      const auto x = problem_.x().col(columns[static_cast<std::size_t>(r)]);
      const Eigen::VectorXd delta = (next.row(r) - old.row(r)).transpose();
      linear_detail::shift(lead_, family_, x, delta);
      if (top) linear_detail::shift(sub_, family_, x, delta);
      coef_.row(columns[static_cast<std::size_t>(r)]) = next.row(r);
    }
    return decrease;
  }

  // The block's coefficients as one vector, entry a o + c for column a and
  // output c (block_curvature's order): a row-major matrix's storage.
  static Eigen::Map<const Eigen::VectorXd> flat(const RowMatrix& m) { return {m.data(), m.size()}; }

  // The exact minimiser of the model over the block (GroupStep with the
  // block's curvature, cached for the outer step), as update_row for a row.
  double exact_group_step(std::int64_t block, bool top, double lambda2, const RowMatrix& old,
                          const RowMatrix& gradient, RowMatrix& next) {
    const CachedCurvature& cache =
        refreshed(group_curvature_[static_cast<std::size_t>(block)], top, [&](const Expansion& e) {
          return linear_detail::block_curvature(e, family_, block_columns(block));
        });
    const Eigen::MatrixXd& a = cache.matrix;  // includes lambda1
    const auto b = flat(old);
    const auto g = flat(gradient);
    const Eigen::VectorXd c = a * b + g - penalty_.lambda1 * b;
    next.resize(old.rows(), old.cols());
    Eigen::Map<Eigen::VectorXd> solution(next.data(), next.size());
    if (c.norm() > lambda2 * (1.0 + 1e-12)) {
      solution = cache.step.solve(c, lambda2);
    } else {
      solution.setZero();
    }
    const Eigen::VectorXd step = solution - b;
    return g.dot(step) - penalty_.lambda1 * b.dot(step) - 0.5 * step.dot(a * step) -
           lambda2 * (solution.norm() - b.norm());
  }

  // With the curvature bounded by L I (group_bound()), min -g'D + L ||D||^2
  // / 2 + lambda1 ||B + D||^2 / 2 + lambda2 sqrt(p) ||B + D|| is solved by
  // B + D = C (1 - lambda2 sqrt(p) / ||C||)_+ / (L + lambda1), C = L B + g.
  // Returns the model's decrease (exact, not the bound's).
  double majorised_group_step(std::int64_t block, bool top, double lambda2, const RowMatrix& old,
                              const RowMatrix& gradient, RowMatrix& next) {
    const double bound = group_bound(block, top);
    const RowMatrix c = bound * old + gradient;
    const double norm = c.norm();
    if (norm > lambda2 * (1.0 + 1e-12)) {
      next = c * ((1.0 - lambda2 / norm) / (bound + penalty_.lambda1));
    } else {
      next = RowMatrix::Zero(old.rows(), old.cols());
    }
    const RowMatrix step = next - old;
    // The step of the linear predictor, for the model's curvature along it.
    const Columns& columns = blocks_.columns(block);
    Eigen::MatrixXd moved = Eigen::MatrixXd::Zero(problem_.rows(), coef_.cols());
    for (Eigen::Index r = 0; r < step.rows(); ++r) {
      moved.noalias() += problem_.x().col(columns[static_cast<std::size_t>(r)]) * step.row(r);
    }
    double curvature = quadratic(lead_, moved);
    if (top) curvature += penalty_.lambda3 * quadratic(sub_, moved);
    return (gradient.array() * step.array()).sum() -
           penalty_.lambda1 * ((old.array() * step.array()).sum() + 0.5 * step.squaredNorm()) -
           0.5 * curvature - lambda2 * (next.norm() - old.norm());
  }

  // The block's columns side by side (rows x p).
  Eigen::MatrixXd block_columns(std::int64_t block) const {
    const Columns& columns = blocks_.columns(block);
    Eigen::MatrixXd x(problem_.rows(), static_cast<Eigen::Index>(columns.size()));
    for (std::size_t r = 0; r < columns.size(); ++r) {
      x.col(static_cast<Eigen::Index>(r)) = problem_.x().col(columns[r]);
    }
    return x;
  }

  // d' H d / n summed over the rows, d the rows of `moved` (the model's
  // curvature along a step of the linear predictor).
  double quadratic(const Expansion& e, const Eigen::MatrixXd& moved) const {
    if (family_ != LinearFamily::Multinomial) {
      return e.weight.col(0).dot(moved.col(0).cwiseAbs2()) * inv_n_;
    }
    // Per row d' (diag(p) - p p') d, times the row's weight.
    Eigen::ArrayXd per_row = (e.weight.array() * moved.array().square()).rowwise().sum() -
                             (e.weight.array() * moved.array()).rowwise().sum().square();
    if (e.row_weight.size() > 0) per_row *= e.row_weight.array();
    return per_row.sum() * inv_n_;
  }

  // L with L I at least the model's curvature along the group's rows: the
  // largest eigenvalue of X_G' diag(h) X_G / n, h_i bounding row i's
  // Hessian (binomial and gaussian: their weight; multinomial: the row's
  // largest probability, as diag(p) - p p' <= diag(p)), times its weight.
  // Cached for the outer step.
  double group_bound(std::int64_t block, bool top) {
    auto& cache = bound_[static_cast<std::size_t>(block)];
    if (cache.stamp != stamp_ || cache.top != top) {
      Eigen::MatrixXd curvature = group_curvature_bound(lead_, block);
      if (top) curvature += penalty_.lambda3 * group_curvature_bound(sub_, block);
      cache.value =
          Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(curvature, Eigen::EigenvaluesOnly)
              .eigenvalues()
              .maxCoeff();
      cache.value = std::max(cache.value, 1e-12);
      cache.stamp = stamp_;
      cache.top = top;
    }
    return cache.value;
  }

  Eigen::MatrixXd group_curvature_bound(const Expansion& e, std::int64_t block) const {
    Eigen::VectorXd h = family_ == LinearFamily::Multinomial
                            ? Eigen::VectorXd(e.weight.rowwise().maxCoeff())
                            : Eigen::VectorXd(e.weight.col(0));
    if (family_ == LinearFamily::Multinomial && e.row_weight.size() > 0) {
      h.array() *= e.row_weight.array();
    }
    const Eigen::MatrixXd x = block_columns(block);
    const Eigen::MatrixXd scaled = x.array().colwise() * h.array().sqrt();
    Eigen::MatrixXd out(x.cols(), x.cols());
    out.setZero();
    out.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose(), inv_n_);
    return out.selfadjointView<Eigen::Lower>();
  }

  // S = the top k blocks by norm; the sub-model's approximation is rebuilt
  // when S changed. True when it did not.
  bool recompute_top() {
    auto no_op = [](std::int64_t) {};
    return top_.recompute(blocks_.norms(coef_), working_, no_op, no_op);
  }

  // The true gradient of the smooth part at the current point (the
  // approximations were just rebuilt there): X^T residual / n, per output.
  void gradients(Eigen::MatrixXd& lead, Eigen::MatrixXd& sub) const {
    linear_detail::multiply_transposed_block(problem_.x(), lead_.residual, inv_n_, lead);
    if (with_top_)
      linear_detail::multiply_transposed_block(problem_.x(), sub_.residual, inv_n_, sub);
  }

  // The norm of the gradient that decides whether zero block b may stay
  // zero, divided by the block's penalty weight.
  double decisive_gradient(std::int64_t b, const Eigen::MatrixXd& lead,
                           const Eigen::MatrixXd& sub) const {
    const bool top = top_.takes_term(b, true);
    double squares = 0.0;
    for (auto j : blocks_.columns(b)) {
      squares += top ? (lead.row(j) + penalty_.lambda3 * sub.row(j)).squaredNorm()
                     : lead.row(j).squaredNorm();
    }
    return std::sqrt(squares) / blocks_.weight(b);
  }

  // Zero blocks whose optimality condition ||gradient_b|| <= lambda2
  // sqrt(p_b) fails.
  Columns kkt_violators() const {
    Eigen::MatrixXd lead, sub;
    gradients(lead, sub);
    const double slack = penalty_.lambda2 * (1.0 + 1e-9) + 1e-13;
    Columns violators;
    for (std::int64_t b = 0; b < blocks_.count(); ++b) {
      if (blocks_.empty(b) || !blocks_.is_zero(coef_, b)) continue;
      if (decisive_gradient(b, lead, sub) > slack) violators.push_back(b);
    }
    return violators;
  }

  // Non-zero blocks plus the zero blocks passing the sequential strong rule
  // ||gradient_b|| / sqrt(p_b) >= 2 lambda2 - lambda2_previous.
  Columns strong_set(double previous_lambda2) const {
    const double threshold = 2.0 * penalty_.lambda2 - previous_lambda2;
    const bool screen = std::isfinite(threshold) && threshold > 0;
    Eigen::MatrixXd lead, sub;
    if (screen) gradients(lead, sub);
    Columns set;
    for (std::int64_t b = 0; b < blocks_.count(); ++b) {
      if (blocks_.empty(b)) continue;
      if (!screen || !blocks_.is_zero(coef_, b) || decisive_gradient(b, lead, sub) >= threshold) {
        set.push_back(b);
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
  FeatureBlocks blocks_;
  linear_detail::TopSet top_;  // of blocks
  double inv_n_;
  Eigen::MatrixXd eta_;  // b + X B, the lead model's linear predictor
  Expansion lead_, sub_;
  Columns working_;
  long stamp_ = 0;
  long intercept_stamp_ = -1;
  Eigen::LLT<Eigen::MatrixXd> intercept_solver_;  // the intercepts' curvature, factored
  std::vector<CachedCurvature> curvature_{static_cast<std::size_t>(problem_.cols())};
  struct CachedBound {
    long stamp = -1;
    bool top = false;
    double value = 0.0;
  };
  std::vector<CachedBound> bound_{static_cast<std::size_t>(blocks_.count())};
  std::vector<CachedCurvature> group_curvature_{static_cast<std::size_t>(blocks_.count())};
  double lead_loss_ = 0.0;
  Eigen::VectorXd ones_ = Eigen::VectorXd::Ones(problem_.rows());  // the intercepts' column
};

double null_loss(const LinearProblem& problem, const ClassTarget& target, LinearFamily family) {
  const Eigen::VectorXd b = linear_detail::null_intercepts(target, family);
  Expansion null;
  linear_detail::expand(b.transpose().replicate(problem.rows(), 1), target, family, null);
  return null.loss;
}

void check_target(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
                  const LinearPenalty& penalty) {
  if (family == LinearFamily::Gaussian) {
    if (penalty.groups.empty()) {
      throw OptionError(
          "fit_glm fits the gaussian family with groups only; without them it is fit_linear");
    }
    TOPKFS_ASSERT(target.values.size() == problem.rows());
    return;
  }
  TOPKFS_ASSERT(static_cast<std::int64_t>(target.labels.size()) == problem.rows());
  if (family == LinearFamily::Binomial && target.classes != 2) {
    throw DataError(
        fmt::format("the binomial family takes two classes, and the target has {}: use {}",
                    target.classes, option_ref("family", "multinomial")));
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
  // The gaussian problem's target is centred (its intercept_std is 0).
  if (fit.family == LinearFamily::Gaussian) fit.intercept[0] += problem.target_mean();
  fit.deviance_ratio = null > 0 ? 1.0 - lead_loss / null : 0.0;
}

}  // namespace

LinearFamily parse_linear_family(const std::string& name) {
  if (name == "gaussian") return LinearFamily::Gaussian;
  if (name == "binomial") return LinearFamily::Binomial;
  if (name == "multinomial") return LinearFamily::Multinomial;
  throw OptionError(fmt::format("{} takes auto, gaussian, binomial or multinomial, not '{}'",
                                option_ref("family"), name));
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
  return family == LinearFamily::Multinomial ? target.classes : 1;
}

Eigen::VectorXd GlmFit::row_norms() const { return coef_std.rowwise().norm(); }

std::int64_t GlmFit::nonzero() const {
  const auto& groups = penalty.groups;
  if (groups.empty()) return (row_norms().array() != 0.0).count();
  // A group counts once, whichever of its rows are non-zero.
  std::vector<char> used(
      static_cast<std::size_t>(*std::max_element(groups.begin(), groups.end()) + 1), 0);
  for (Eigen::Index j = 0; j < coef_std.rows(); ++j) {
    if (!coef_std.row(j).isZero())
      used[static_cast<std::size_t>(groups[static_cast<std::size_t>(j)])] = 1;
  }
  return std::count(used.begin(), used.end(), 1);
}

double glm_lambda2_max(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
                       const LinearPenalty& penalty) {
  check_target(problem, target, family, penalty);
  const Eigen::VectorXd b = linear_detail::null_intercepts(target, family);
  Expansion null;
  linear_detail::expand(b.transpose().replicate(problem.rows(), 1), target, family, null);
  Eigen::MatrixXd gradient;
  linear_detail::multiply_transposed_block(problem.x(), null.residual,
                                           1.0 / static_cast<double>(problem.rows()), gradient);
  const FeatureBlocks blocks(problem, penalty.groups);
  double plain = 0.0;
  for (std::int64_t b = 0; b < blocks.count(); ++b) {
    if (blocks.empty(b)) continue;
    double squares = 0.0;
    for (auto j : blocks.columns(b)) squares += gradient.row(j).squaredNorm();
    plain = std::max(plain, std::sqrt(squares) / blocks.weight(b));
  }
  return penalty.lambda3 > 0 ? (1.0 + penalty.lambda3) * plain : plain;
}

Eigen::VectorXd glm_gradient_norms(const LinearProblem& problem, const ClassTarget& target,
                                   const GlmFit& fit) {
  check_target(problem, target, fit.family, fit.penalty);
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
  check_target(problem, target, family, penalty);
  if (control.solver == LinearSolver::Covariance) {
    throw OptionError(fmt::format(
        "{} is for the gaussian family; the {} family updates residuals ({} or auto)",
        option_ref("solver", "covariance"), to_string(family), option_ref("solver", "naive")));
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
  const FeatureBlocks blocks(problem, penalty.groups);
  double value = lead.loss + penalty_value(blocks, penalty, coef_std);
  if (penalty.lambda3 > 0) {
    const Columns top = blocks.columns_of(top_k_columns(blocks.norms(coef_std), penalty.k));
    Expansion sub;
    linear_detail::expand(linear_predictor(problem, coef_std, intercept_std, &top), target, family,
                          sub);
    value += penalty.lambda3 * sub.loss;
  }
  return value;
}

}  // namespace topkfs
