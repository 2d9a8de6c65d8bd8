// Sample weights in the linear models: a weighted fit is scikit-learn's with
// sample_weight (tests/linear/make_weighted_golden.py documents the mapping),
// and a weight of 0 removes a row and 2 duplicates it, exactly, in every
// family.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "../linear/linear_test_support.hpp"
#include "topkfs/data/sample_weights.hpp"
#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs {
namespace {

std::vector<double> weights_of(const nlohmann::json& values) {
  return values.get<std::vector<double>>();
}

TEST(LinearWeights, MatchScikitLearnSampleWeight) {
  const auto golden = test::load_golden("weighted_golden.json", "make_weighted_golden.py");
  ASSERT_EQ(golden["problems"].size(), 5u);
  for (const auto& case_ : golden["problems"]) {
    SCOPED_TRACE(case_["name"].get<std::string>());
    const Eigen::MatrixXd x = test::matrix_of(case_["x"]);
    const std::vector<double> weights = weights_of(case_["weights"]);
    LinearPenalty penalty;
    penalty.lambda1 = case_["lambda1"].get<double>();
    penalty.lambda2 = case_["lambda2"].get<double>();
    const Eigen::VectorXd expected = test::vector_of(case_["coef_std"]);
    if (case_["family"] == "gaussian") {
      const Eigen::VectorXd y = test::vector_of(case_["y"]);
      const Dataset data = test::regression_dataset(x, y);
      LinearProblem problem(data.features, test::all_rows(data.rows()), y, 1, ScalingKind::Standard,
                            weights);
      SolverControl control = test::exactness_control();
      control.tol = 1e-20;  // the KKT check below asks 1e-8 of the gaussian fits
      const LinearFit fit = fit_linear(problem, penalty, control);
      EXPECT_TRUE(fit.converged);
      EXPECT_LT((fit.coef_std - expected).cwiseAbs().maxCoeff(), 1e-6)
          << "ours:    " << fit.coef_std.transpose() << "\nsklearn: " << expected.transpose();
      const Eigen::VectorXd coef = test::vector_of(case_["coef"]);
      for (Eigen::Index j = 0; j < coef.size(); ++j)
        EXPECT_NEAR(fit.coef[j], coef[j], 1e-6 * std::max(1.0, std::abs(coef[j])));
      EXPECT_NEAR(fit.intercept, case_["intercept"].get<double>(), 1e-6);
      EXPECT_LT(test::kkt_violation(problem, penalty, fit.coef_std), 1e-8);
    } else {
      ClassTarget target;
      target.labels = case_["labels"].get<std::vector<std::int32_t>>();
      const Dataset data = test::class_dataset(x, target.labels, 2);
      const LinearProblem problem(data.features, test::all_rows(data.rows()),
                                  Eigen::VectorXd::Zero(data.rows()), 1, ScalingKind::Standard,
                                  weights, RowWeighting::Apart);
      target.weights = problem.row_weights();
      const GlmFit fit =
          fit_glm(problem, target, LinearFamily::Binomial, penalty, test::exactness_control());
      EXPECT_TRUE(fit.converged);
      EXPECT_LT((fit.coef_std.col(0) - expected).cwiseAbs().maxCoeff(), 1e-6)
          << "ours:    " << fit.coef_std.col(0).transpose()
          << "\nsklearn: " << expected.transpose();
      EXPECT_NEAR(fit.intercept_std[0], case_["intercept_std"].get<double>(), 1e-6);
    }
  }
}

// Rows of a generated problem with weights 0, 1 and 2, and the same rows
// without the zeros and with the twos written twice.
struct Replicated {
  Dataset weighted;
  Dataset expanded;
};

Replicated replicated(TargetKind kind, int classes, std::uint32_t seed) {
  const Eigen::Index n = 90;
  const Eigen::Index m = 12;
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(n, m);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < m; ++j) x(i, j) = std::round(normal(rng) * 256) / 256;
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double eta = x(i, 0) - 0.8 * x(i, 1) + 0.5 * x(i, 2) + 0.5 * normal(rng);
    y[i] = eta;
    labels[static_cast<std::size_t>(i)] =
        classes == 2 ? (eta > 0) : static_cast<std::int32_t>(std::clamp(eta + 1.5, 0.0, 2.99));
  }
  std::vector<double> weights(static_cast<std::size_t>(n));
  std::vector<std::int64_t> copies;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int w = static_cast<int>(i % 5 == 0 ? 0 : (i % 3 == 0 ? 2 : 1));
    weights[static_cast<std::size_t>(i)] = w;
    for (int c = 0; c < w; ++c) copies.push_back(i);
  }
  Dataset base = kind == TargetKind::Real ? test::regression_dataset(x, y)
                                          : test::class_dataset(x, labels, classes);
  Replicated out;
  out.expanded = take_rows(base, copies);
  out.weighted = std::move(base);
  out.weighted.sample_weight = weights;
  return out;
}

SelectionResult fit_method(const std::string& method, const Dataset& data, int k) {
  auto selector = make_linear_selector(method);
  selector->set_option("tol", "1e-14");
  selector->set_option("max-iter", "100000");
  return selector->fit(data, test::all_rows(data.rows()), k, {});
}

TEST(LinearWeights, ZeroRemovesARowAndTwoDuplicatesIt) {
  struct Case {
    TargetKind kind;
    int classes;
    const char* method;
  };
  for (const Case& c : {Case{TargetKind::Real, 0, "lasso-top"}, Case{TargetKind::Real, 0, "ridge"},
                        Case{TargetKind::Classes, 2, "elastic-net-top"},
                        Case{TargetKind::Classes, 3, "lasso-top"}}) {
    SCOPED_TRACE(fmt::format("{} with {} classes", c.method, c.classes));
    const Replicated data = replicated(c.kind, c.classes, 7);
    const SelectionResult weighted = fit_method(c.method, data.weighted, 4);
    const SelectionResult expanded = fit_method(c.method, data.expanded, 4);
    EXPECT_EQ(weighted.selected, expanded.selected);
    ASSERT_EQ(weighted.scores.size(), expanded.scores.size());
    for (std::size_t j = 0; j < weighted.scores.size(); ++j)
      EXPECT_NEAR(weighted.scores[j], expanded.scores[j], 1e-9) << "column " << j;
  }
}

TEST(LinearWeights, BadWeightsAreRefusedNamingTheRow) {
  const Replicated data = replicated(TargetKind::Real, 0, 3);
  const auto refused = [](std::vector<double> weights) {
    try {
      check_sample_weights(weights, "t.csv", "weight column 'w'");
    } catch (const DataError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(refused({1, -1, 2}),
            "t.csv: weight column 'w': the weight of row 2 is -1; a sample weight is a finite "
            "number >= 0");
  EXPECT_NE(refused({1, std::nan(""), 2}).find("row 2 is nan"), std::string::npos);
  EXPECT_NE(refused({0, 0}).find("every sample weight is 0"), std::string::npos);
  EXPECT_EQ(refused({0, 1}), "");
  // A training part whose rows all weigh 0 is refused by the fit.
  Dataset zero = data.weighted;
  const std::vector<std::int64_t> rows = {0, 5, 10};  // weight 0 each
  EXPECT_THROW(make_linear_selector("lasso")->fit(zero, rows, 2, {}), DataError);
}

}  // namespace
}  // namespace topkfs
