// dnn-top's training schedule (warm-up, annealed k, early stopping on the
// sub-model), the non-negative w, and stability selection over restarts,
// through the public Selector interface.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "selection_test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/methods/registry.hpp"

namespace topkfs {
namespace {

using namespace test;  // NOLINT: the suite's helpers

// Small settings for the planted problems; the epochs are taken as given.
const OptionValues kScheduleNet = {{"hidden", "64,32"}, {"epochs", "40"},  {"batch", "64"},
                                   {"lr", "3e-3"},      {"patience", "0"}, {"threads", "1"},
                                   {"seed", "1"},       {"min-steps", "0"}};

std::set<std::int64_t> as_set(const std::vector<std::int64_t>& columns) {
  return {columns.begin(), columns.end()};
}

TEST(DnnTopScheduleTest, WarmUpAndAnnealingStillFindThePlantedFeatures) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 61);
  const auto result = fit_method(
      "dnn-top", made.data, 5,
      with(kScheduleNet,
           {{"warmup", "0.2"}, {"anneal", "0.4"}, {"stop-on", "sub"}, {"patience", "3"}}));
  expect_well_formed(result, made.data, 5);
  EXPECT_GE(recovered(result, made.informative), 4)
      << "planted " << ::testing::PrintToString(made.informative) << ", selected "
      << ::testing::PrintToString(result.selected);
}

// A warm-up over the whole training is the lead model alone: DFS, step for
// step (without validation rows the last epoch is kept by both), up to the
// rounding of sums taken in dnn-top's input order.
TEST(DnnTopScheduleTest, WarmUpOverEverythingIsDfs) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 62, 600);
  const OptionValues options = with(kScheduleNet, {{"epochs", "4"}, {"validation", "0"}});
  const auto dfs = fit_method("dfs", made.data, 5, options);
  const OptionValues dfs_penalties = with(options, {{"lambda2", "1e-4"}, {"anneal", "0"}});
  const auto warm = fit_method("dnn-top", made.data, 5, with(dfs_penalties, {{"warmup", "1"}}));
  const auto once = fit_method("dnn-top", made.data, 5, dfs_penalties);
  ASSERT_EQ(dfs.scores.size(), warm.scores.size());
  double largest_gap = 0.0;
  double gap_to_dnn_top = 0.0;
  for (std::size_t j = 0; j < dfs.scores.size(); ++j) {
    largest_gap = std::max(largest_gap, std::abs(dfs.scores[j] - warm.scores[j]));
    gap_to_dnn_top = std::max(gap_to_dnn_top, std::abs(dfs.scores[j] - once.scores[j]));
  }
  EXPECT_LT(largest_gap, 1e-5);
  EXPECT_GT(gap_to_dnn_top, 1e-3) << "the top-k term should change w";
}

// Early stopping waits for the schedule: with patience 1 and a long
// annealing phase, training runs at least through the annealing.
TEST(DnnTopScheduleTest, PatienceCountsOnlyAfterTheSchedule) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 63, 600);
  const auto result = fit_method(
      "dnn-top", made.data, 5,
      with(kScheduleNet, {{"epochs", "20"}, {"patience", "1"}, {"anneal", "0.9"}, {"lr", "3e-2"}}));
  EXPECT_GE(result.history.size(), 18u);
}

// With strong L1 pressure and w kept non-negative, the inputs the model does
// not use reach exactly 0 (clipped) instead of hovering around it.
TEST(DnnTopScheduleTest, NonNegativeWClipsUnusedInputsToZero) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 64);
  const OptionValues strong = with(kScheduleNet, {{"lambda2", "0.1"}, {"anneal", "0.5"}});
  const auto clipped =
      fit_method("dnn-top", made.data, 5, with(strong, {{"w-constraint", "nonneg"}}));
  const auto free = fit_method("dnn-top", made.data, 5, strong);
  const auto zeros = [](const SelectionResult& r) {
    return std::count(r.scores.begin(), r.scores.end(), 0.0);
  };
  EXPECT_GE(zeros(clipped), 30) << "of 45 unplanted inputs";
  EXPECT_LT(zeros(free), 5);
  EXPECT_GE(recovered(clipped, made.informative), 4);
}

TEST(DnnTopScheduleTest, BadScheduleOptionsAreOptionErrors) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 65, 100);
  for (const OptionValues& bad :
       {OptionValues{{"warmup", "0.6"}, {"anneal", "0.5"}}, OptionValues{{"warmup", "-0.1"}},
        OptionValues{{"w-constraint", "positive"}}, OptionValues{{"stop-on", "lead"}},
        OptionValues{{"restarts", "0"}}, OptionValues{{"subsample", "0"}},
        OptionValues{{"subsample", "1.5"}}}) {
    EXPECT_THROW(fit_method("dnn-top", made.data, 5, with(kScheduleNet, bad)), OptionError)
        << ::testing::PrintToString(bad);
  }
}

// Restart r is the plain fit with seed s + r: the frequencies are the votes
// of those fits' top k, and the selection is the most frequent features.
TEST(DnnTopRestartsTest, FrequencyIsTheVoteOfTheSeededFits) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 66, 800);
  const OptionValues options = with(kScheduleNet, {{"epochs", "6"}, {"seed", "5"}});
  const int k = 5;
  const int restarts = 3;
  const auto stable =
      fit_method("dnn-top", made.data, k, with(options, {{"restarts", std::to_string(restarts)}}));
  expect_well_formed(stable, made.data, k);
  std::vector<double> votes(static_cast<std::size_t>(made.data.cols()), 0.0);
  for (int r = 0; r < restarts; ++r) {
    const auto once =
        fit_method("dnn-top", made.data, k, with(options, {{"seed", std::to_string(5 + r)}}));
    for (const auto column : once.selected) votes[static_cast<std::size_t>(column)] += 1.0;
  }
  ASSERT_EQ(stable.frequency.size(), votes.size());
  for (std::size_t j = 0; j < votes.size(); ++j) {
    EXPECT_DOUBLE_EQ(stable.frequency[j], votes[j] / restarts) << "column " << j;
  }
  const double least_chosen = stable.frequency[static_cast<std::size_t>(stable.selected.back())];
  for (std::size_t j = 0; j < votes.size(); ++j) {
    if (as_set(stable.selected).count(static_cast<std::int64_t>(j)) == 0) {
      EXPECT_LE(stable.frequency[j], least_chosen) << "column " << j << " was left out";
    }
  }
  EXPECT_DOUBLE_EQ(std::accumulate(stable.frequency.begin(), stable.frequency.end(), 0.0), k);
}

TEST(DnnTopRestartsTest, SubsamplesFindThePlantedFeaturesEveryTime) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 67);
  const auto result = fit_method("dnn-top", made.data, 5,
                                 with(kScheduleNet, {{"restarts", "4"}, {"subsample", "0.5"}}));
  expect_well_formed(result, made.data, 5);
  EXPECT_GE(recovered(result, made.informative), 4);
  int always = 0;
  for (const auto column : made.informative) {
    always += result.frequency[static_cast<std::size_t>(column)] == 1.0 ? 1 : 0;
  }
  EXPECT_GE(always, 3) << "planted features chosen by every subsample";
  EXPECT_TRUE(std::any_of(result.notes.begin(), result.notes.end(), [](const std::string& note) {
    return note.find("4 fits") != std::string::npos && note.find("50%") != std::string::npos;
  }));
}

TEST(DnnTopRestartsTest, OneFitHasNoFrequency) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 68, 300);
  EXPECT_TRUE(
      fit_method("dnn-top", made.data, 5, with(kScheduleNet, {{"epochs", "2"}})).frequency.empty());
}

// A few tiny dnn-top runs of `evaluate` at k = 5.
EvaluationOptions tiny_dnn_top_runs(int seeds, const std::string& epochs) {
  EvaluationOptions options;
  options.methods = {"dnn-top"};
  options.ks = {5};
  options.seeds = seeds;
  options.method_options = {
      {"hidden", "16"}, {"epochs", epochs}, {"min-steps", "0"}, {"threads", "1"}};
  return options;
}

// --model-seed: the split changes per run, the method's seed does not. With
// a predefined split nothing changes between runs, so the selections agree.
TEST(EvaluateModelSeed, FixesTheMethodsSeedAcrossRuns) {
  auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 69, 600);
  std::vector<std::int64_t> train(450), test(150);
  std::iota(train.begin(), train.end(), 0);
  std::iota(test.begin(), test.end(), 450);
  made.data.predefined_split = Split{train, test};
  EvaluationOptions options = tiny_dnn_top_runs(2, "3");
  options.downstream_trees = 5;
  const auto varied = evaluate_methods(made.data, options);
  options.model_seed = 0;
  const auto fixed = evaluate_methods(made.data, options);
  ASSERT_EQ(fixed.runs.size(), 2u);
  EXPECT_EQ(fixed.runs[0].selected, fixed.runs[1].selected);
  EXPECT_NE(varied.runs[0].selected, varied.runs[1].selected);
}

// The stability protocol keeps the method's seed at --seed unless told to
// vary it: its default selections are those of --model-seed 0, and
// --vary-model-seed gives the split-and-seed variation.
TEST(EvaluateModelSeed, StabilityFixesTheSeedUnlessToldToVaryIt) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 70, 400);
  EvaluationOptions options = tiny_dnn_top_runs(3, "2");
  options.protocol = Protocol::Stability;
  const auto by_default = evaluate_methods(made.data, options);
  options.model_seed = 0;
  const auto fixed = evaluate_methods(made.data, options);
  options.model_seed.reset();
  options.vary_model_seed = true;
  const auto varied = evaluate_methods(made.data, options);
  ASSERT_EQ(by_default.runs.size(), 3u);
  bool differs = false;
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(by_default.runs[r].selected, fixed.runs[r].selected) << "run " << r;
    differs = differs || varied.runs[r].selected != fixed.runs[r].selected;
  }
  EXPECT_TRUE(differs) << "the seed changes some selection";
}

}  // namespace
}  // namespace topkfs
