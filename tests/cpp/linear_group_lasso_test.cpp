// The group lasso of the linear models (columns in groups, glm_model.hpp):
// its optimality conditions computed from scratch, for the gaussian, binomial
// and multinomial families, with and without the top-k term; groups of one
// column give the least-squares solver's fit; and a selection on one-hot
// encoded categorical columns finds the planted ones and keeps each group
// whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "../linear/linear_test_support.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/linear/linear_selector.hpp"
#include "topkfs/select/group_selection.hpp"

namespace topkfs {
namespace {

// Group sizes 3, 1, 2, 4, 1, 2, 3, 1, ...: groups of every kind, with the
// first two groups (4 columns) carrying the target.
std::vector<std::int64_t> mixed_groups(int columns) {
  const int sizes[] = {3, 1, 2, 4};
  std::vector<std::int64_t> groups;
  for (std::int64_t g = 0; static_cast<int>(groups.size()) < columns; ++g) {
    for (int s = 0; s < sizes[g % 4] && static_cast<int>(groups.size()) < columns; ++s) {
      groups.push_back(g);
    }
  }
  return groups;
}

std::int64_t group_count(const std::vector<std::int64_t>& groups) {
  return *std::max_element(groups.begin(), groups.end()) + 1;
}

// Rows x columns of standard normals (multiples of 1/256), with the columns of
// a group correlated (a shared part), and a target from the first 4 columns:
// real values, or labels drawn from the logistic or softmax probabilities.
struct GroupData {
  Eigen::MatrixXd x;
  ClassTarget target;
  Dataset data;
};

GroupData make_group_data(int rows, int columns, LinearFamily family, int classes,
                          std::uint64_t seed) {
  Rng rng(seed);
  const auto groups = mixed_groups(columns);
  GroupData out;
  out.x.resize(rows, columns);
  for (int i = 0; i < rows; ++i) {
    std::vector<double> shared(static_cast<std::size_t>(group_count(groups)));
    for (auto& s : shared) s = rng.normal();
    for (int j = 0; j < columns; ++j) {
      const double value =
          0.6 * shared[static_cast<std::size_t>(groups[static_cast<std::size_t>(j)])] +
          0.8 * rng.normal();
      out.x(i, j) = std::round(value * 256) / 256;
    }
  }
  const int outputs = family == LinearFamily::Multinomial ? classes : 1;
  Eigen::MatrixXd beta = Eigen::MatrixXd::Zero(columns, outputs);
  for (int j = 0; j < 4; ++j) {
    for (int c = 0; c < outputs; ++c)
      beta(j, c) = (rng.uniform() < 0.5 ? -1 : 1) * rng.uniform(1, 2);
  }
  const Eigen::MatrixXd eta = out.x * beta;
  if (family == LinearFamily::Gaussian) {
    Eigen::VectorXd y(rows);
    for (int i = 0; i < rows; ++i) y[i] = eta(i, 0) + rng.normal();
    out.data = test::regression_dataset(out.x, y);
  } else {
    out.target.classes = family == LinearFamily::Binomial ? 2 : classes;
    out.target.labels = test::draw_labels(eta, out.target.classes, rng);
    out.data = test::class_dataset(out.x, out.target.labels, out.target.classes);
  }
  out.data.column_group = groups;
  return out;
}

struct Problem {
  GroupData raw;
  LinearProblem problem;
  explicit Problem(GroupData d, LinearFamily family)
      : raw(std::move(d)),
        problem(raw.data.features, test::all_rows(raw.data.rows()),
                family == LinearFamily::Gaussian ? Eigen::VectorXd(raw.data.targets.col(0))
                                                 : Eigen::VectorXd::Zero(raw.data.rows()),
                1) {
    if (family == LinearFamily::Gaussian) raw.target.values = problem.y();
  }
  // A penalty on the data's column groups.
  LinearPenalty grouped_penalty(double lambda1) const {
    LinearPenalty penalty;
    penalty.lambda1 = lambda1;
    penalty.groups = raw.data.column_group;
    return penalty;
  }
};

// The loss's negative gradient along the linear predictor (y - eta, or the
// labels' indicators less the probabilities).
Eigen::MatrixXd residual_of(const Eigen::MatrixXd& eta, const ClassTarget& target,
                            LinearFamily family) {
  if (family == LinearFamily::Gaussian) return target.values - eta;
  return test::class_residual(eta, target);
}

// The largest violation of the group lasso's optimality conditions with the
// top-k set S (the k groups of largest norm) held fixed, w_g = sqrt(p_g):
//   intercepts (class families):  sum_i (residual + lambda3 residual_S)_ic = 0
//   B_g != 0:  G_g - lambda1 B_g = lambda2 w_g B_g / ||B_g||
//   B_g == 0:  ||G_g|| <= lambda2 w_g
// with G_g = X_g' residual / n (+ lambda3 X_g' residual_S / n for g in S and
// for every zero group while S has fewer than k non-zero members).
double group_kkt_violation(const LinearProblem& problem, const ClassTarget& target,
                           LinearFamily family, const LinearPenalty& penalty,
                           const Eigen::MatrixXd& coef, const Eigen::VectorXd& intercept) {
  const double inv_n = 1.0 / static_cast<double>(problem.rows());
  const Eigen::MatrixXd offset = intercept.transpose().replicate(problem.rows(), 1);
  const Eigen::MatrixXd residual = residual_of(offset + problem.x() * coef, target, family);
  const Eigen::MatrixXd g = problem.x().transpose() * residual * inv_n;
  Eigen::MatrixXd g_top = Eigen::MatrixXd::Zero(g.rows(), g.cols());
  Eigen::RowVectorXd intercept_gradient = residual.colwise().sum() * inv_n;
  const std::int64_t groups = group_count(penalty.groups);
  Eigen::VectorXd norms = Eigen::VectorXd::Zero(groups);
  Eigen::VectorXd sizes = Eigen::VectorXd::Zero(groups);
  for (Eigen::Index j = 0; j < coef.rows(); ++j) {
    const auto group = penalty.groups[static_cast<std::size_t>(j)];
    norms[group] += coef.row(j).squaredNorm();
    sizes[group] += 1;
  }
  norms = norms.cwiseSqrt();
  std::vector<char> in_top(static_cast<std::size_t>(groups), 0);
  bool open_slots = false;
  if (penalty.lambda3 > 0) {
    int members = 0;
    for (auto group : top_k_columns(norms, penalty.k)) {
      if (norms[group] == 0.0) continue;
      in_top[static_cast<std::size_t>(group)] = 1;
      ++members;
    }
    open_slots = members < penalty.k;
    Eigen::MatrixXd masked = Eigen::MatrixXd::Zero(coef.rows(), coef.cols());
    for (Eigen::Index j = 0; j < coef.rows(); ++j) {
      if (in_top[static_cast<std::size_t>(penalty.groups[static_cast<std::size_t>(j)])]) {
        masked.row(j) = coef.row(j);
      }
    }
    const Eigen::MatrixXd sub = residual_of(offset + problem.x() * masked, target, family);
    g_top = problem.x().transpose() * sub * inv_n;
    intercept_gradient += penalty.lambda3 * sub.colwise().sum() * inv_n;
  }
  double worst = family == LinearFamily::Gaussian ? 0.0 : intercept_gradient.cwiseAbs().maxCoeff();
  for (std::int64_t group = 0; group < groups; ++group) {
    const bool top = in_top[static_cast<std::size_t>(group)] || (open_slots && norms[group] == 0.0);
    const double lambda2 = penalty.lambda2 * std::sqrt(sizes[group]);
    double squares = 0.0;
    for (Eigen::Index j = 0; j < coef.rows(); ++j) {
      if (penalty.groups[static_cast<std::size_t>(j)] != group) continue;
      const Eigen::RowVectorXd grad = g.row(j) + (top ? penalty.lambda3 : 0.0) * g_top.row(j);
      squares += norms[group] > 0
                     ? (grad - penalty.lambda1 * coef.row(j) - lambda2 / norms[group] * coef.row(j))
                           .squaredNorm()
                     : grad.squaredNorm();
    }
    worst = std::max(
        worst, norms[group] > 0 ? std::sqrt(squares) : std::max(0.0, std::sqrt(squares) - lambda2));
  }
  return worst;
}

SolverControl tight() {
  SolverControl control;
  control.tol = 1e-14;
  control.max_sweeps = 1000000;
  return control;
}

struct FamilyCase {
  LinearFamily family;
  int classes;
};

class GroupLasso : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(GroupLasso, FitsMeetTheOptimalityConditionsAndKeepGroupsWhole) {
  const auto [family, classes] = GetParam();
  Problem p(make_group_data(240, 22, family, classes, 11), family);
  for (const double lambda3 : {0.0, 2.0}) {
    for (const double fraction : {0.4, 0.08}) {
      LinearPenalty penalty = p.grouped_penalty(0.02);
      penalty.lambda3 = lambda3;
      penalty.k = 3;
      penalty.lambda2 = fraction * glm_lambda2_max(p.problem, p.raw.target, family, penalty);
      SCOPED_TRACE(fmt::format("lambda3 {} lambda2 {}", lambda3, penalty.lambda2));
      const GlmFit fit = fit_glm(p.problem, p.raw.target, family, penalty, tight());
      EXPECT_TRUE(fit.converged);
      EXPECT_GT(fit.nonzero(), 0);
      // A group is in or out with all its columns.
      for (std::int64_t g = 0; g < group_count(penalty.groups); ++g) {
        std::set<bool> zero;
        for (Eigen::Index j = 0; j < fit.coef_std.rows(); ++j) {
          if (penalty.groups[static_cast<std::size_t>(j)] == g) {
            zero.insert(fit.coef_std.row(j).isZero());
          }
        }
        EXPECT_EQ(zero.size(), 1u) << "group " << g;
      }
      if (!fit.top_set_settled) continue;  // then S is not the top k of the result
      EXPECT_LT(group_kkt_violation(p.problem, p.raw.target, family, penalty, fit.coef_std,
                                    fit.intercept_std),
                1e-6);
      EXPECT_NEAR(
          fit.objective,
          glm_objective(p.problem, p.raw.target, family, penalty, fit.coef_std, fit.intercept_std),
          1e-12);
    }
  }
}

TEST_P(GroupLasso, Lambda2MaxIsTheSmallestPenaltyThatZeroesEveryGroup) {
  const auto [family, classes] = GetParam();
  Problem p(make_group_data(150, 16, family, classes, 12), family);
  LinearPenalty penalty = p.grouped_penalty(0.01);
  const double max = glm_lambda2_max(p.problem, p.raw.target, family, penalty);
  penalty.lambda2 = max * (1 + 1e-9);
  EXPECT_EQ(fit_glm(p.problem, p.raw.target, family, penalty, tight()).nonzero(), 0);
  penalty.lambda2 = max * 0.98;
  EXPECT_EQ(fit_glm(p.problem, p.raw.target, family, penalty, tight()).nonzero(), 1);
}

TEST_P(GroupLasso, WarmStartedPathMatchesColdFits) {
  const auto [family, classes] = GetParam();
  Problem p(make_group_data(120, 18, family, classes, 13), family);
  LinearPenalty penalty = p.grouped_penalty(0.02);
  const auto grid =
      lambda2_grid(glm_lambda2_max(p.problem, p.raw.target, family, penalty), 8, 0.05);
  const auto path = fit_glm_path(p.problem, p.raw.target, family, penalty, grid, tight());
  ASSERT_EQ(path.size(), grid.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    LinearPenalty point = penalty;
    point.lambda2 = grid[i];
    const GlmFit cold = fit_glm(p.problem, p.raw.target, family, point, tight());
    EXPECT_LT((path[i].coef_std - cold.coef_std).cwiseAbs().maxCoeff(), 1e-6) << "point " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Families, GroupLasso,
                         ::testing::Values(FamilyCase{LinearFamily::Gaussian, 1},
                                           FamilyCase{LinearFamily::Binomial, 2},
                                           FamilyCase{LinearFamily::Multinomial, 4}),
                         [](const auto& info) {
                           return std::string(to_string(info.param.family));
                         });

// A group of 70 columns with 4 classes (280 coefficients) is past the exact
// step's size: the majorised step reaches the same optimality conditions.
TEST(GroupLassoMultinomial, AWideGroupMeetsTheOptimalityConditions) {
  Problem p(make_group_data(200, 80, LinearFamily::Multinomial, 4, 17), LinearFamily::Multinomial);
  LinearPenalty penalty;
  penalty.lambda1 = 0.02;
  penalty.groups.assign(80, 0);
  for (std::size_t j = 70; j < 80; ++j) penalty.groups[j] = static_cast<std::int64_t>(j) - 69;
  penalty.groups[0] = 11;  // a planted column alone, beside the wide group
  for (const double fraction : {0.5, 0.05}) {
    penalty.lambda2 =
        fraction * glm_lambda2_max(p.problem, p.raw.target, LinearFamily::Multinomial, penalty);
    const GlmFit fit =
        fit_glm(p.problem, p.raw.target, LinearFamily::Multinomial, penalty, tight());
    EXPECT_TRUE(fit.converged);
    if (fraction < 0.2) {
      EXPECT_FALSE(fit.coef_std.middleRows(1, 69).isZero()) << "the wide group is in the model";
    }
    EXPECT_LT(group_kkt_violation(p.problem, p.raw.target, LinearFamily::Multinomial, penalty,
                                  fit.coef_std, fit.intercept_std),
              1e-6)
        << "lambda2 " << penalty.lambda2;
  }
}

// With a group per column the group lasso is the elastic net: the block
// solver and the least-squares solver agree, with the top-k term too.
TEST(GroupLassoGaussian, GroupsOfOneColumnGiveTheLeastSquaresFit) {
  Problem p(make_group_data(150, 14, LinearFamily::Gaussian, 1, 14), LinearFamily::Gaussian);
  std::vector<std::int64_t> singletons(14);
  std::iota(singletons.begin(), singletons.end(), 0);
  for (const double lambda3 : {0.0, 1.5}) {
    LinearPenalty penalty;
    penalty.lambda1 = 0.05;
    penalty.lambda3 = lambda3;
    penalty.k = 4;
    penalty.lambda2 = 0.1 * lambda2_max(p.problem, penalty);
    const LinearFit least_squares = fit_linear(p.problem, penalty, tight());
    penalty.groups = singletons;
    const GlmFit blocks =
        fit_glm(p.problem, p.raw.target, LinearFamily::Gaussian, penalty, tight());
    EXPECT_LT((blocks.coef_std.col(0) - least_squares.coef_std).cwiseAbs().maxCoeff(), 1e-6)
        << "lambda3 " << lambda3;
    EXPECT_NEAR(blocks.intercept[0], least_squares.intercept, 1e-6);
    EXPECT_NEAR(blocks.objective, least_squares.objective, 1e-9);
  }
}

TEST(GroupLassoGaussian, LeastSquaresFitsRefuseGroups) {
  Problem p(make_group_data(60, 8, LinearFamily::Gaussian, 1, 15), LinearFamily::Gaussian);
  LinearPenalty penalty = p.grouped_penalty(0.0);
  penalty.lambda2 = 0.1;
  EXPECT_THROW(fit_linear(p.problem, penalty, tight()), OptionError);
}

// Five categorical columns of 4 levels, one-hot encoded (a group each) beside
// ten numeric noise columns; the class is the level of columns 1 and 3
// (whichever's is larger). Every linear method with --group-fit group-lasso
// keeps or drops a group's columns together and, at k = 2, picks the two
// planted columns.
TEST(GroupLassoSelection, EveryLinearMethodFindsThePlantedCategoricalColumns) {
  Rng rng(16);
  const int rows = 300, categorical = 5, levels = 4, numeric = 10;
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(rows, categorical * levels + numeric);
  std::vector<std::int32_t> labels;
  for (int i = 0; i < rows; ++i) {
    int level[categorical];
    for (int c = 0; c < categorical; ++c) {
      level[c] = static_cast<int>(rng.uniform() * levels) % levels;
      x(i, c * levels + level[c]) = 1.0;
    }
    for (int j = 0; j < numeric; ++j) x(i, categorical * levels + j) = rng.normal();
    labels.push_back(std::max(level[1], level[3]) >= 2 ? 1 : 0);
  }
  Dataset data = test::class_dataset(x, labels, 2);
  data.group_names.clear();
  for (int c = 0; c < categorical; ++c) {
    data.group_names.push_back(fmt::format("category{}", c));
    for (int l = 0; l < levels; ++l) data.column_group.push_back(c);
  }
  for (int j = 0; j < numeric; ++j) {
    data.group_names.push_back(fmt::format("noise{}", j));
    data.column_group.push_back(categorical + j);
  }
  for (const auto* method : {"lasso", "lasso-top", "elastic-net", "elastic-net-top", "ridge-top"}) {
    SCOPED_TRACE(method);
    auto selector = make_linear_selector(method);
    selector->set_option("group-fit", "group-lasso");
    const SelectionResult result = fit_groups(*selector, data, test::all_rows(rows), 2, {});
    std::vector<std::int64_t> selected = result.selected;
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, (std::vector<std::int64_t>{1, 3}));
    const auto& coefficients = result.options.at("model").at("coefficients");
    for (int c = 0; c < categorical; ++c) {
      std::set<bool> zero;
      for (int l = 0; l < levels; ++l) {
        zero.insert(coefficients.at(static_cast<std::size_t>(c * levels + l)).get<double>() == 0.0);
      }
      EXPECT_EQ(zero.size(), 1u) << "category " << c;
    }
  }
}

}  // namespace
}  // namespace topkfs
