// random-forest (baselines/random_forest_selector.hpp): recovery of a planted
// support for classes and real targets, exactly k, determinism, option
// errors that name the option, the top of the ranking against
// scikit-learn's RandomForestClassifier, and one run through the CLI.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "baselines_test_support.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/baselines/random_forest_selector.hpp"

namespace topkfs {
namespace {

using Target = SyntheticOptions::Target;

SelectionResult select(const Dataset& data, int k,
                       const std::vector<std::pair<std::string, std::string>>& options = {}) {
  auto selector = make_random_forest_selector();
  for (const auto& [name, value] : options) selector->set_option(name, value);
  return test::fit_all_rows(*selector, data, k);
}

TEST(RandomForestSelector, RecoversThePlantedSupportOfClasses) {
  for (const int classes : {2, 4}) {
    const SyntheticData made = test::planted(Target::Classes, classes);
    const SelectionResult result = select(made.data, 6);
    // Chance: 6 x 6 / 60 = 0.6 of the 6.
    EXPECT_GE(test::recovered(result.selected, made.informative), 5)
        << classes << " classes: " << fmt::format("{}", fmt::join(result.selected, ","));
  }
}

TEST(RandomForestSelector, RecoversThePlantedSupportOfARealTarget) {
  const SyntheticData made = test::planted(Target::Real);
  for (const char* kind : {"random-forest", "extra-trees"}) {
    const SelectionResult result = select(made.data, 6, {{"kind", kind}, {"n-estimators", "50"}});
    EXPECT_EQ(test::recovered(result.selected, made.informative), 6) << kind;
  }
}

TEST(RandomForestSelector, ReturnsExactlyKAndImportancesSummingToOne) {
  const SyntheticData made = test::planted(Target::Classes, 3, 200, 30);
  for (const int k : {1, 7, 30}) {
    const SelectionResult result = select(made.data, k, {{"n-estimators", "20"}});
    test::expect_well_formed(result, 30, k);
    EXPECT_NEAR(std::accumulate(result.scores.begin(), result.scores.end(), 0.0), 1.0, 1e-9);
    EXPECT_EQ(result.method, "random-forest");
    EXPECT_EQ(result.options.at("n-estimators"), 20);
    EXPECT_EQ(result.options.at("bootstrap"), true);
    EXPECT_EQ(result.options.at("max_features_used"), 5);  // floor(sqrt(30))
  }
}

TEST(RandomForestSelector, SameSeedSameScoresWhateverTheThreads) {
  const SyntheticData made = test::planted(Target::Real, 2, 200, 20);
  const auto one = select(made.data, 5, {{"seed", "3"}, {"threads", "1"}, {"n-estimators", "20"}});
  const auto two = select(made.data, 5, {{"seed", "3"}, {"threads", "2"}, {"n-estimators", "20"}});
  const auto other =
      select(made.data, 5, {{"seed", "4"}, {"threads", "1"}, {"n-estimators", "20"}});
  EXPECT_EQ(one.scores, two.scores);
  EXPECT_EQ(one.ranking, two.ranking);
  EXPECT_NE(one.scores, other.scores);
}

TEST(RandomForestSelector, BadOptionsNameTheOption) {
  auto message = [](const std::string& option, const std::string& value) {
    auto selector = make_random_forest_selector();
    // A choice is refused when set, a number out of range when checked.
    return test::error_of<OptionError>([&] {
      selector->set_option(option, value);
      selector->check_options();
    });
  };
  EXPECT_TRUE(test::contains(message("n-estimators", "0"), "--n-estimators"));
  EXPECT_TRUE(test::contains(message("min-samples-leaf", "0"), "--min-samples-leaf"));
  EXPECT_TRUE(test::contains(message("max-depth", "-1"), "--max-depth"));
  EXPECT_TRUE(test::contains(message("threads", "-2"), "--threads"));
  EXPECT_TRUE(test::contains(message("max-features", "many"), "--max-features"));
  EXPECT_TRUE(test::contains(message("kind", "boosted"), "--kind"));
  EXPECT_TRUE(test::contains(message("criterion", "hinge"), "--criterion"));
  auto selector = make_random_forest_selector();
  EXPECT_TRUE(test::contains(
      test::error_of<OptionError>([&] { selector->set_option("alpha", "1"); }), "unknown option"));
  // A criterion for classes on a real target is refused at fit time.
  const SyntheticData made = test::planted(Target::Real, 2, 50, 5, 2);
  selector->set_option("criterion", "gini");
  EXPECT_TRUE(test::contains(
      test::error_of<OptionError>([&] { test::fit_all_rows(*selector, made.data, 2); }),
      "criterion"));
  selector->set_option("criterion", "auto");
  EXPECT_TRUE(test::contains(
      test::error_of<OptionError>([&] { test::fit_all_rows(*selector, made.data, 6); }), "--k 6"));
}

// The importances cannot equal scikit-learn's (other random numbers), but on
// a problem with a clear support their top ten should be nearly the same set.
TEST(RandomForestSelector, TopTenAgreesWithScikitLearn) {
  SyntheticOptions options;
  options.samples = 500;
  options.features = 40;
  options.informative = 10;
  options.correlated_decoys = 0;
  options.classes = 3;
  options.seed = 8;
  const SyntheticData made = make_synthetic(options);
  const std::string csv = test::write_csv(made.data, "rf_sklearn.csv");
  const std::string out = test::python_fixture("rf_sklearn_top.txt", fmt::format(R"(
from sklearn.ensemble import RandomForestClassifier
data = np.genfromtxt('{}', delimiter=',', skip_header=1)
model = RandomForestClassifier(n_estimators=100, random_state=0).fit(data[:, :-1], data[:, -1])
top = np.argsort(-model.feature_importances_, kind='stable')[:10]
open(out, 'w').write(','.join(str(j) for j in top))
)",
                                                                                 csv));
  ASSERT_FALSE(HasFailure());
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  std::vector<std::int64_t> theirs;
  std::stringstream fields(line);
  for (std::string field; std::getline(fields, field, ',');) theirs.push_back(std::stoll(field));
  ASSERT_EQ(theirs.size(), 10u);
  const SelectionResult ours = select(made.data, 10);
  EXPECT_GE(test::recovered(ours.selected, theirs), 9)
      << "ours " << fmt::format("{}", fmt::join(ours.selected, ",")) << " scikit-learn " << line;
  EXPECT_GE(test::recovered(ours.selected, made.informative), 9);
}

TEST(RandomForestSelector, SelectThroughTheCli) {
  const SyntheticData made = test::planted(Target::Classes, 2, 200, 10, 3);
  const std::string csv = test::write_csv(made.data, "rf_cli.csv");
  const std::string out = test::temp_dir() + "/rf_cli.json";
  const auto run = test::run_cli(fmt::format(
      "select '{}' --method random-forest --k 3 --n-estimators 30 -q --output '{}'", csv, out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ifstream in(out);
  const nlohmann::json result = nlohmann::json::parse(in);
  EXPECT_EQ(result["method"], "random-forest");
  std::vector<std::int64_t> selected = result["selected"].get<std::vector<std::int64_t>>();
  ASSERT_EQ(selected.size(), 3u);
  EXPECT_EQ(test::recovered(selected, made.informative), 3);
  EXPECT_EQ(result["options"]["n-estimators"], 30);
}

}  // namespace
}  // namespace topkfs
