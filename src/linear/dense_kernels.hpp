#pragma once
// The dense products of the linear solvers: the system BLAS when the build
// found one (Debian's libblas.so.3, OpenBLAS where installed), Eigen otherwise.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace topkfs::linear_detail {

// out = alpha X^T v.
void multiply_transposed(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::VectorXd& v,
                         double alpha, Eigen::VectorXd& out);

// out = alpha X^T V (V: one column per output of the class families).
void multiply_transposed_block(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& v,
                               double alpha, Eigen::MatrixXd& out);

// out += X B.
void multiply_add(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& b,
                  Eigen::MatrixXd& out);

// y += alpha x (length n): the covariance updates' inner loop, where the
// BLAS kernel uses the widest vector unit of the machine.
void add_scaled(double alpha, const double* x, double* y, Eigen::Index n);

// gram(:, j) = alpha X^T x_j for every j in `columns`.
void gram_columns(const Eigen::Ref<const Eigen::MatrixXd>& x,
                  const std::vector<std::int64_t>& columns, double alpha, Eigen::MatrixXd& gram);

// gram = alpha X^T X (both triangles).
void gram_full(const Eigen::Ref<const Eigen::MatrixXd>& x, double alpha, Eigen::MatrixXd& gram);

// Thread count of the BLAS (OpenBLAS only; others ignore it). Returns the
// count in force: threads <= 0 means every core that other work leaves free
// when the fit starts (free_cores).
int set_dense_threads(int threads);

// Whether the products go to a system BLAS (for reports).
bool using_system_blas();

}  // namespace topkfs::linear_detail
