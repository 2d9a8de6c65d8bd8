#include "dense_kernels.hpp"

#include <algorithm>
#include <atomic>

#include "topkfs/core/cpu_share.hpp"

#ifdef TOPKFS_LINEAR_BLAS
#include <cblas.h>
#endif

namespace topkfs::linear_detail {
namespace {

#ifdef TOPKFS_LINEAR_BLAS
// BLAS takes int sizes; the problem sizes here are far below 2^31 per
// dimension (a column count that large could not hold a Gram matrix).
int blas_int(Eigen::Index value) { return static_cast<int>(value); }
#endif

// Gathers the columns into one block so that one matrix product computes
// them all: the product runs at arithmetic speed, column by column it would
// read X once per column.
Eigen::MatrixXd gather_columns(const Eigen::Ref<const Eigen::MatrixXd>& x,
                               const std::vector<std::int64_t>& columns) {
  Eigen::MatrixXd block(x.rows(), static_cast<Eigen::Index>(columns.size()));
  for (std::size_t t = 0; t < columns.size(); ++t) {
    block.col(static_cast<Eigen::Index>(t)) = x.col(columns[t]);
  }
  return block;
}

// The products are cut into blocks of at most kBlock rows or columns of
// the result, decided by the sizes alone, and each block is one
// single-threaded BLAS call: OpenBLAS's own threads would cut a product by
// the thread count, and an element's last bits depend on the cut
// (docs/reliability.md, "Same selection for any thread count"). The blocks
// go to block_threads threads when the product is large enough to gain
// from them.
constexpr Eigen::Index kBlock = 256;
// Below this many multiply-adds a product runs on the calling thread: a
// thread's start costs more than it would save.
constexpr double kParallelWork = 4e6;
std::atomic<int> block_threads{1};

// Calls block(first, size) for the blocks of `extent` (in order on one
// thread, or shared among block_threads); `work_per_unit`: multiply-adds
// per row or column of the result.
template <typename Block>
void for_each_block(Eigen::Index extent, Eigen::Index work_per_unit, const Block& block) {
  const Eigen::Index blocks = (extent + kBlock - 1) / kBlock;
  const int threads = block_threads.load();
  const double work = static_cast<double>(extent) * static_cast<double>(work_per_unit);
  if (threads <= 1 || blocks <= 1 || work < kParallelWork) {
    for (Eigen::Index b = 0; b < blocks; ++b)
      block(b * kBlock, std::min(kBlock, extent - b * kBlock));
    return;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (Eigen::Index b = 0; b < blocks; ++b)
    block(b * kBlock, std::min(kBlock, extent - b * kBlock));
}

// out (leading dimension ld) = alpha X_J^T V for the columns J = [j, j + width) of X.
void transposed_product(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index j,
                        Eigen::Index width, const Eigen::Ref<const Eigen::MatrixXd>& v,
                        double alpha, double* out, Eigen::Index ld) {
#ifdef TOPKFS_LINEAR_BLAS
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, blas_int(width), blas_int(v.cols()),
              blas_int(x.rows()), alpha, x.col(j).data(), blas_int(x.outerStride()), v.data(),
              blas_int(v.outerStride()), 0.0, out, blas_int(ld));
#else
  Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<> > target(out, width, v.cols(),
                                                               Eigen::OuterStride<>(ld));
  target.noalias() = alpha * (x.middleCols(j, width).transpose() * v);
#endif
}

}  // namespace

void multiply_transposed(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::VectorXd& v,
                         double alpha, Eigen::VectorXd& out) {
  out.resize(x.cols());
  for_each_block(x.cols(), x.rows(), [&](Eigen::Index j, Eigen::Index width) {
#ifdef TOPKFS_LINEAR_BLAS
    cblas_dgemv(CblasColMajor, CblasTrans, blas_int(x.rows()), blas_int(width), alpha,
                x.col(j).data(), blas_int(x.outerStride()), v.data(), 1, 0.0, out.data() + j, 1);
#else
    out.segment(j, width).noalias() = alpha * (x.middleCols(j, width).transpose() * v);
#endif
  });
}

void multiply_transposed_block(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& v,
                               double alpha, Eigen::MatrixXd& out) {
  out.resize(x.cols(), v.cols());
  for_each_block(x.cols(), x.rows() * v.cols(), [&](Eigen::Index j, Eigen::Index width) {
    transposed_product(x, j, width, v, alpha, out.data() + j, out.rows());
  });
}

void multiply_add(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& b,
                  Eigen::MatrixXd& out) {
  // Blocks of rows: each row of X B is its own sum over X's columns.
  for_each_block(x.rows(), x.cols() * b.cols(), [&](Eigen::Index i, Eigen::Index height) {
#ifdef TOPKFS_LINEAR_BLAS
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, blas_int(height), blas_int(b.cols()),
                blas_int(x.cols()), 1.0, x.data() + i, blas_int(x.outerStride()), b.data(),
                blas_int(b.rows()), 1.0, out.data() + i, blas_int(out.rows()));
#else
    out.middleRows(i, height).noalias() += x.middleRows(i, height) * b;
#endif
  });
}

void add_scaled(double alpha, const double* x, double* y, Eigen::Index n) {
#ifdef TOPKFS_LINEAR_BLAS
  cblas_daxpy(blas_int(n), alpha, x, 1, y, 1);
#else
  Eigen::Map<Eigen::VectorXd>(y, n) += alpha * Eigen::Map<const Eigen::VectorXd>(x, n);
#endif
}

void gram_columns(const Eigen::Ref<const Eigen::MatrixXd>& x,
                  const std::vector<std::int64_t>& columns, double alpha, Eigen::MatrixXd& gram) {
  if (columns.empty()) return;
  if (columns.size() == 1) {
    Eigen::VectorXd column;
    multiply_transposed(x, x.col(columns[0]), alpha, column);
    gram.col(columns[0]) = column;
    return;
  }
  const Eigen::MatrixXd block = gather_columns(x, columns);
  Eigen::MatrixXd product;
  multiply_transposed_block(x, block, alpha, product);
  for (std::size_t t = 0; t < columns.size(); ++t) {
    gram.col(columns[t]) = product.col(static_cast<Eigen::Index>(t));
  }
}

void gram_full(const Eigen::Ref<const Eigen::MatrixXd>& x, double alpha, Eigen::MatrixXd& gram) {
  gram.resize(x.cols(), x.cols());
  // Column block J of the lower triangle: its diagonal block by one
  // symmetric rank update (half the products of a full one), the rows below
  // it by one product.
  for_each_block(x.cols(), x.rows() * x.cols() / 2, [&](Eigen::Index j, Eigen::Index width) {
#ifdef TOPKFS_LINEAR_BLAS
    cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, blas_int(width), blas_int(x.rows()), alpha,
                x.col(j).data(), blas_int(x.outerStride()), 0.0, gram.col(j).data() + j,
                blas_int(gram.rows()));
#else
    Eigen::MatrixXd diagonal = Eigen::MatrixXd::Zero(width, width);
    diagonal.selfadjointView<Eigen::Lower>().rankUpdate(x.middleCols(j, width).transpose(), alpha);
    gram.block(j, j, width, width).triangularView<Eigen::Lower>() = diagonal;
#endif
    const Eigen::Index below = x.cols() - j - width;
    if (below > 0) {
      transposed_product(x.rightCols(below), 0, below, x.middleCols(j, width), alpha,
                         gram.col(j).data() + j + width, gram.rows());
    }
  });
  for (Eigen::Index j = 1; j < gram.cols(); ++j) {
    for (Eigen::Index i = 0; i < j; ++i) gram(i, j) = gram(j, i);
  }
}

int set_dense_threads(int threads) {
  // The default takes the cores other work leaves free: threads wait for
  // each other at every product, and a fit of a hundred classes (thousands
  // of small products) took five times as long beside one busy process with
  // two threads as with one (docs/linear.md, "Threads"). OpenBLAS itself
  // keeps one thread: the blocks above are the threads' work.
  if (threads <= 0) threads = free_cores();
  set_openblas_threads(1);
  block_threads.store(threads);
  return threads;
}

bool using_system_blas() {
#ifdef TOPKFS_LINEAR_BLAS
  return true;
#else
  return false;
#endif
}

}  // namespace topkfs::linear_detail
