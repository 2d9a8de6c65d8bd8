// With lambda3 = 0 the class families are scikit-learn's elastic-net
// LogisticRegression (binomial) and R glmnet's grouped multinomial on
// standardised columns: coefficients and intercepts must agree to 1e-5 with
// the values tests/linear/make_class_golden.py stored (it documents the
// mapping of the penalties), and every fit must satisfy its optimality
// conditions, computed from scratch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../linear/linear_test_support.hpp"
#include "topkfs/linear/glm_model.hpp"

namespace topkfs {
namespace {

TEST(LinearClassExactness, MatchesScikitLearnLogisticAndGlmnetMultinomial) {
  const auto golden = test::load_golden("class_golden.json", "make_class_golden.py");
  ASSERT_EQ(golden["problems"].size(), 6u);
  int fits = 0;
  for (const auto& case_ : golden["problems"]) {
    SCOPED_TRACE(case_["name"].get<std::string>());
    const Eigen::MatrixXd x = test::matrix_of(case_["x"]);
    ASSERT_EQ((x.cast<float>().cast<double>() - x).cwiseAbs().maxCoeff(), 0.0);
    ClassTarget target;
    target.classes = case_["classes"].get<int>();
    target.labels = case_["labels"].get<std::vector<std::int32_t>>();
    const Dataset data = test::class_dataset(x, target.labels, target.classes);
    const LinearProblem problem(data.features, test::all_rows(data.rows()),
                                Eigen::VectorXd::Zero(data.rows()));
    const LinearFamily family = parse_linear_family(case_["family"].get<std::string>());
    for (const auto& expected : case_["fits"]) {
      LinearPenalty penalty;
      penalty.lambda1 = expected["lambda1"].get<double>();
      penalty.lambda2 = expected["lambda2"].get<double>();
      SCOPED_TRACE(fmt::format("lambda1 {} lambda2 {}", penalty.lambda1, penalty.lambda2));
      const GlmFit fit = fit_glm(problem, target, family, penalty, test::exactness_control());
      EXPECT_TRUE(fit.converged);
      const Eigen::MatrixXd coef = test::matrix_of(expected["coef"]);
      ASSERT_EQ(coef.rows(), fit.coef_std.rows());
      ASSERT_EQ(coef.cols(), fit.coef_std.cols());
      EXPECT_LT((fit.coef_std - coef).cwiseAbs().maxCoeff(), 1e-5);
      EXPECT_LT((fit.intercept_std - test::vector_of(expected["intercept"])).cwiseAbs().maxCoeff(),
                1e-5);
      EXPECT_LT(
          test::class_kkt_violation(problem, target, penalty, fit.coef_std, fit.intercept_std),
          1e-7);
      EXPECT_NEAR(fit.objective,
                  glm_objective(problem, target, family, penalty, fit.coef_std, fit.intercept_std),
                  1e-12);
      // Same support as the reference: a row it keeps is not zero here.
      for (Eigen::Index j = 0; j < coef.rows(); ++j) {
        if (coef.row(j).norm() > 1e-5) EXPECT_GT(fit.coef_std.row(j).norm(), 0.0) << "row " << j;
      }
      ++fits;
    }
  }
  EXPECT_EQ(fits, 8);
}

}  // namespace
}  // namespace topkfs
