#pragma once
// The linear lead models for class targets: logistic (binomial) and
// multinomial regression with the elastic-net penalty and the top-k term,
// fitted by proximal Newton as glmnet does (an outer loop of quadratic
// approximations of the log-likelihood, coordinate descent on each).
//
// Objective, on the columns of a LinearProblem (standardised or centred) with
// unpenalised intercepts b (one per output):
//
//   F(B, b) = L(B, b) + lambda3 L(B^{max_k}, b)
//             + lambda2 sum_j ||B_j||_2 + lambda1/2 ||B||_F^2
//
// L is the negative log-likelihood divided by n; B has one column per output
// (binomial: one, the log-odds of the second class; multinomial: one per
// class, as glmnet's type.multinomial = "grouped"), and B_j is feature j's
// row, so that a feature is in or out for all classes. B^{max_k} keeps the k
// rows of largest norm (ties to the lower index). The sub-model shares the
// intercepts. With one output ||B_j||_2 = |w_j| and F is
// scikit-learn's LogisticRegression(penalty="elasticnet") divided by C n:
// C = 1 / (n (lambda1 + lambda2)), l1_ratio = lambda2 / (lambda1 + lambda2);
// multinomial F is glmnet's objective with lambda = lambda1 + lambda2 and
// alpha = lambda2 / lambda. docs/linear.md has the details.
//
// With groups (LinearPenalty::groups) the L1 term is the group lasso's,
// lambda2 sum_g sqrt(p_g) ||B_g||_F over the groups' rows (p_g the group's
// non-constant columns), B^{max_k} keeps the k groups of largest ||B_g||_F,
// and the gaussian family (ClassTarget::values) is fitted here too
// (docs/linear.md, "Grouped columns").
#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "topkfs/linear/linear_model.hpp"

namespace topkfs {

// gaussian: least squares (linear_model.hpp); binomial and multinomial: here.
enum class LinearFamily { Gaussian, Binomial, Multinomial };

LinearFamily parse_linear_family(const std::string& name);  // gaussian|binomial|multinomial
const char* to_string(LinearFamily family);

// Class labels 0..classes-1, one per row of the problem, and the rows'
// weights in the likelihood (empty: every row weighs 1; else one per row,
// scaled to mean 1 as LinearProblem::row_weights() has them): the loss is
// sum_i w_i l_i / n, scikit-learn's LogisticRegression with sample_weight
// up to the scale of its C.
// The gaussian family (fitted here only with groups, whose blocks the
// least-squares solver does not update) takes `values` instead: the
// problem's centred target, its rows already weighted (RowWeighting::
// ScaledRows).
struct ClassTarget {
  std::vector<std::int32_t> labels;
  int classes = 2;
  Eigen::VectorXd weights;
  Eigen::VectorXd values;
};

struct GlmFit : FitRecord {
  GlmFit() { solver = LinearSolver::Naive; }  // residual updates: no Gram matrix to keep

  LinearFamily family = LinearFamily::Binomial;
  Eigen::MatrixXd coef_std;       // features x outputs, on the problem's columns
  Eigen::VectorXd intercept_std;  // per output, on the problem's (centred) columns
  Eigen::MatrixXd coef;           // on the original columns
  Eigen::VectorXd intercept;      // on the original columns
  double deviance_ratio = 0.0;    // 1 - L / L(intercepts only), as glmnet's dev.ratio
  int outer_steps = 0;            // quadratic approximations

  // Norm of each feature's row of coefficients (the ranking).
  Eigen::VectorXd row_norms() const;
  std::int64_t nonzero() const;
};

// The solution at `penalty` on `problem`'s columns (its target is unused).
// A warm start (a fit on the same problem and target) starts from its
// coefficients; without one the fit starts from the intercepts-only model.
GlmFit fit_glm(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
               const LinearPenalty& penalty, const SolverControl& control,
               const GlmFit* warm_start = nullptr);

// The smallest lambda2 at which every coefficient is zero:
// max_j ||x_j^T (Y - P_0)|| / n at the intercepts-only fit, times 1 + lambda3
// with the top-k term.
double glm_lambda2_max(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
                       const LinearPenalty& penalty);

// Fits along `lambdas` (decreasing) with warm starts. Stops after the first
// point with at least `stop_at_nonzeros` non-zero rows when that is > 0, and,
// as glmnet, once the deviance ratio passes 0.999 (the classes are then
// nearly separated and the coefficients would grow without bound).
std::vector<GlmFit> fit_glm_path(const LinearProblem& problem, const ClassTarget& target,
                                 LinearFamily family, const LinearPenalty& penalty,
                                 const std::vector<double>& lambdas, const SolverControl& control,
                                 int stop_at_nonzeros = 0,
                                 const std::function<void(const GlmFit&)>& on_point = {});

// ||x_j^T (Y - P)|| / n per feature at the fit (P its probabilities): for a
// zero row, the lambda2 below which it would leave zero, as
// linear_gradient_magnitudes for the gaussian family.
Eigen::VectorXd glm_gradient_norms(const LinearProblem& problem, const ClassTarget& target,
                                   const GlmFit& fit);

// F of coefficients on the problem's columns, computed from scratch (for
// tests and reports).
double glm_objective(const LinearProblem& problem, const ClassTarget& target, LinearFamily family,
                     const LinearPenalty& penalty, const Eigen::MatrixXd& coef_std,
                     const Eigen::VectorXd& intercept_std);

// Number of coefficient columns: 1 (binomial) or the class count.
int glm_outputs(LinearFamily family, const ClassTarget& target);

}  // namespace topkfs
