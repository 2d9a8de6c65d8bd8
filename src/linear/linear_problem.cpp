// Standardising the training rows once: every solver works on the columns
// (x - mean) / sd, column-major in double, so that coordinate updates read
// contiguous memory and the products go to BLAS.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "dense_kernels.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace topkfs {
namespace {

// Tiles of the transposing copy: 64 x 64 floats (16 KB) stay in L1 while
// their rows are read across and their columns written down.
constexpr Eigen::Index tile = 64;

// out (n x m, column-major double) = rows `rows` of the row-major features.
void copy_transposed(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                     int threads, Eigen::MatrixXd& out) {
  const Eigen::Index n = out.rows();
  const Eigen::Index m = out.cols();
  const float* data = features.data();
  const auto stride = static_cast<std::size_t>(features.cols());
  const Eigen::Index tiles = (m + tile - 1) / tile;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (Eigen::Index t = 0; t < tiles; ++t) {
    const Eigen::Index j0 = t * tile;
    const Eigen::Index j1 = std::min(m, j0 + tile);
    for (Eigen::Index i0 = 0; i0 < n; i0 += tile) {
      const Eigen::Index i1 = std::min(n, i0 + tile);
      for (Eigen::Index j = j0; j < j1; ++j) {
        double* target = out.data() + j * n;
        for (Eigen::Index i = i0; i < i1; ++i) {
          target[i] = data[static_cast<std::size_t>(rows[static_cast<std::size_t>(i)]) * stride +
                           static_cast<std::size_t>(j)];
        }
      }
    }
  }
}

// Below this relative spread a column is constant up to float rounding.
bool is_constant(double sd, double mean) {
  return !(sd > 1e-12 * std::max(1.0, std::abs(mean)));
}

}  // namespace

LinearSolver parse_linear_solver(const std::string& name) {
  if (name == "auto") return LinearSolver::Auto;
  if (name == "covariance") return LinearSolver::Covariance;
  if (name == "naive") return LinearSolver::Naive;
  throw OptionError(fmt::format("--solver takes auto, covariance or naive, not '{}'", name));
}

const char* to_string(LinearSolver solver) {
  switch (solver) {
    case LinearSolver::Auto: return "auto";
    case LinearSolver::Covariance: return "covariance";
    case LinearSolver::Naive: return "naive";
  }
  return "?";
}

LinearProblem::LinearProblem(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                             const Eigen::VectorXd& y, int threads) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  const Eigen::Index m = features.cols();
  TOPKFS_ASSERT(y.size() == n);
  if (n < 2) {
    throw DataError(fmt::format("linear models need at least 2 training rows, got {}", n));
  }
  threads_ = linear_detail::set_dense_threads(threads);
  const double inv_n = 1.0 / static_cast<double>(n);

  y_mean_ = y.mean();
  y_ = y.array() - y_mean_;
  yy_ = y_.squaredNorm() * inv_n;

  x_.resize(n, m);
  mean_.resize(m);
  scale_.resize(m);
  norm_.resize(m);
  xty_.resize(m);
  copy_transposed(features, rows, threads_, x_);
  // Column by column (contiguous, in cache): mean, spread, then scaling. The
  // sums run in row order whatever the thread count, so the result does not
  // depend on it.
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (Eigen::Index j = 0; j < m; ++j) {
    auto column = x_.col(j);
    const double mean = column.sum() * inv_n;
    column.array() -= mean;
    double sd = std::sqrt(column.squaredNorm() * inv_n);
    if (is_constant(sd, mean)) sd = 0.0;
    column *= sd > 0 ? 1.0 / sd : 0.0;
    mean_[j] = mean;
    scale_[j] = sd;
    norm_[j] = column.squaredNorm() * inv_n;
    xty_[j] = column.dot(y_) * inv_n;
  }
}

std::int64_t LinearProblem::constant_columns() const {
  return (scale_.array() == 0.0).count();
}

bool LinearProblem::has_gram_column(std::int64_t j) const {
  return !gram_ready_.empty() && gram_ready_[static_cast<std::size_t>(j)] != 0;
}

void LinearProblem::ensure_gram_columns(const std::vector<std::int64_t>& columns) {
  const Eigen::Index m = cols();
  if (gram_ready_.empty()) {
    gram_.resize(m, m);
    gram_ready_.assign(static_cast<std::size_t>(m), 0);
  }
  std::vector<std::int64_t> missing;
  for (auto j : columns) {
    if (!gram_ready_[static_cast<std::size_t>(j)]) missing.push_back(j);
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  if (missing.empty()) return;
  const double inv_n = 1.0 / static_cast<double>(rows());
  // Once a third of the columns are needed the rest usually follow (a path
  // towards small lambda2): the symmetric product of all of them costs what
  // about half the columns one by one would.
  if (3 * (gram_count_ + static_cast<std::int64_t>(missing.size())) > m) {
    compute_gram();
    return;
  }
  linear_detail::gram_columns(x_, missing, inv_n, gram_);
  for (auto j : missing) gram_ready_[static_cast<std::size_t>(j)] = 1;
  gram_count_ += static_cast<std::int64_t>(missing.size());
}

void LinearProblem::compute_gram() {
  if (gram_count_ == cols()) return;
  gram_ready_.assign(static_cast<std::size_t>(cols()), 1);
  linear_detail::gram_full(x_, 1.0 / static_cast<double>(rows()), gram_);
  gram_count_ = cols();
}

}  // namespace topkfs
