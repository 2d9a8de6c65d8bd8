// Standardising the training rows once: every solver works on the columns
// (x - mean) / sd, column-major in double, so that coordinate updates read
// contiguous memory and the products go to BLAS.
#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>

#include "dense_kernels.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/select/option_table.hpp"

namespace topkfs {
namespace {

// Below this relative spread a column is constant up to float rounding.
bool is_constant(double sd, double mean) { return !(sd > 1e-12 * std::max(1.0, std::abs(mean))); }

// Columns per task: a task copies its columns for every row (reading 256
// bytes per row) and then standardises them while they are still in cache.
constexpr Eigen::Index tile = 64;

// Memory for the standardised columns: 2 MB aligned and advised as huge pages
// when large, so that first touching it costs a page fault per 2 MB instead of
// per 4 KB (a third of the standardising time of a 10000 x 1000 problem).
constexpr std::size_t huge_page = std::size_t{2} << 20;

double* allocate_columns(std::size_t count) {
  std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(double);
  const bool huge = bytes >= 2 * huge_page;
  const std::size_t alignment = huge ? huge_page : 64;
  bytes = (bytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, bytes);
  if (memory == nullptr) {
    throw DataError(fmt::format("out of memory: the standardised columns need {:.1f} GB",
                                static_cast<double>(bytes) / 1e9));
  }
#ifdef MADV_HUGEPAGE
  if (huge) ::madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
  return static_cast<double*>(memory);
}

// The rows' weights as a standardisation uses them: w (scaled to mean 1)
// for the sums, and the factor sqrt(w) each row is multiplied by (null for
// rows kept as they are).
struct WeightView {
  const double* weight = nullptr;  // null: every row weighs 1
  const double* root = nullptr;
};

// Copies columns [j0, j1) of rows `rows` into `out` (column-major, n rows),
// centres them and, when `standardise`, divides them by their standard
// deviation (both weighted by `weights`), then scales the rows by their
// factor; fills mean, scale (sd, or 1 unscaled; 0 for a constant column),
// norm and X^T y / n (weighted) for them.
void standardise_columns(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                         const Eigen::VectorXd& y, bool standardise, const WeightView& weights,
                         Eigen::Index j0, Eigen::Index j1, LinearProblem::ColumnMatrix& out,
                         Eigen::VectorXd& mean, Eigen::VectorXd& scale, Eigen::VectorXd& norm,
                         Eigen::VectorXd& xty) {
  const Eigen::Index n = out.rows();
  const double inv_n = 1.0 / static_cast<double>(n);
  const float* data = features.data();
  const auto stride = static_cast<std::size_t>(features.cols());
  const double* w = weights.weight;
  double sums[tile] = {};
  for (Eigen::Index i0 = 0; i0 < n; i0 += tile) {
    const Eigen::Index i1 = std::min(n, i0 + tile);
    for (Eigen::Index j = j0; j < j1; ++j) {
      double* target = out.data() + j * n;
      double sum = 0.0;
      for (Eigen::Index i = i0; i < i1; ++i) {
        target[i] = data[static_cast<std::size_t>(rows[static_cast<std::size_t>(i)]) * stride +
                         static_cast<std::size_t>(j)];
        sum += w != nullptr ? w[i] * target[i] : target[i];
      }
      sums[j - j0] += sum;
    }
  }
  // Each column is in cache by now; Eigen's reductions vectorise.
  const Eigen::Map<const Eigen::VectorXd> weight(w, w != nullptr ? n : 0);
  for (Eigen::Index j = j0; j < j1; ++j) {
    auto column = out.col(j);
    const double m = sums[j - j0] * inv_n;
    column.array() -= m;  // centre, then measure: exact for columns far from 0
    const double squares = w != nullptr ? column.cwiseAbs2().dot(weight) : column.squaredNorm();
    double sd = std::sqrt(squares * inv_n);
    if (is_constant(sd, m)) sd = 0.0;
    if (!standardise && sd > 0) sd = 1.0;  // centred only: the intercept stays unpenalised
    const double inv_sd = sd > 0 ? 1.0 / sd : 0.0;
    column *= inv_sd;
    if (weights.root != nullptr) {
      column.array() *= Eigen::Map<const Eigen::ArrayXd>(weights.root, n);
      xty[j] = column.dot(y) * inv_n;  // y's rows are scaled too
    } else {
      xty[j] = (w != nullptr ? column.cwiseProduct(weight).dot(y) : column.dot(y)) * inv_n;
    }
    mean[j] = m;
    scale[j] = sd;
    norm[j] = squares * inv_sd * inv_sd * inv_n;  // ||x_j||^2 / n of the scaled column (weighted)
  }
}

// The checks of both constructors; the number of rows.
Eigen::Index checked_rows(const std::vector<std::int64_t>& rows, const Eigen::VectorXd& y,
                          ScalingKind scaling) {
  if (scaling != ScalingKind::Standard && scaling != ScalingKind::None) {
    throw OptionError(fmt::format("the linear models scale their columns standard or none, not {}",
                                  to_string(scaling)));
  }
  const auto n = static_cast<Eigen::Index>(rows.size());
  TOPKFS_ASSERT(y.size() == n);
  if (n < 2) {
    throw DataError(fmt::format("linear models need at least 2 training rows, got {}", n));
  }
  return n;
}

}  // namespace

constexpr EnumName<LinearSolver> kLinearSolverNames[] = {{LinearSolver::Auto, "auto"},
                                                         {LinearSolver::Covariance, "covariance"},
                                                         {LinearSolver::Naive, "naive"}};

EnumNameList<LinearSolver> names_of(LinearSolver) { return kLinearSolverNames; }

LinearSolver parse_linear_solver(const std::string& name) {
  LinearSolver solver = LinearSolver::Auto;
  if (!find_enum(name, names_of(solver), solver)) {
    option_parsing::refuse_choice("solver", name, enum_choices(names_of(solver)));
  }
  return solver;
}

const char* to_string(LinearSolver solver) { return enum_name(solver); }

LinearProblem::LinearProblem(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                             const Eigen::VectorXd& y, int threads, ScalingKind scaling,
                             const std::vector<double>& weights, RowWeighting weighting) {
  const auto n = checked_rows(rows, y, scaling);
  const Eigen::Index m = features.cols();
  threads_ = linear_detail::set_dense_threads(threads);
  const double inv_n = 1.0 / static_cast<double>(n);
  n_ = n;
  weighting_ = weighting;
  weight_total_ = static_cast<double>(n);

  WeightView view;
  Eigen::VectorXd root;
  if (!weights.empty()) {
    TOPKFS_ASSERT(static_cast<Eigen::Index>(weights.size()) == n);
    weights_ = Eigen::Map<const Eigen::VectorXd>(weights.data(), n);
    const double total = weights_.sum();
    TOPKFS_ASSERT(total > 0);
    weight_total_ = total;
    weights_ *= static_cast<double>(n) / total;
    view.weight = weights_.data();
    if (weighting == RowWeighting::ScaledRows) {
      root = weights_.cwiseSqrt();
      view.root = root.data();
    }
  }
  y_mean_ = weights_.size() > 0 ? weights_.dot(y) * inv_n : y.mean();
  y_ = y.array() - y_mean_;
  yy_ = (weights_.size() > 0 ? y_.cwiseAbs2().dot(weights_) : y_.squaredNorm()) * inv_n;
  if (root.size() > 0) y_.array() *= root.array();

  storage_.reset(allocate_columns(static_cast<std::size_t>(n) * static_cast<std::size_t>(m)));
  new (&x_) ColumnMatrix(storage_.get(), n, m);
  mean_.resize(m);
  scale_.resize(m);
  norm_.resize(m);
  xty_.resize(m);
  const Eigen::Index tiles = (m + tile - 1) / tile;
  // Every column is summed in row order whatever the thread count, so the
  // result does not depend on it.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
  for (Eigen::Index t = 0; t < tiles; ++t) {
    standardise_columns(features, rows, y_, scaling == ScalingKind::Standard, view, t * tile,
                        std::min(m, (t + 1) * tile), x_, mean_, scale_, norm_, xty_);
  }
}

LinearProblem::LinearProblem(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                             const Eigen::VectorXd& y, int threads, ScalingKind scaling,
                             RankGroup& ranks) {
  const auto n = checked_rows(rows, y, scaling);
  const Eigen::Index m = features.cols();
  threads_ = linear_detail::set_dense_threads(threads);
  n_ = n;
  weight_total_ = static_cast<double>(n);
  // Sums of the rows minus the first row (and of y minus its first value):
  // moments about a point inside the data lose little to cancellation.
  const float* pivot = features.row(rows.front()).data();
  const double y_pivot = y[0];
  const RowShard shard = row_shard(features.rows(), ranks.rank(), ranks.size());
  std::vector<std::int64_t> local;
  std::vector<double> local_y;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!shard.contains(rows[static_cast<std::size_t>(i)])) continue;
    local.push_back(rows[static_cast<std::size_t>(i)]);
    local_y.push_back(y[i] - y_pivot);
  }
  const auto count = static_cast<Eigen::Index>(local.size());
  Eigen::MatrixXd d(count, m);  // this rank's rows, shifted
  for (Eigen::Index i = 0; i < count; ++i) {
    const float* row = features.row(local[static_cast<std::size_t>(i)]).data();
    for (Eigen::Index j = 0; j < m; ++j) d(i, j) = static_cast<double>(row[j]) - pivot[j];
  }
  const Eigen::Map<const Eigen::VectorXd> dy(local_y.data(), count);
  // One sum over the ranks: [D^T D | D^T dy | column sums of D | sum dy, sum dy^2].
  Eigen::VectorXd sums(m * m + 2 * m + 2);
  Eigen::Map<Eigen::MatrixXd> dtd(sums.data(), m, m);
  dtd.noalias() = d.transpose() * d;
  sums.segment(m * m, m) = d.transpose() * dy;
  sums.segment(m * m + m, m) = d.colwise().sum().transpose();
  sums[m * m + 2 * m] = dy.sum();
  sums[m * m + 2 * m + 1] = dy.squaredNorm();
  ranks.sum(sums.data(), static_cast<std::size_t>(sums.size()));

  const double inv_n = 1.0 / static_cast<double>(n);
  const Eigen::VectorXd shift_mean = sums.segment(m * m + m, m) * inv_n;  // mean of x - pivot
  const double dy_mean = sums[m * m + 2 * m] * inv_n;
  y_mean_ = y_pivot + dy_mean;
  yy_ = std::max(0.0, sums[m * m + 2 * m + 1] * inv_n - dy_mean * dy_mean);
  // Centred moments: E[(x - mean)(x - mean)^T] = E[d d^T] - E[d] E[d]^T.
  Eigen::MatrixXd covariance = dtd * inv_n - shift_mean * shift_mean.transpose();
  Eigen::VectorXd cross = sums.segment(m * m, m) * inv_n - shift_mean * dy_mean;
  mean_.resize(m);
  scale_.resize(m);
  norm_.resize(m);
  Eigen::VectorXd inv_sd(m);
  for (Eigen::Index j = 0; j < m; ++j) {
    mean_[j] = pivot[j] + shift_mean[j];
    double sd = std::sqrt(std::max(0.0, covariance(j, j)));
    if (is_constant(sd, mean_[j])) sd = 0.0;
    if (scaling != ScalingKind::Standard && sd > 0) sd = 1.0;
    scale_[j] = sd;
    inv_sd[j] = sd > 0 ? 1.0 / sd : 0.0;
  }
  gram_ = inv_sd.asDiagonal() * covariance * inv_sd.asDiagonal();
  xty_ = inv_sd.asDiagonal() * cross;
  norm_ = gram_.diagonal();
  gram_ready_.assign(static_cast<std::size_t>(m), 1);
  gram_count_ = m;
  new (&x_) ColumnMatrix(nullptr, 0, m);
}

void LinearProblem::Release::operator()(double* memory) const { std::free(memory); }

std::int64_t LinearProblem::constant_columns() const { return (scale_.array() == 0.0).count(); }

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
