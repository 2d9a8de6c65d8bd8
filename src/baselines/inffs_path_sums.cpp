// The sum over every path length in closed form: the spectral radius of the
// graph by power iteration, then one symmetric positive definite solve
// (I - r A) z = 1, s = z - 1.
#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cmath>

#include "topkfs/baselines/inffs.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs {
namespace {

constexpr int kMaxIterations = 10000;

struct Eigenvalue {
  double value = 0.0;
  int iterations = 0;
  bool converged = false;
};

// The largest eigenvalue of a symmetric non-negative matrix, which is its
// spectral radius (Perron-Frobenius). Power iteration from the all-ones
// vector, which overlaps the Perron vector of every block of the graph, on
// A + shift I: the shift (a quarter of the mean row sum, itself a lower bound
// of rho) keeps an eigenvalue -rho of a bipartite block from tying with rho.
// Stops when the residual ||A x - theta x|| is below tol * theta; theta is
// then within tol^2 theta / gap of rho.
Eigenvalue spectral_radius(const Eigen::MatrixXd& a, double tol) {
  const auto graph = a.selfadjointView<Eigen::Lower>();
  const Eigen::Index m = a.rows();
  Eigen::VectorXd x = Eigen::VectorXd::Constant(m, 1.0 / std::sqrt(static_cast<double>(m)));
  Eigen::VectorXd y = graph * x;
  const double shift = 0.25 * y.sum() / std::sqrt(static_cast<double>(m));
  Eigenvalue out;
  for (out.iterations = 1; out.iterations <= kMaxIterations; ++out.iterations) {
    out.value = x.dot(y);
    if (!(out.value > 0.0)) return {0.0, out.iterations, true};
    if ((y - out.value * x).norm() <= tol * out.value) {
      out.converged = true;
      return out;
    }
    x = y + shift * x;
    x.normalize();
    y = graph * x;
  }
  out.iterations = kMaxIterations;
  return out;
}

// (I - r A) v, reading only the lower triangle of A.
Eigen::VectorXd apply_system(const Eigen::MatrixXd& a, double r, const Eigen::VectorXd& v) {
  const Eigen::VectorXd av = a.selfadjointView<Eigen::Lower>() * v;
  return v - r * av;
}

double relative_residual(const Eigen::MatrixXd& a, double r, const Eigen::VectorXd& z) {
  return (Eigen::VectorXd::Ones(z.size()) - apply_system(a, r, z)).norm() /
         std::sqrt(static_cast<double>(z.size()));
}

// Conjugate gradients on (I - r A) z = 1, matrix-free (A is read, never
// copied). The eigenvalues of I - r A lie in [1 - factor, 1 + factor], so the
// error falls at least by (sqrt(k) - 1) / (sqrt(k) + 1) per iteration with
// k = (1 + factor) / (1 - factor): 0.63 for factor 0.9, about 60 iterations
// to 1e-12.
Eigen::VectorXd conjugate_gradients(const Eigen::MatrixXd& a, double r, double tol,
                                    InfFsPathSums& out) {
  const Eigen::Index m = a.rows();
  Eigen::VectorXd z = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd residual = Eigen::VectorXd::Ones(m);
  Eigen::VectorXd direction = residual;
  double rr = residual.squaredNorm();
  const double stop = tol * tol * static_cast<double>(m);  // ||1||^2 = m
  for (out.solver_iterations = 0; out.solver_iterations < kMaxIterations && rr > stop;
       ++out.solver_iterations) {
    const Eigen::VectorXd q = apply_system(a, r, direction);
    const double step = rr / direction.dot(q);
    z += step * direction;
    residual -= step * q;
    const double rr_next = residual.squaredNorm();
    direction = residual + (rr_next / rr) * direction;
    rr = rr_next;
  }
  return z;
}

// In place in one m x m matrix beside A (Eigen's LLT would keep a copy).
Eigen::VectorXd cholesky(const Eigen::MatrixXd& a, double r) {
  Eigen::MatrixXd system = -r * a;
  system.diagonal().array() += 1.0;
  const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> factor(system);
  if (factor.info() != Eigen::Success) {
    throw TrainingError(
        fmt::format("inffs: I - r A is not positive definite (the spectral radius was "
                    "underestimated); use {} or a lower {}",
                    option_ref("solver", "cg"), option_ref("tol")));
  }
  return factor.solve(Eigen::VectorXd::Ones(a.rows()));
}

}  // namespace

InfFsPathSums inffs_path_sums(const Eigen::MatrixXd& a, double factor, InfFsSolver solver,
                              double tol) {
  TOPKFS_ASSERT(a.rows() == a.cols() && a.rows() > 0);
  TOPKFS_ASSERT(factor > 0.0 && factor < 1.0 && tol > 0.0);
  InfFsPathSums out;
  const Eigenvalue rho = spectral_radius(a, std::sqrt(tol));
  out.spectral_radius = rho.value;
  out.eigen_iterations = rho.iterations;
  out.eigen_converged = rho.converged;
  if (rho.value == 0.0) {
    out.scores = Eigen::VectorXd::Zero(a.rows());
    return out;
  }
  out.r = factor / rho.value;
  const Eigen::VectorXd z = solver == InfFsSolver::Cholesky
                                ? cholesky(a, out.r)
                                : conjugate_gradients(a, out.r, tol, out);
  out.solver_residual = relative_residual(a, out.r, z);
  out.scores = z.array() - 1.0;
  return out;
}

}  // namespace topkfs
