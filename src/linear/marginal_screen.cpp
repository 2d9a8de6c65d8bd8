// Rao's score test of each column against the intercept-only model
// (marginal_screen.hpp).
#include "topkfs/linear/marginal_screen.hpp"

#include <algorithm>
#include <cmath>

#include "topkfs/core/error.hpp"

namespace topkfs {

Eigen::VectorXd marginal_score_statistics(const LinearProblem& problem) {
  // The columns and y are centred: n (x'y)^2 / (x'x y'y), from the problem's
  // per-sample sums x'y/n, x'x/n and y'y/n; weighted, n is the weights'
  // sum (a weight counts its row that many times).
  const double n = problem.weight_total();
  Eigen::VectorXd out = Eigen::VectorXd::Zero(problem.cols());
  if (!(problem.yy() > 0)) return out;
  for (Eigen::Index j = 0; j < out.size(); ++j) {
    const double norm = problem.column_norm()[j];
    if (norm > 0) out[j] = n * problem.xty()[j] * problem.xty()[j] / (norm * problem.yy());
  }
  return out;
}

Eigen::VectorXd marginal_score_statistics(const LinearProblem& problem, const ClassTarget& target) {
  // Centred columns: the class sums S_jc of column j over the rows of class c
  // are the score x_j'(Y_c - p_c), and n R^2 = sum_c S_jc^2 / (n_c x_j'x_j / n).
  const auto n = problem.rows();
  TOPKFS_ASSERT(static_cast<std::int64_t>(target.labels.size()) == n);
  Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(problem.cols(), target.classes);
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(target.classes);
  Eigen::MatrixXd indicator = Eigen::MatrixXd::Zero(n, target.classes);
  // Weighted rows count w_i times (the weights have mean 1, so n stays).
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = target.weights.size() > 0 ? target.weights[i] : 1.0;
    indicator(i, target.labels[static_cast<std::size_t>(i)]) = w;
    counts[target.labels[static_cast<std::size_t>(i)]] += w;
  }
  sums.noalias() = problem.x().transpose() * indicator;
  Eigen::VectorXd out = Eigen::VectorXd::Zero(problem.cols());
  for (Eigen::Index j = 0; j < out.size(); ++j) {
    const double norm = problem.column_norm()[j];
    if (!(norm > 0)) continue;
    double between = 0.0;
    for (Eigen::Index c = 0; c < sums.cols(); ++c) {
      if (counts[c] > 0) between += sums(j, c) * sums(j, c) / counts[c];
    }
    out[j] = between / norm * problem.weight_total() / static_cast<double>(n);
  }
  return out;
}

double chi_square_survival(double x, int df) {
  TOPKFS_ASSERT(df >= 1);
  if (!(x > 0)) return 1.0;
  // Q(a, y), the upper regularised gamma function at a = df/2, y = x/2,
  // from Q(1/2, y) = erfc(sqrt y) or Q(1, y) = e^-y up in steps of one:
  // Q(a + 1, y) = Q(a, y) + y^a e^-y / Gamma(a + 1).
  const double y = 0.5 * x;
  double a = df % 2 == 1 ? 0.5 : 1.0;
  double q = df % 2 == 1 ? std::erfc(std::sqrt(y)) : std::exp(-y);
  for (; a < 0.5 * df; a += 1.0) q += std::exp(a * std::log(y) - y - std::lgamma(a + 1.0));
  return std::min(q, 1.0);
}

std::vector<char> passes_screen(const Eigen::VectorXd& statistics, int df, double level) {
  std::vector<char> out(static_cast<std::size_t>(statistics.size()), 0);
  for (Eigen::Index j = 0; j < statistics.size(); ++j) {
    out[static_cast<std::size_t>(j)] = chi_square_survival(statistics[j], df) < level;
  }
  return out;
}

}  // namespace topkfs
