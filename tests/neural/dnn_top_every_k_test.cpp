// One dnn-top training for every k (--sub-k-min): the sub-models' sizes, the
// ranking whose prefixes serve the range, and evaluate's one fit per split.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "selection_test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {
namespace {

using namespace test;  // NOLINT: the suite's helpers

using Sizes = std::vector<std::int64_t>;

// `seeds` tiny dnn-top runs of `evaluate` at k = 3 and 6.
EvaluationOptions tiny_dnn_top_runs(int seeds) {
  EvaluationOptions options;
  options.methods = {"dnn-top"};
  options.ks = {3, 6};
  options.seeds = seeds;
  options.downstream_trees = 5;
  options.method_options = {
      {"hidden", "16"}, {"epochs", "2"}, {"min-steps", "0"}, {"threads", "1"}};
  return options;
}

// All 5 planted columns selected at k = 12, and at least 4 of them in the
// ranking's first 5.
void expect_planted_first(const SyntheticData& made, const SelectionResult& result) {
  expect_well_formed(result, made.data, 12);
  EXPECT_EQ(recovered(result, made.informative), 5);
  std::vector<std::int64_t> head(result.ranking.begin(), result.ranking.begin() + 5);
  std::sort(head.begin(), head.end());
  std::vector<std::int64_t> planted = made.informative;
  std::sort(planted.begin(), planted.end());
  EXPECT_GE(std::count_if(head.begin(), head.end(),
                          [&](std::int64_t j) {
                            return std::binary_search(planted.begin(), planted.end(), j);
                          }),
            4)
      << "head " << ::testing::PrintToString(head) << ", planted "
      << ::testing::PrintToString(planted);
}

// A fit of k = 8 on one thread and twice on two: the same up to rounding,
// and the two alike bit for bit.
void expect_two_threads_as_one(const SyntheticData& made, const OptionValues& options) {
  const auto one = fit_method("dnn-top", made.data, 8, with(options, {{"threads", "1"}}));
  const auto two = fit_method("dnn-top", made.data, 8, with(options, {{"threads", "2"}}));
  const auto again = fit_method("dnn-top", made.data, 8, with(options, {{"threads", "2"}}));
  ASSERT_EQ(one.history.size(), 1u);
  ASSERT_EQ(two.history.size(), 1u);
  EXPECT_NEAR(one.history[0].loss, two.history[0].loss, 1e-5 * one.history[0].loss);
  ASSERT_EQ(one.scores.size(), two.scores.size());
  for (std::size_t j = 0; j < one.scores.size(); ++j)
    EXPECT_NEAR(one.scores[j], two.scores[j], 1e-4) << "column " << j;
  EXPECT_EQ(two.scores, again.scores);
}

TEST(DnnTopEveryK, SubModelSizesAreGeometricFromTheLowEndToK) {
  EXPECT_EQ(sub_model_sizes(0, 50), Sizes({50}));
  EXPECT_EQ(sub_model_sizes(50, 50), Sizes({50}));
  EXPECT_EQ(sub_model_sizes(80, 50), Sizes({50}));
  EXPECT_EQ(sub_model_sizes(10, 50), Sizes({10, 15, 22, 33, 50}));
  EXPECT_EQ(sub_model_sizes(1, 100), Sizes({1, 2, 3, 4, 6, 10, 16, 25, 40, 63, 100}));
  EXPECT_EQ(sub_model_sizes(49, 50), Sizes({49, 50}));
  for (int low : {1, 2, 3, 7, 10, 30}) {
    for (std::int64_t k : {5, 12, 50, 200, 784}) {
      if (low >= k) continue;
      const Sizes sizes = sub_model_sizes(low, k);
      ASSERT_GE(sizes.size(), 2u);
      EXPECT_EQ(sizes.front(), low);
      EXPECT_EQ(sizes.back(), k);
      EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
      EXPECT_EQ(std::adjacent_find(sizes.begin(), sizes.end()), sizes.end()) << "no repeats";
      for (std::size_t i = 1; i < sizes.size(); ++i) {
        // 1.6 apart up to the rounding of the smaller size.
        EXPECT_LE(static_cast<double>(sizes[i]), 1.6 * (static_cast<double>(sizes[i - 1]) + 0.5))
            << low << " to " << k;
      }
    }
  }
}

TEST(DnnTopEveryK, ARangeMakesTheRankingServeEveryKAndEvaluateFitOnce) {
  auto ordinary = make_selector("dnn-top");
  EXPECT_TRUE(ordinary->ranking_depends_on_k());
  auto every_k = make_selector("dnn-top");
  every_k->set_option("sub-k-min", "2");
  EXPECT_FALSE(every_k->ranking_depends_on_k());
  every_k->set_option("restarts", "3");
  EXPECT_TRUE(every_k->ranking_depends_on_k()) << "restarts vote with each run's top k";

  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 71, 400);
  EXPECT_THROW(fit_method("dnn-top", made.data, 5, {{"sub-k-min", "-1"}}), OptionError);
  EvaluationOptions options = tiny_dnn_top_runs(2);
  options.method_options["sub-k-min"] = "3";
  const EvaluationReport report = evaluate_methods(made.data, options);
  ASSERT_EQ(report.runs.size(), 4u);
  for (const EvaluationRun& run : report.runs) {
    EXPECT_TRUE(run.shared_fit) << "k " << run.k << " run " << run.run;
  }
  // Each run's k = 3 is the head of its k = 6.
  for (const EvaluationRun& small : report.runs) {
    if (small.k != 3) continue;
    for (const EvaluationRun& large : report.runs) {
      if (large.k != 6 || large.run != small.run) continue;
      EXPECT_TRUE(std::equal(small.selected.begin(), small.selected.end(), large.selected.begin()));
    }
  }
}

// By default (--every-k auto) evaluate over several k trains one ranking
// for them; --every-k off, or a single k, trains per k.
TEST(DnnTopEveryK, EvaluateOverSeveralKTrainsOnceUnlessTurnedOff) {
  auto served = make_selector("dnn-top");
  served->serve_ks(3, 6);
  EXPECT_FALSE(served->ranking_depends_on_k());
  auto single = make_selector("dnn-top");
  single->serve_ks(6, 6);
  EXPECT_TRUE(single->ranking_depends_on_k());
  auto off = make_selector("dnn-top");
  off->set_option("every-k", "off");
  off->serve_ks(3, 6);
  EXPECT_TRUE(off->ranking_depends_on_k());
  auto restarts = make_selector("dnn-top");
  restarts->set_option("restarts", "2");
  restarts->serve_ks(3, 6);
  EXPECT_TRUE(restarts->ranking_depends_on_k());

  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 75, 400);
  EvaluationOptions options = tiny_dnn_top_runs(1);
  for (const EvaluationRun& run : evaluate_methods(made.data, options).runs) {
    EXPECT_TRUE(run.shared_fit) << "k " << run.k;
  }
  options.method_options["every-k"] = "off";
  for (const EvaluationRun& run : evaluate_methods(made.data, options).runs) {
    EXPECT_FALSE(run.shared_fit) << "k " << run.k;
  }
  EXPECT_THROW(fit_method("dnn-top", made.data, 3, {{"every-k", "sometimes"}}), OptionError);
  // What a fit trains with: the served range, or for restarts each its own k.
  const OptionValues tiny = {
      {"hidden", "8"}, {"epochs", "1"}, {"min-steps", "0"}, {"threads", "1"}, {"subsample", "0.8"}};
  auto ranged = make_selector("dnn-top");
  for (const auto& [name, value] : tiny) ranged->set_option(name, value);
  ranged->serve_ks(3, 6);
  EXPECT_EQ(ranged->fit(made.data, all_rows(made.data), 6, {}).options.at("sub-k-min"), 3);
  for (const auto& [name, value] : tiny) restarts->set_option(name, value);
  EXPECT_EQ(restarts->fit(made.data, all_rows(made.data), 6, {}).options.at("sub-k-min"), 0);
}

// The planted columns lead the ranking of one training for k = 2 to 12, so
// that its prefix of 5 and its selection of 12 both hold them: with every
// size every step, and with the sizes in turns of two a step.
TEST(DnnTopEveryK, OneTrainingRanksThePlantedFeaturesFirst) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 72);
  for (const char* per_step : {"0", "2"}) {
    SCOPED_TRACE(std::string("sub-models-per-step ") + per_step);
    expect_planted_first(
        made,
        fit_method("dnn-top", made.data, 12,
                   with(kSmallNetwork, {{"sub-k-min", "2"}, {"sub-models-per-step", per_step}})));
  }
}

// --sub-models-per-step: at least the number of sizes (2 to 12 has five) is
// every size every step, bit for bit; fewer trains them in turns, another
// fit; a negative count is refused.
TEST(DnnTopEveryK, TurnsOfSizesAreEverySizeWhenTheyHoldThemAll) {
  ASSERT_EQ(sub_model_sizes(2, 12).size(), 5u);
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 75, 500);
  const OptionValues options = with(kSmallNetwork, {{"epochs", "2"}, {"sub-k-min", "2"}});
  const auto fit_with = [&](const char* per_step) {
    return fit_method("dnn-top", made.data, 12, with(options, {{"sub-models-per-step", per_step}}));
  };
  const auto all = fit_with("0");
  EXPECT_EQ(fit_with("5").scores, all.scores);
  EXPECT_EQ(fit_with("9").scores, all.scores);
  EXPECT_NE(fit_with("2").scores, all.scores);
  EXPECT_THROW(fit_with("-1"), OptionError);
}

// A range that holds k alone is the ordinary fit, bit for bit (the prefix
// path included).
TEST(DnnTopEveryK, ARangeOfKAloneIsTheOrdinaryFit) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 2, 73, 500);
  const OptionValues options = with(kSmallNetwork, {{"epochs", "4"}});
  const auto ordinary = fit_method("dnn-top", made.data, 5, options);
  const auto ranged = fit_method("dnn-top", made.data, 5, with(options, {{"sub-k-min", "5"}}));
  EXPECT_EQ(ordinary.scores, ranged.scores);
  EXPECT_EQ(ordinary.selected, ranged.selected);
}

// Two threads split each minibatch (ParallelStep); the sub-models of several
// sizes, each a forward pass of its own, then leave the team's shared first
// layer alone (it holds one pass per step), so only rounding changes from
// one thread, and two fits agree bit for bit: with every size every step
// and with the sizes in turns (2, 5, then 3, 8).
TEST(DnnTopEveryK, TwoThreadsTrainSeveralSizesAsOneThreadDoes) {
  const auto made = planted_problem(SyntheticOptions::Target::Classes, 3, 74, 600);
  for (const char* per_step : {"0", "3"}) {
    SCOPED_TRACE(std::string("sub-models-per-step ") + per_step);
    expect_two_threads_as_one(
        made, with(kSmallNetwork,
                   {{"epochs", "1"}, {"sub-k-min", "2"}, {"sub-models-per-step", per_step}}));
  }
}

}  // namespace
}  // namespace topkfs
