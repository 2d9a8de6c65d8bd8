// `topkfs info` and the help texts, through the real executable.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace topkfs::test {
namespace {

TEST(CliInfo, JsonDescribesARegressionCsv) {
  TOPKFS_REQUIRE_SHARED_DATA("pyrim");
  const CommandResult result = run_cli("info --json " + shared_data("pyrim/pyrim.csv"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["rows"], 74);
  EXPECT_EQ(json["columns"], 26);
  EXPECT_EQ(json["format"], "csv");
  EXPECT_EQ(json["target_kind"], "real");
  EXPECT_NEAR(json["target_ranges"][0]["min"].get<double>(), 0.1, 1e-9);
  EXPECT_NEAR(json["target_ranges"][0]["max"].get<double>(), 0.9, 1e-9);
  EXPECT_EQ(json["missing_values"], 0);
  EXPECT_TRUE(json["split"].is_null());
}

TEST(CliInfo, JsonDescribesMnistWithItsSplitAndClasses) {
  TOPKFS_REQUIRE_SHARED_DATA("mnist");
  const CommandResult result = run_cli("info --json " + shared_data("mnist"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["rows"], 70000);
  EXPECT_EQ(json["columns"], 784);
  EXPECT_EQ(json["split"]["train"], 60000);
  EXPECT_EQ(json["split"]["test"], 10000);
  EXPECT_EQ(json["image_shape"]["height"], 28);
  ASSERT_EQ(json["classes"].size(), 10u);
  EXPECT_EQ(json["classes"][1]["name"], "1");
  EXPECT_EQ(json["classes"][1]["count"], 6742 + 1135);
  EXPECT_EQ(json["feature_range"]["max"], 255.0);
}

TEST(CliInfo, TextOutputNamesShapeTargetAndSplit) {
  TOPKFS_REQUIRE_SHARED_DATA("usps");
  const CommandResult result = run_cli("info " + shared_data("usps/usps.h5"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("9298 samples x 256 features"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("10 classes"), std::string::npos);
  EXPECT_NE(result.out.find("predefined: 7291 train, 2007 test"), std::string::npos);
  EXPECT_NE(result.out.find("16x16"), std::string::npos);
}

TEST(CliInfo, MissingValuesAreReportedNotRefused) {
  const std::string path = write_temp_file("gaps.csv", "a,b,y\n1,,0\n3,4,1\n5,nan,1\n");
  const CommandResult result = run_cli("info --json " + path);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["missing_values"], 2);
  EXPECT_EQ(json["rows_with_missing"], 2);
}

TEST(CliHelp, EverySubcommandExplainsItselfWithAnExample) {
  for (const std::string command : {"info", "select", "transform"}) {
    const CommandResult result = run_cli(command + " --help");
    EXPECT_EQ(result.exit_code, 0) << command;
    EXPECT_NE(result.out.find("Example"), std::string::npos) << command << ":\n" << result.out;
    EXPECT_NE(result.out.find("--"), std::string::npos) << command;
  }
  const CommandResult top = run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("select"), std::string::npos);
}

// An option several methods share (--scaling, --lambda1) shows every
// method's default, not the first method's alone.
TEST(CliHelp, SharedMethodOptionsShowEachMethodsDefault) {
  for (const std::string command : {"select", "evaluate"}) {
    const CommandResult result = run_cli(command + " --help");
    ASSERT_EQ(result.exit_code, 0) << command;
    for (const std::string text :
         {"[dnn-top, dfs, concrete, stg, fir: auto]",
          "[elastic-net-top, lasso-top, ridge-top, elastic-net, lasso, ridge: standard]",
          "[dnn-top, dfs: 0.0001]", "[elastic-net-top, ridge-top, elastic-net, ridge: 0.03]"}) {
      EXPECT_NE(result.out.find(text), std::string::npos) << command << ": " << text;
    }
  }
}

}  // namespace
}  // namespace topkfs::test
