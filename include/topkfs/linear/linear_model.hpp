#pragma once
// The linear lead models of Wu & Cheng (eq. 4 and 5) fitted by coordinate
// descent: elastic net, Lasso and ridge, each with or without the top-k term.
//
// Objective, on columns standardised over the training rows (mean 0,
// population variance 1) and with an unpenalised intercept:
//
//   F(w) = 1/(2n) ||y - b - X w||^2 + lambda3/(2n) ||y - b - X w^{max_k}||^2
//          + lambda2 ||w||_1 + lambda1/2 ||w||_2^2
//
// that is the paper's eq. 5 divided by 2n (paper lambda2 = 2n lambda2 here,
// paper lambda1 = n lambda1 here), which is glmnet's scaling. With lambda3 = 0
// it is scikit-learn's ElasticNet on the standardised columns with
// alpha = lambda1 + lambda2 and l1_ratio = lambda2 / (lambda1 + lambda2), and
// Ridge with alpha = n lambda1 (docs/linear.md). The intercept b is the mean of
// y: the columns are centred, so it solves both loss terms at once.
//
// w^{max_k} keeps the k largest |w_j| (ties to the lower index) and is a
// constant of each sweep: the set is recomputed between sweeps, and the fit
// stops when the set is stable and the objective's relative change is below
// tol, and no zero weight violates its optimality condition.
#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/rank_group.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/data/scaling.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs {

// Naive updates keep the residual (O(n) per changed weight); covariance
// updates keep X^T X w (O(m) per changed weight) from Gram columns computed
// for the weights that become non-zero. Auto picks covariance when the rows
// outnumber the columns at least twice and the Gram matrix fits in 512 MB, as
// glmnet does for few variables.
enum class LinearSolver { Auto, Covariance, Naive };

LinearSolver parse_linear_solver(const std::string& name);  // auto|covariance|naive
const char* to_string(LinearSolver solver);
EnumNameList<LinearSolver> names_of(LinearSolver);  // auto, covariance, naive

// How the training rows' weights (data/sample_weights.hpp) enter a problem.
// Both ways weigh the columns' means and scales, and the target's mean.
// ScaledRows (the squared-error family): row i of X and y is multiplied by
// sqrt(w_i n / sum w), so that the unweighted solvers minimise
// sum_i w_i r_i^2 / (2 sum w), scikit-learn's ElasticNet with sample_weight;
// a weight of 0 then removes the row and 2 duplicates it, exactly.
// Apart (the class families): the rows stay as standardised, and the
// likelihood weighs each row by row_weights() (glm_model.hpp).
enum class RowWeighting { ScaledRows, Apart };

// The training rows of a dataset with standardised columns and a centred
// target, plus the Gram columns computed so far (shared by every fit on the
// problem, so a path computes each column once). Not thread-safe: one fit at a
// time per problem.
class LinearProblem {
 public:
  // The standardised columns live in memory of their own (2 MB pages where
  // the system allows: a large matrix then costs far fewer page faults).
  using ColumnMatrix = Eigen::Map<Eigen::MatrixXd, Eigen::Aligned64>;

  // Rows `rows` of `features`; `y` holds one target value per entry of `rows`
  // (the class models pass zeros: their labels are apart). Columns constant
  // over those rows get scale 0 and weight 0 in every fit. threads <= 0:
  // every core that other work leaves free (free_cores()); the count also
  // becomes OpenBLAS's (process-wide), for the Gram products. Scaling None
  // centres the columns without dividing them (scale 1): the penalties then
  // act on the columns' own units. `weights`: one per entry of `rows`
  // (empty: every row weighs 1), >= 0 and not all 0, entering as
  // `weighting` says; means and scales are then the weighted ones.
  LinearProblem(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                const Eigen::VectorXd& y, int threads = 1,
                ScalingKind scaling = ScalingKind::Standard,
                const std::vector<double>& weights = {},
                RowWeighting weighting = RowWeighting::ScaledRows);
  // The same problem over ranks (docs/scale.md): each rank sums its shard's
  // part of `rows` (X^T X, X^T y, the column sums, shifted by the first of
  // `rows` for accuracy), one sum over the ranks adds them up, and every rank
  // derives the standardised Gram matrix and X^T y from the totals. The
  // problem then holds no rows (has_rows() false): only the covariance
  // solver runs on it. Every rank must pass the same rows and y. No
  // weights: a weighted fit over ranks is refused by its caller.
  LinearProblem(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                const Eigen::VectorXd& y, int threads, ScalingKind scaling, RankGroup& ranks);

  std::int64_t rows() const { return n_; }
  // False for a problem built from sums over ranks: x() and y() are empty.
  bool has_rows() const { return x_.rows() == n_; }
  std::int64_t cols() const { return x_.cols(); }
  int threads() const { return threads_; }

  const ColumnMatrix& x() const { return x_; }     // standardised, column-major
  const Eigen::VectorXd& y() const { return y_; }  // centred
  const Eigen::VectorXd& column_mean() const { return mean_; }
  const Eigen::VectorXd& column_scale() const { return scale_; }  // sd, 1 unscaled, 0 constant
  const Eigen::VectorXd& column_norm() const {
    return norm_;
  }                                                    // ||x_j||^2 / n (1 standardised, or 0)
  const Eigen::VectorXd& xty() const { return xty_; }  // X^T y / n
  double target_mean() const { return y_mean_; }
  double yy() const { return yy_; }  // y^T y / n (centred y)
  // The rows' weights scaled to mean 1 (empty when unweighted), and how they
  // entered.
  const Eigen::VectorXd& row_weights() const { return weights_; }
  // The weights' sum as given (rows() when unweighted): the sample size of a
  // weighted test, where a weight counts its row that many times.
  double weight_total() const { return weight_total_; }
  RowWeighting weighting() const { return weighting_; }
  std::int64_t constant_columns() const;

  // Gram matrix X^T X / n, filled column by column on demand.
  bool has_gram_column(std::int64_t j) const;
  void ensure_gram_columns(const std::vector<std::int64_t>& columns);
  void compute_gram();  // every column at once (one symmetric product)
  const Eigen::MatrixXd& gram() const { return gram_; }
  std::int64_t gram_columns_computed() const { return gram_count_; }

 private:
  struct Release {
    void operator()(double* memory) const;
  };
  std::unique_ptr<double[], Release> storage_;
  ColumnMatrix x_{nullptr, 0, 0};
  Eigen::VectorXd y_, mean_, scale_, norm_, xty_, weights_;
  RowWeighting weighting_ = RowWeighting::ScaledRows;
  std::int64_t n_ = 0;
  double y_mean_ = 0.0;
  double yy_ = 0.0;
  double weight_total_ = 0.0;
  int threads_ = 1;
  Eigen::MatrixXd gram_;
  std::vector<char> gram_ready_;
  std::int64_t gram_count_ = 0;
};

struct LinearPenalty {
  double lambda1 = 0.0;  // lambda1/2 ||w||_2^2
  double lambda2 = 0.0;  // lambda2 ||w||_1
  double lambda3 = 0.0;  // weight of the top-k sub-model's loss; 0: plain model
  int k = 0;             // size of the top-k set (needed when lambda3 > 0)
  // One group number per column (0, 1, ...; Dataset::column_group), or empty.
  // With groups, lambda2 penalises each group's coefficients together (the
  // group lasso, glm_model.hpp), k counts groups, and only fit_glm takes them.
  std::vector<std::int64_t> groups;
};

struct SolverControl {
  double tol = 1e-8;       // relative change of the objective over a sweep
  int max_sweeps = 10000;  // per fit (per path point)
  LinearSolver solver = LinearSolver::Auto;
};

// What every fit of the linear models records, whatever its family: the
// penalty it solved, how it ended, and the way there.
struct FitRecord {
  LinearPenalty penalty;
  double objective = 0.0;  // the family's F at the solution
  int sweeps = 0;  // coordinate sweeps (active-set and full; class fits: over all outer steps)
  bool converged = false;
  // False when the top-k set cycled between sets that tie for the k-th place
  // and was frozen: then the set of the sub-model and the top k of the
  // weights differ at that place (the selection is the top k of the weights).
  bool top_set_settled = true;
  LinearSolver solver = LinearSolver::Auto;  // the one used
  std::vector<EpochRecord> history;          // per sweep (class fits: per outer step)
};

struct LinearFit : FitRecord {
  Eigen::VectorXd coef_std;  // on the standardised columns (scores are |coef_std|)
  Eigen::VectorXd coef;      // on the original columns
  double intercept = 0.0;    // on the original columns

  std::int64_t nonzero() const;
};

// The solution at `penalty`. A warm start (a fit on the same problem, any
// penalty) starts from its weights; without one the solver starts from zero
// (covariance updates then walk a short geometric sequence of lambda2 down
// from lambda2_max, so that only the Gram columns of weights that become
// non-zero are ever computed).
LinearFit fit_linear(LinearProblem& problem, const LinearPenalty& penalty,
                     const SolverControl& control, const LinearFit* warm_start = nullptr);

// The smallest lambda2 at which every weight is zero: max_j |x_j^T y| / n,
// times 1 + lambda3 with the top-k term (at w = 0 every weight may enter the
// top-k set).
double lambda2_max(const LinearProblem& problem, const LinearPenalty& penalty);

// `points` values from `max` down to eps * max, evenly spaced in log scale
// (scikit-learn's and glmnet's grid).
std::vector<double> lambda2_grid(double max, int points, double eps);

// Fits along `lambdas` (decreasing) with warm starts. Stops after the first
// point with at least `stop_at_nonzeros` non-zero weights when that is > 0.
// `on_point` (optional) sees each fit as it is done, for progress reports.
std::vector<LinearFit> fit_linear_path(LinearProblem& problem, const LinearPenalty& penalty,
                                       const std::vector<double>& lambdas,
                                       const SolverControl& control, int stop_at_nonzeros = 0,
                                       const std::function<void(const LinearFit&)>& on_point = {});

// |x_j^T (y - X w)| / n per column of the problem at the fit's weights. For
// a zero weight it is the lambda2 below which the weight would leave zero
// (its optimality condition, without the top-k term): the selection ranks
// zero weights by it, the next to enter first.
Eigen::VectorXd linear_gradient_magnitudes(const LinearProblem& problem, const LinearFit& fit);

// F(w) of weights on the standardised columns, computed from scratch (for
// tests and reports).
double linear_objective(const LinearProblem& problem, const LinearPenalty& penalty,
                        const Eigen::VectorXd& coef_std);

// The k columns with the largest |w| (ties to the lower index), as the mask
// w^{max_k} uses them; ascending.
std::vector<std::int64_t> top_k_columns(const Eigen::VectorXd& w, int k);

}  // namespace topkfs
