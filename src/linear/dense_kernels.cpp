#include "dense_kernels.hpp"

#include <algorithm>

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

}  // namespace

void multiply_transposed(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::VectorXd& v,
                         double alpha, Eigen::VectorXd& out) {
  out.resize(x.cols());
#ifdef TOPKFS_LINEAR_BLAS
  cblas_dgemv(CblasColMajor, CblasTrans, blas_int(x.rows()), blas_int(x.cols()), alpha, x.data(),
              blas_int(x.outerStride()), v.data(), 1, 0.0, out.data(), 1);
#else
  out.noalias() = alpha * (x.transpose() * v);
#endif
}

void multiply_transposed_block(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& v,
                               double alpha, Eigen::MatrixXd& out) {
  out.resize(x.cols(), v.cols());
#ifdef TOPKFS_LINEAR_BLAS
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, blas_int(x.cols()), blas_int(v.cols()),
              blas_int(x.rows()), alpha, x.data(), blas_int(x.outerStride()), v.data(),
              blas_int(v.rows()), 0.0, out.data(), blas_int(out.rows()));
#else
  out.noalias() = alpha * (x.transpose() * v);
#endif
}

void multiply_add(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& b,
                  Eigen::MatrixXd& out) {
#ifdef TOPKFS_LINEAR_BLAS
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, blas_int(x.rows()), blas_int(b.cols()),
              blas_int(x.cols()), 1.0, x.data(), blas_int(x.outerStride()), b.data(),
              blas_int(b.rows()), 1.0, out.data(), blas_int(out.rows()));
#else
  out.noalias() += x * b;
#endif
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
  Eigen::MatrixXd product(x.cols(), block.cols());
#ifdef TOPKFS_LINEAR_BLAS
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, blas_int(x.cols()), blas_int(block.cols()),
              blas_int(x.rows()), alpha, x.data(), blas_int(x.outerStride()), block.data(),
              blas_int(block.rows()), 0.0, product.data(), blas_int(product.rows()));
#else
  product.noalias() = alpha * (x.transpose() * block);
#endif
  for (std::size_t t = 0; t < columns.size(); ++t) {
    gram.col(columns[t]) = product.col(static_cast<Eigen::Index>(t));
  }
}

void gram_full(const Eigen::Ref<const Eigen::MatrixXd>& x, double alpha, Eigen::MatrixXd& gram) {
  gram.resize(x.cols(), x.cols());
#ifdef TOPKFS_LINEAR_BLAS
  cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, blas_int(x.cols()), blas_int(x.rows()), alpha,
              x.data(), blas_int(x.outerStride()), 0.0, gram.data(), blas_int(gram.rows()));
#else
  gram.setZero();
  gram.selfadjointView<Eigen::Lower>().rankUpdate(x.transpose(), alpha);
#endif
  for (Eigen::Index j = 1; j < gram.cols(); ++j) {
    for (Eigen::Index i = 0; i < j; ++i) gram(i, j) = gram(j, i);
  }
}

int set_dense_threads(int threads) {
  // The default takes the cores other work leaves free: OpenBLAS's threads
  // wait for each other at every product, and a fit of a hundred classes
  // (thousands of small products) took five times as long beside one busy
  // process with two threads as with one (docs/linear.md, "Threads").
  if (threads <= 0) threads = free_cores();
  set_openblas_threads(threads);
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
