#pragma once
// The marginal screen of the linear models' ranking: each column tested on
// its own against the intercept-only model by Rao's score test, which needs
// no fit. The statistic is n R^2_j: for a real target R^2_j is the squared
// correlation of column j with y (1 degree of freedom); for classes it is the
// share of column j's variance between the classes (ANOVA's eta^2,
// classes - 1 degrees of freedom). Under the null hypothesis (the column
// tells nothing about the target) it is chi-square distributed; a column
// passes at level `level` when its p-value is below it. docs/linear.md,
// "The marginal screen", says why the selection uses it.
#include <Eigen/Core>
#include <vector>

#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace topkfs {

// n R^2 per column of the problem against its (centred) target; 0 for a
// constant column or a constant target.
Eigen::VectorXd marginal_score_statistics(const LinearProblem& problem);

// n eta^2 per column of the problem against the class labels.
Eigen::VectorXd marginal_score_statistics(const LinearProblem& problem, const ClassTarget& target);

// P(chi-square with `df` degrees of freedom > x), df >= 1.
double chi_square_survival(double x, int df);

// Per column: 1 when its statistic's p-value (chi-square, `df`) is below
// `level`, else 0. level 0 passes no column.
std::vector<char> passes_screen(const Eigen::VectorXd& statistics, int df, double level);

}  // namespace topkfs
