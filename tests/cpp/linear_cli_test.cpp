// `topkfs select` with the linear methods as a user runs it: the flags built
// from their option table, the result file, the reduced data, the refusals.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using nlohmann::json;

// 200 rows: y = 2 a - 3 c + noise, with b a noisy copy of a and d, e noise.
const std::string& data_csv() {
  static const std::string path = [] {
    Rng rng(7);
    std::string text = "a,b,c,d,e,y\n";
    for (int i = 0; i < 200; ++i) {
      const double a = rng.normal(), c = rng.normal();
      const double b = 0.9 * a + 0.4 * rng.normal();
      const double y = 2 * a - 3 * c + 0.3 * rng.normal();
      text += fmt::format("{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f}\n", a, b, c, rng.normal(),
                          rng.normal(), y);
    }
    return test::write_temp_file("linear_cli.csv", text);
  }();
  return path;
}

TEST(LinearCli, SelectWritesTheResultAndTheReducedData) {
  const std::string out = test::temp_dir() + "/linear_result.json";
  const std::string reduced = test::temp_dir() + "/linear_reduced.csv";
  const auto run = test::run_cli(fmt::format(
      "select '{}' --method elastic-net-top --k 2 --lambda1 0.05 --lambda3 2 --tol 1e-9 "
      "--max-iter 500 --threads 1 -q --output '{}' --output-data '{}'",
      data_csv(), out, reduced));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("selected    c, a"), std::string::npos) << run.out;
  const json result = json::parse(test::read_text(out));
  EXPECT_EQ(result["method"], "elastic-net-top");
  EXPECT_EQ(result["k"], 2);
  EXPECT_EQ(result["selected_names"], json({"c", "a"}));
  EXPECT_EQ(result["ranking"].size(), 5u);
  EXPECT_EQ(result["options"]["lambda1"], 0.05);
  EXPECT_EQ(result["options"]["lambda3"], 2.0);
  EXPECT_EQ(result["options"]["max-iter"], 500);
  EXPECT_EQ(result["options"]["solver_used"], "covariance");
  EXPECT_TRUE(result["options"]["converged"].get<bool>());
  // The model on the original columns: close to y = 2 a - 3 c.
  const auto& coefficients = result["options"]["model"]["coefficients"];
  EXPECT_NEAR(coefficients[0].get<double>(), 2.0, 0.3);
  EXPECT_NEAR(coefficients[2].get<double>(), -3.0, 0.3);
  EXPECT_TRUE(result["warnings"].empty());
  const std::string data = test::read_text(reduced);
  EXPECT_EQ(data.substr(0, data.find('\n')), "c,a,y");
}

// The linear methods walk a path, not epochs: the progress (stderr is not
// a terminal here) counts its points, the first and the last on lines of
// their own, where it said "epoch 1/1".
TEST(LinearCli, ProgressCountsThePathsPoints) {
  const auto run = test::run_cli(
      fmt::format("select '{}' --method lasso-top --k 2 --path-points 30 --threads 1", data_csv()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("path point 1/30  objective "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\npath point 30/30  objective "), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("epoch"), std::string::npos) << run.err;
}

TEST(LinearCli, EveryLinearMethodRunsWithItsDefaults) {
  for (const char* method :
       {"lasso", "lasso-top", "ridge", "ridge-top", "elastic-net", "elastic-net-top"}) {
    const auto run =
        test::run_cli(fmt::format("select '{}' --method {} --k 3 --json -q", data_csv(), method));
    ASSERT_EQ(run.exit_code, 0) << method << ": " << run.err;
    const json result = json::parse(run.out);
    EXPECT_EQ(result["selected"].size(), 3u) << method;
    EXPECT_EQ(result["method"], method);
  }
  const auto listed = test::run_cli("methods");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const char* method : {"lasso-top", "ridge-top", "elastic-net-top"}) {
    EXPECT_NE(listed.out.find(method), std::string::npos) << method;
  }
}

TEST(LinearCli, RefusesOptionsThatDoNotApplyOrAreOutOfRange) {
  auto run =
      test::run_cli(fmt::format("select '{}' --method lasso --k 2 --lambda3 1 -q", data_csv()));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--lambda3 does not apply to method lasso"), std::string::npos) << run.err;
  run =
      test::run_cli(fmt::format("select '{}' --method elastic-net --k 2 --tol -1 -q", data_csv()));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--tol"), std::string::npos) << run.err;
  run = test::run_cli(fmt::format("select '{}' --method ridge-top --k 9 -q", data_csv()));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--k 9"), std::string::npos) << run.err;
}

TEST(LinearCli, ThreeClassesAreMultinomialAndRefusedAsARegression) {
  std::string text = "x1,x2,label\n";
  for (int i = 0; i < 30; ++i) text += fmt::format("{},{},{}\n", i, (i * 7) % 11, "abc"[i % 3]);
  const std::string path = test::write_temp_file("linear_three_classes.csv", text);
  auto run = test::run_cli(fmt::format("select '{}' --method elastic-net-top --k 1 -q", path));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  run = test::run_cli(
      fmt::format("select '{}' --method elastic-net --family gaussian --k 1 -q", path));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("3 classes"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("dnn-top"), std::string::npos) << run.err;
}

TEST(LinearCli, FamilyAndScalingAreOptionsAndBadChoicesAreRefused) {
  auto run = test::run_cli(
      fmt::format("select '{}' --method elastic-net-top --k 2 --scaling none -q", data_csv()));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  run = test::run_cli(
      fmt::format("select '{}' --method lasso --k 2 --family multinomial -q", data_csv()));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("needs a class target"), std::string::npos) << run.err;
  run = test::run_cli(
      fmt::format("select '{}' --method lasso --k 2 --family poisson -q", data_csv()));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--family takes"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace topkfs
