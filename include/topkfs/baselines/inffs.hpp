#pragma once
// inffs: Infinite Feature Selection (G. Roffo, S. Melzi, M. Cristani,
// "Infinite Feature Selection", ICCV 2015), supervised as in the authors'
// released code, extended to several classes and to real targets
// (docs/algorithms.md states every formula).
//
// Features are the nodes of a complete graph with weights
//   a_ij = alpha sigma_ij + (1 - alpha) c_ij,
// sigma_ij the min-max normalised max(sd_i, sd_j), c_ij a pairwise term (the
// normalised product of per-feature relevances f_i f_j when supervised,
// 1 - |Spearman(x_i, x_j)| when not). A path of length l through feature i
// is worth the product of its edges; the score of i sums every path from i of
// every length, damped by r^l with r = factor / rho(A):
//   s = sum_{l >= 1} (r A)^l 1 = ((I - r A)^{-1} - I) 1,
// found by one linear solve (I - r A) z = 1, s = z - 1.
#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

// Conjugate gradients need O(m^2) per iteration and converge in a few dozen
// iterations (I - r A has its eigenvalues in [1 - factor, 1 + factor]);
// Cholesky costs m^3 / 3 and is the exact reference.
enum class InfFsSolver { ConjugateGradient, Cholesky };

InfFsSolver parse_inffs_solver(const std::string& name);  // cg | cholesky
const char* to_string(InfFsSolver solver);
EnumNameList<InfFsSolver> names_of(InfFsSolver);  // the option table's names

struct InfFsOptions {
  double alpha = 0.5;      // weight of the spread term sigma_ij; 1 - alpha on c_ij
  double factor = 0.9;     // r = factor / rho(A), in (0, 1)
  bool supervised = true;  // false: the ICCV paper's unsupervised graph (Spearman)
  InfFsSolver solver = InfFsSolver::ConjugateGradient;
  double tol = 1e-12;  // relative residual of the solve and of the eigenvalue

  // Throws OptionError naming the offending option.
  void validate() const;
};

const OptionTable<InfFsOptions>& inffs_option_table();

std::unique_ptr<Selector> make_inffs_selector();

// The pieces of the method, for tests and for programs that use them alone.

// Per-feature relevance f_i over rows `rows`: the Fisher criterion for class
// labels (two classes: (mu1 - mu2)^2 / (s1^2 + s2^2); several: the sum over
// class pairs of (mu_c - mu_d)^2 over the sum of the within-class
// variances), rho^2 / (1 - rho^2) with rho Spearman's correlation with the
// target for real targets (averaged over outputs). Throws DataError without
// a target.
Eigen::VectorXd inffs_relevance(const Dataset& data, const std::vector<std::int64_t>& rows);

// The adjacency matrix A (m x m, symmetric, entries in [0, 1]).
Eigen::MatrixXd inffs_graph(const Dataset& data, const std::vector<std::int64_t>& rows,
                            const InfFsOptions& options);

struct InfFsPathSums {
  Eigen::VectorXd scores;        // ((I - r A)^{-1} - I) 1
  double spectral_radius = 0.0;  // rho(A)
  double r = 0.0;                // factor / rho(A)
  int eigen_iterations = 0;      // power iterations for rho(A)
  bool eigen_converged = true;
  int solver_iterations = 0;     // conjugate-gradient iterations (Cholesky: 0)
  double solver_residual = 0.0;  // ||(I - r A) z - 1|| / ||1||
};

// The scores of graph `a` (symmetric, non-negative). A graph without an edge
// (rho = 0) scores 0 everywhere.
InfFsPathSums inffs_path_sums(const Eigen::MatrixXd& a, double factor, InfFsSolver solver,
                              double tol = 1e-12);

}  // namespace topkfs
