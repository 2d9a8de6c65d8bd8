// dnn-top and dfs through the public Selector interface: determinism,
// recovery of a planted support, the CNN body, divergence and option errors.
// These use the library's headers only (no libtorch), as a user would.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "selection_test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {
namespace {

using namespace test;  // NOLINT: the suite's helpers

const OptionValues& kSmall = kSmallNetwork;

TEST(DnnTopDeterminismTest, SameSeedSameThreadsSameResult) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 4, 600);
  ASSERT_EQ(made.data.cols(), 50);
  for (const char* threads : {"1", "2"}) {
    SCOPED_TRACE(threads);
    const OptionValues options =
        with(kSmall, {{"epochs", "5"}, {"threads", threads}, {"seed", "7"}});
    const auto first = fit_method("dnn-top", made.data, 5, options);
    const auto second = fit_method("dnn-top", made.data, 5, options);
    expect_well_formed(first, made.data, 5);
    EXPECT_EQ(first.selected, second.selected);
    EXPECT_EQ(first.ranking, second.ranking);
    EXPECT_EQ(first.scores, second.scores);  // bit for bit
    ASSERT_EQ(first.history.size(), second.history.size());
    for (std::size_t i = 0; i < first.history.size(); ++i) {
      EXPECT_EQ(first.history[i].loss, second.history[i].loss);
      EXPECT_EQ(first.history[i].val_loss, second.history[i].val_loss);
    }
  }
}

// That two threads train bit for bit as one does is
// ThreadInvarianceTest (thread_invariance_test.cpp).

TEST(DnnTopThreadsTest, TheTeamStopsAtTheCoresAndTheRowBlocks) {
  // Members of a team spin while they wait for each other: more than the
  // cores would mostly wait, and more than the minibatch's row blocks
  // (step_blocks.hpp: 4 of 256 rows) would have nothing to do.
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 4, 600);
  const auto result =
      fit_method("dnn-top", made.data, 5,
                 with(kSmall, {{"epochs", "1"}, {"batch", "256"}, {"threads", "64"}}));
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(result.options.at("threads_used").get<int>(), std::min(4, CPU_COUNT(&set)));
}

TEST(DnnTopSmallDataTest, EpochsAreRaisedToMakeTheMinimumSteps) {
  // 100 rows in minibatches of 64: 2 steps per epoch, so 50 steps take 25 epochs.
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 5, 100);
  const OptionValues options =
      with(kSmall, {{"epochs", "2"}, {"batch", "64"}, {"validation", "0"}});
  const auto raised = fit_method("dnn-top", made.data, 5, with(options, {{"min-steps", "50"}}));
  EXPECT_EQ(raised.history.size(), 25u);
  EXPECT_TRUE(std::any_of(raised.notes.begin(), raised.notes.end(), [](const std::string& note) {
    return note.find("small data: 25 epochs instead of 2") != std::string::npos;
  }));
  const auto as_asked = fit_method("dnn-top", made.data, 5, with(options, {{"min-steps", "0"}}));
  EXPECT_EQ(as_asked.history.size(), 2u);
}

TEST(DnnTopDeterminismTest, DifferentSeedDifferentScores) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 4, 600);
  const auto first =
      fit_method("dnn-top", made.data, 5, with(kSmall, {{"epochs", "5"}, {"seed", "7"}}));
  const auto other =
      fit_method("dnn-top", made.data, 5, with(kSmall, {{"epochs", "5"}, {"seed", "8"}}));
  EXPECT_NE(first.scores, other.scores);
}

TEST(DnnTopDeterminismTest, DfsIsDnnTopWithoutTheSubModel) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 4, 600);
  const OptionValues options = with(kSmall, {{"epochs", "4"}});
  const auto dfs = fit_method("dfs", made.data, 5, options);
  // dfs is dnn-top without the top-k term, with DFS's own penalties and step
  const auto lambda0 =
      fit_method("dnn-top", made.data, 5,
                 with(options, {{"lambda3", "0"}, {"lambda2", "1e-4"}, {"w-step", "adam"}}));
  EXPECT_EQ(dfs.method, "dfs");
  EXPECT_EQ(lambda0.method, "dnn-top");
  EXPECT_EQ(dfs.scores, lambda0.scores);
  EXPECT_EQ(dfs.options.at("lambda3").get<double>(), 0.0);
}

struct RecoveryCase {
  const char* name;
  SyntheticOptions::Target target;
  int classes;
  std::uint64_t seed;
};

void PrintTo(const RecoveryCase& c, std::ostream* out) { *out << c.name; }

class DnnTopRecoveryTest : public ::testing::TestWithParam<RecoveryCase> {};

TEST_P(DnnTopRecoveryTest, FindsPlantedFeatures) {
  const RecoveryCase& c = GetParam();
  const auto made = planted_problem(c.target, c.classes, c.seed);
  const auto result = fit_method("dnn-top", made.data, 5, kSmall);
  expect_well_formed(result, made.data, 5);
  EXPECT_GE(recovered(result, made.informative), 4)
      << "planted " << ::testing::PrintToString(made.informative) << ", selected "
      << ::testing::PrintToString(result.selected);
}

INSTANTIATE_TEST_SUITE_P(
    Targets, DnnTopRecoveryTest,
    ::testing::Values(RecoveryCase{"Binary", SyntheticOptions::Target::Classes, 2, 31},
                      RecoveryCase{"Multiclass", SyntheticOptions::Target::Classes, 4, 32},
                      RecoveryCase{"Regression", SyntheticOptions::Target::Real, 0, 33}),
    [](const ::testing::TestParamInfo<RecoveryCase>& info) { return info.param.name; });

TEST(DnnTopRecoveryTest, MultiOutputRegression) {
  auto made = planted_problem(SyntheticOptions::Target::Real, 0, 34);
  // Two outputs: the synthetic score of all five features, and an
  // interaction of two of them alone.
  Dataset& data = made.data;
  const auto a = made.informative[0];
  const auto b = made.informative[4];
  TargetMatrix targets(data.rows(), 2);
  Rng noise(99);
  for (std::int64_t i = 0; i < data.rows(); ++i) {
    targets(i, 0) = data.targets(i, 0);
    targets(i, 1) = 3.0 * data.features(i, a) * data.features(i, b) + 0.1 * noise.normal();
  }
  data.targets = targets;
  data.target_names = {"y", "z"};
  data.validate();
  const auto result = fit_method("dnn-top", data, 5, kSmall);
  expect_well_formed(result, data, 5);
  EXPECT_EQ(result.options.at("task"), "regression");
  EXPECT_GE(recovered(result, made.informative), 4)
      << "planted " << ::testing::PrintToString(made.informative) << ", selected "
      << ::testing::PrintToString(result.selected);
}

// 16x16 images of noise in [0, 1] whose class is decided by three pixels.
Dataset planted_images(std::int64_t n, const std::vector<std::int64_t>& pixels,
                       std::uint64_t seed) {
  Rng rng(seed);
  Dataset data;
  data.features.resize(n, 256);
  data.labels.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < 256; ++j) data.features(i, j) = static_cast<float>(rng.uniform());
    for (auto p : pixels) sum += data.features(i, p);
    data.labels[static_cast<std::size_t>(i)] = sum > 1.5 ? 1 : 0;
  }
  for (int j = 0; j < 256; ++j) data.feature_names.push_back("pixel" + std::to_string(j));
  data.target_kind = TargetKind::Classes;
  data.class_names = {"low", "high"};
  data.source = "planted-images";
  data.format = "synthetic";
  data.validate();
  return data;
}

TEST(DnnTopCnnTest, SelectsExactlyKPixels) {
  const std::vector<std::int64_t> planted = {3 * 16 + 4, 8 * 16 + 11, 12 * 16 + 6};
  Dataset data = planted_images(800, planted, 41);
  data.image_shape = ImageShape{16, 16, 1};
  const auto result = fit_method(
      "dnn-top", data, 3,
      with(kSmall, {{"body", "cnn"}, {"hidden", "32"}, {"epochs", "8"}, {"lr", "3e-3"}}));
  expect_well_formed(result, data, 3);
  EXPECT_EQ(result.options.at("body"), "cnn");
  // Per-column standard scaling would blow up near-constant pixels.
  EXPECT_NE(result.options.at("scaling_used"), "standard");
}

// --scaling auto: data already within [0, 1] keeps its columns' relative
// spreads; other tabular data is standardised.
TEST(DnnTopScalingTest, AutoLeavesUnitRangeDataAndStandardisesTheRest) {
  auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 35);
  Dataset& data = made.data;
  const float low = data.features.minCoeff();
  const float range = data.features.maxCoeff() - low;
  data.features = ((data.features.array() - low) / range).matrix();  // into [0, 1]
  const OptionValues brief = with(kSmall, {{"epochs", "1"}, {"min-steps", "0"}});
  EXPECT_EQ(fit_method("dnn-top", data, 5, brief).options.at("scaling_used"), "none");
  data.features.col(0).array() += 1.0F;  // one column beyond 1
  EXPECT_EQ(fit_method("dnn-top", data, 5, brief).options.at("scaling_used"), "standard");
}

TEST(DnnTopCnnTest, ImageShapeOptionStandsInForTheData) {
  const Dataset data = planted_images(200, {17, 100, 200}, 42);
  const auto result = fit_method(
      "dnn-top", data, 4,
      with(kSmall, {{"body", "cnn"}, {"image-shape", "16x16"}, {"hidden", "8"}, {"epochs", "1"}}));
  expect_well_formed(result, data, 4);
}

// One training for every k on the CNN: a pass of the lead and a sub-model
// per size (the MLP's one pass does not apply), a training of its own.
TEST(DnnTopCnnTest, SubModelsOfSeveralSizesTrainTheCnnToo) {
  const Dataset data = planted_images(200, {17, 100, 200}, 44);
  const OptionValues cnn =
      with(kSmall, {{"body", "cnn"}, {"image-shape", "16x16"}, {"hidden", "8"}, {"epochs", "1"}});
  const auto ranged = fit_method("dnn-top", data, 6, with(cnn, {{"sub-k-min", "2"}}));
  expect_well_formed(ranged, data, 6);
  EXPECT_NE(ranged.scores, fit_method("dnn-top", data, 6, cnn).scores);
}

TEST(DnnTopCnnTest, CnnWithoutImageShapeIsAnOptionError) {
  const Dataset data = planted_images(100, {17, 100, 200}, 43);
  ASSERT_FALSE(data.image_shape.has_value());
  try {
    fit_method("dnn-top", data, 3, with(kSmall, {{"body", "cnn"}, {"epochs", "1"}}));
    FAIL() << "expected OptionError";
  } catch (const OptionError& error) {
    EXPECT_NE(test::as_command_line(error.what()).find("--image-shape"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(
      fit_method("dnn-top", data, 3,
                 with(kSmall, {{"body", "cnn"}, {"image-shape", "10x10"}, {"epochs", "1"}})),
      OptionError);
}

TEST(DnnTopErrorTest, DivergenceNamesEpochAndSuggestsLowerRate) {
  const auto made = planted_problem(SyntheticOptions::Target::Real, 0, 51, 600);
  try {
    fit_method("dnn-top", made.data, 5, with(kSmall, {{"lr", "1e6"}, {"epochs", "3"}}));
    FAIL() << "expected TrainingError";
  } catch (const TrainingError& error) {
    const std::string message = test::as_command_line(error.what());
    EXPECT_EQ(message.rfind("epoch ", 0), 0u) << message;
    EXPECT_NE(message.find("lower learning rate"), std::string::npos) << message;
    EXPECT_NE(message.find("--lr"), std::string::npos) << message;
  }
}

TEST(DnnTopErrorTest, HugeUnscaledInputsDivergeInTheFirstEpoch) {
  auto made = planted_problem(SyntheticOptions::Target::Real, 0, 52, 600);
  made.data.features *= 1e30f;  // finite in float, but the squared error is not
  try {
    fit_method("dnn-top", made.data, 5, with(kSmall, {{"scaling", "none"}, {"epochs", "2"}}));
    FAIL() << "expected TrainingError";
  } catch (const TrainingError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("epoch 1, batch 1:", 0), 0u) << error.what();
  }
}

// With huge unscaled inputs (classification, so the loss stays finite) the
// gradient's squared norm once overflowed a float sum in FusedAdam's clipping:
// the clip factor became clip / inf = 0 and every step was silently a no-op.
// Training must either make progress or raise TrainingError.
TEST(DnnTopErrorTest, HugeUnscaledInputsDoNotFreezeTraining) {
  auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 52, 600);
  made.data.features *= 1e30f;
  try {
    const auto result =
        fit_method("dnn-top", made.data, 5, with(kSmall, {{"scaling", "none"}, {"epochs", "2"}}));
    const bool all_initial = std::all_of(result.scores.begin(), result.scores.end(),
                                         [](double score) { return score == 1.0; });
    EXPECT_FALSE(all_initial) << "no step changed w, and no error was raised";
  } catch (const TrainingError&) {
  }
}

TEST(DnnTopErrorTest, KOutOfRangeIsAnOptionError) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 53, 100);
  EXPECT_THROW(fit_method("dnn-top", made.data, 0, kSmall), OptionError);
  EXPECT_THROW(fit_method("dnn-top", made.data, 51, kSmall), OptionError);
}

TEST(DnnTopErrorTest, BadOptionsAreOptionErrors) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 54, 100);
  EXPECT_THROW(fit_method("dnn-top", made.data, 5, with(kSmall, {{"epochs", "0"}})), OptionError);
  EXPECT_THROW(fit_method("dnn-top", made.data, 5, with(kSmall, {{"body", "rnn"}})), OptionError);
  EXPECT_THROW(fit_method("dnn-top", made.data, 5, with(kSmall, {{"lambda3", "-1"}})), OptionError);
  EXPECT_THROW(make_selector("dnn-top")->set_option("no-such-option", "1"), OptionError);
  EXPECT_THROW(make_selector("dnn-top")->set_option("epochs", "many"), OptionError);
  EXPECT_THROW(make_selector("dfs")->set_option("lambda3", "1"), OptionError);
  EXPECT_THROW(make_selector("no-such-method"), OptionError);
}

TEST(DnnTopErrorTest, DataWithoutTargetIsADataError) {
  auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 55, 100);
  made.data.target_kind = TargetKind::None;
  made.data.labels.clear();
  made.data.class_names.clear();
  EXPECT_THROW(fit_method("dnn-top", made.data, 5, kSmall), DataError);
}

}  // namespace
}  // namespace topkfs
