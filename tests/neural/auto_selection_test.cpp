// --k auto and --method auto (evaluation/auto_selection.hpp): the grid, the
// one-standard-error rule, recovery of the planted count and support on
// generated problems, the choice between methods, and the command's flags.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "selection_test_support.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/evaluation/auto_selection.hpp"
#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/evaluation/report_io.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/methods/registry.hpp"

namespace topkfs {
namespace {

using namespace test;  // NOLINT: the suite's helpers

TEST(AutoSelection, TheGridGrowsByHalfAndEndsAtKMax) {
  EXPECT_EQ(k_grid(100), (std::vector<int>{1, 2, 3, 5, 8, 11, 17, 26, 38, 58, 86, 100}));
  EXPECT_EQ(k_grid(1), (std::vector<int>{1}));
  EXPECT_EQ(k_grid(4), (std::vector<int>{1, 2, 3, 4}));
}

TEST(AutoSelection, TheOneStandardErrorRuleTakesTheSmallestKNearTheBest) {
  const std::vector<KCurvePoint> accuracy = {
      {1, 60, 2}, {2, 80, 2}, {5, 89, 2}, {10, 90, 2}, {20, 88, 2}};
  EXPECT_EQ(choose_k(accuracy, KRule::OneStandardError, true), 5);  // 89 >= 90 - 2
  EXPECT_EQ(choose_k(accuracy, KRule::Best, true), 10);
  const std::vector<KCurvePoint> mae = {
      {1, 3.0, 0.1}, {2, 1.05, 0.1}, {4, 1.0, 0.1}, {8, 1.2, 0.1}};
  EXPECT_EQ(choose_k(mae, KRule::OneStandardError, false), 2);  // 1.05 <= 1.0 + 0.1
  EXPECT_EQ(choose_k(mae, KRule::Best, false), 4);
  EXPECT_EQ(parse_k_rule("1se"), KRule::OneStandardError);
  EXPECT_THROW(parse_k_rule("median"), OptionError);
}

struct Planted {
  SyntheticOptions::Target target;
  int features;
  int informative;
};

// The target: the chosen k within 30% of the planted count, and at
// least 85% of the planted features selected.
TEST(AutoSelection, ChoosesAboutThePlantedCountAndFindsThePlantedFeatures) {
  for (const Planted& planted : {Planted{SyntheticOptions::Target::Classes, 200, 10},
                                 Planted{SyntheticOptions::Target::Real, 500, 20}}) {
    SCOPED_TRACE(fmt::format("{} of {}", planted.informative, planted.features));
    SyntheticOptions options;
    options.samples = 800;
    options.features = planted.features;
    options.informative = planted.informative;
    options.correlated_decoys = 0;
    options.relation = SyntheticOptions::Relation::Linear;
    options.target = planted.target;
    options.classes = 2;
    options.noise = 0.2;
    options.seed = 3;
    const SyntheticData made = make_synthetic(options);
    AutoOptions automatic;
    automatic.auto_k = true;
    // The ranking by weight alone: the default marginal screen ranks the
    // noise columns that pass it at p < 0.05 (about 5% of them) before a
    // planted column of weak marginal signal, which then enters the curve
    // only at k = 49 of 20 planted (docs/algorithms.md, "Choosing k").
    const SelectionResult result = run_auto_selection(made.data, {[] {
                                                        auto selector =
                                                            make_selector("elastic-net-top");
                                                        selector->set_option("screen-level", "0");
                                                        return selector;
                                                      }},
                                                      all_rows(made.data), automatic, {});
    const auto& curve = (*result.automatic)["candidates"][0]["curve"];
    EXPECT_LE(std::abs(result.k - planted.informative), 0.3 * planted.informative)
        << result.k << ": " << curve.dump();
    EXPECT_GE(recovered(result, made.informative), std::ceil(0.85 * planted.informative))
        << fmt::format("{}", fmt::join(result.selected, ","));
    // The grid, and the points refined below the choice.
    EXPECT_GE(curve.size(), k_grid(100).size());
    EXPECT_EQ((*result.automatic)["k"], result.k);
  }
}

// Folds replace the one validation part on few rows, and between several
// methods (auto_selection.hpp).
TEST(AutoSelection, FewTrainingRowsAreValidatedByFolds) {
  EXPECT_EQ(resolved_folds(0, kFewTrainingRows - 1, 1), kSmallDataFolds);
  EXPECT_EQ(resolved_folds(0, kFewTrainingRows, 1), 1);
  EXPECT_EQ(resolved_folds(0, kFewTrainingRows, 3), kMethodChoiceFolds);  // for stability
  EXPECT_EQ(resolved_folds(1, 10, 3), 1);
  EXPECT_EQ(resolved_folds(3, 10'000, 3), 3);
  const SyntheticData made = planted_problem(SyntheticOptions::Target::Classes, 2, 4, 300,
                                             SyntheticOptions::Relation::Linear);
  AutoOptions automatic;
  automatic.k = 3;
  const SelectionResult result = run_auto_selection(
      made.data, {[] { return make_selector("lasso"); }}, all_rows(made.data), automatic, {});
  EXPECT_EQ((*result.automatic)["validation"], "5 stratified folds of the 300 training rows");
  EXPECT_EQ((*result.automatic)["candidates"][0]["fits"], 5);
}

// k of every column selects them all whatever the ranking: the fit of a
// smaller k serves it, so a curve to k = all costs one fit less a part, and
// every candidate scores the same there.
TEST(AutoSelection, KOfEveryColumnNeedsNoFitOfItsOwn) {
  const SyntheticData made = planted_problem(SyntheticOptions::Target::Classes, 3, 12, 600,
                                             SyntheticOptions::Relation::Linear, 12);
  AutoOptions automatic;
  automatic.auto_k = true;
  automatic.folds = 1;
  const SelectionResult result = run_auto_selection(
      made.data,
      {[] { return make_selector("lasso"); }, [] { return make_selector("random-forest"); }},
      all_rows(made.data), automatic, {});
  const auto& lasso = (*result.automatic)["candidates"][0];
  const auto& forest = (*result.automatic)["candidates"][1];
  ASSERT_EQ(lasso["method"], "lasso");
  const auto& curve = lasso["curve"];
  ASSERT_EQ(curve.back()["k"], 12);
  EXPECT_EQ(lasso["fits"].get<std::size_t>(), curve.size() - 1) << curve.dump();
  ASSERT_EQ(forest["curve"].back()["k"], 12);
  EXPECT_EQ(curve.back()["mean"], forest["curve"].back()["mean"]);
}

TEST(AutoSelection, WithFoldsTheMostStableOfTheCandidatesNearTheBestIsChosen) {
  const auto candidate = [](const char* method, double mean, double se, double stability) {
    CandidateScore score;
    score.method = method;
    score.mean = mean;
    score.se = se;
    score.stability = stability;
    return score;
  };
  // Accuracy: b is best (90 +- 2); a's interval (88.5 +- 3) overlaps b's
  // and a is more stable; c is more stable still, but 86 +- 0.5 lies apart.
  const std::vector<CandidateScore> folds = {candidate("a", 88.5, 3.0, 0.7),
                                             candidate("b", 90.0, 2.0, 0.4),
                                             candidate("c", 86.0, 0.5, 0.9)};
  EXPECT_EQ(choose_method(folds, true), 0u);
  // MAE, lower is better: the same with the signs turned.
  const std::vector<CandidateScore> errors = {candidate("a", 1.05, 0.1, 0.7),
                                              candidate("b", 1.0, 0.1, 0.4),
                                              candidate("c", 1.2, 0.05, 0.9)};
  EXPECT_EQ(choose_method(errors, false), 0u);
  // Equal stability: the better score.
  const std::vector<CandidateScore> level = {candidate("a", 89.0, 1.0, 0.5),
                                             candidate("b", 89.5, 1.0, 0.5)};
  EXPECT_EQ(choose_method(level, true), 1u);
  // One validation part (no stability): the best score, ties to the first.
  const double none = std::numeric_limits<double>::quiet_NaN();
  const std::vector<CandidateScore> one_part = {candidate("a", 89.0, 3.0, none),
                                                candidate("b", 90.0, 3.0, none),
                                                candidate("c", 90.0, 3.0, none)};
  EXPECT_EQ(choose_method(one_part, true), 1u);
}

TEST(AutoSelection, MethodAutoReportsEveryCandidateAndFitsTheBest) {
  const SyntheticData made = planted_problem(SyntheticOptions::Target::Classes, 2, 4, 600,
                                             SyntheticOptions::Relation::Linear);
  AutoOptions automatic;
  automatic.k = 5;
  automatic.folds = 3;
  const SelectionResult result = run_auto_selection(
      made.data,
      {[] { return make_selector("lasso"); }, [] { return make_selector("random-forest"); }},
      all_rows(made.data), automatic, {});
  const auto& choice = *result.automatic;
  ASSERT_EQ(choice["candidates"].size(), 2u);
  EXPECT_EQ(choice["k_rule"], "fixed");
  const auto& a = choice["candidates"][0];
  const auto& b = choice["candidates"][1];
  // The choice is choose_method's on the scores reported.
  std::vector<CandidateScore> reported;
  for (const auto& candidate : {a, b}) {
    CandidateScore score;
    score.method = candidate["method"].get<std::string>();
    score.mean = candidate["mean"].get<double>();
    score.se = candidate["se"].get<double>();
    ASSERT_TRUE(candidate["stability"].is_number()) << candidate.dump();  // three folds
    score.stability = candidate["stability"].get<double>();
    EXPECT_LE(score.stability, 1.0);
    reported.push_back(score);
  }
  const std::string best = reported[choose_method(reported, true)].method;
  EXPECT_EQ(choice["method"], best);
  EXPECT_EQ(result.method, best);
  EXPECT_EQ(result.k, 5);
  EXPECT_EQ(a["fits"], 3);  // lasso's ranking serves every k: one fit a fold
  EXPECT_GT(a["se"].get<double>(), 0.0);
  // Each fold's score, whose mean is the candidate's.
  for (const auto& candidate : {a, b}) {
    const auto parts = candidate["parts"].get<std::vector<double>>();
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_NEAR((parts[0] + parts[1] + parts[2]) / 3, candidate["mean"].get<double>(), 1e-9);
  }
}

TEST(AutoSelection, TheCommandChoosesAndRefusesWhatCannotCombine) {
  const std::string csv = [] {
    const SyntheticData made = planted_problem(SyntheticOptions::Target::Classes, 2, 5, 300,
                                               SyntheticOptions::Relation::Linear);
    std::string text;
    for (std::int64_t j = 0; j < made.data.cols(); ++j) text += fmt::format("x{},", j);
    text += "y\n";
    for (std::int64_t i = 0; i < made.data.rows(); ++i) {
      for (std::int64_t j = 0; j < made.data.cols(); ++j) {
        text += fmt::format("{:.4f},", made.data.features(i, j));
      }
      text += fmt::format("{}\n", made.data.labels[static_cast<std::size_t>(i)]);
    }
    return write_temp_file("auto.csv", text);
  }();
  const CommandResult run = run_cli(fmt::format(
      "select '{}' --k auto --k-max 20 --method auto --k-folds 1 --min-steps 200 --json -q", csv));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out);
  ASSERT_EQ(result["auto"]["candidates"].size(), auto_method_candidates().size());
  EXPECT_EQ(result["auto"]["k_grid"].back(), 20);
  EXPECT_EQ(result["method"], result["auto"]["method"]);
  for (const char* bad : {"--k auto --checkpoint c.ckpt", "--k auto --k-rule median",
                          "--k 3 --method lasso --plot p.png", "--method auto --k 3 --lambda9 1",
                          "--k auto --k-folds -1", "--k 3 --method lasso --candidates ridge",
                          "--k 3 --method auto --candidates lasso,nope",
                          "--k 3 --method auto --candidates lasso,lasso"}) {
    const CommandResult refused = run_cli(fmt::format("select '{}' {} -q", csv, bad));
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
  }
  const std::string report = write_temp_file("auto-report.json", "");
  const CommandResult evaluate = run_cli(fmt::format(
      "evaluate '{}' --method auto --k 2 --seeds 1 --k-folds 1 --min-steps 200 -o '{}' -q", csv,
      report));
  ASSERT_EQ(evaluate.exit_code, 0) << evaluate.err;
  const auto written = nlohmann::json::parse(read_text(report));
  ASSERT_EQ(written["runs"].size(), 1u);
  const std::string chosen = written["runs"][0]["chosen_method"].get<std::string>();
  EXPECT_NE(std::find(auto_method_candidates().begin(), auto_method_candidates().end(), chosen),
            auto_method_candidates().end())
      << chosen;
  // --candidates: the choice is between those, and each run reports them.
  const CommandResult listed = run_cli(fmt::format(
      "evaluate '{}' --method auto --candidates lasso,random-forest --k 2 --seeds 1 -o '{}' -q",
      csv, report));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto first = nlohmann::json::parse(read_text(report))["runs"][0];
  EXPECT_TRUE(first["chosen_method"] == "lasso" || first["chosen_method"] == "random-forest")
      << first;
  ASSERT_EQ(first["automatic"]["candidates"].size(), 2u);
  EXPECT_EQ(first["automatic"]["method"], first["chosen_method"]);
}

// evaluate --method auto chooses again in every run and for each k, on that
// run's training rows alone: its selection is the chosen method's own, fitted
// on those rows with the run's seed.
TEST(AutoSelection, EvaluateChoosesPerRunAndSelectsAsTheChosenMethod) {
  SyntheticData made = planted_problem(SyntheticOptions::Target::Classes, 3, 7, 400,
                                       SyntheticOptions::Relation::Linear);
  EvaluationOptions options;
  options.methods = {"auto", "dnn-top", "elastic-net-top", "random-forest"};
  options.ks = {2, 4};
  options.seeds = 2;
  options.split = SplitMode::Random;
  options.downstream_trees = 10;
  options.k_folds = 1;
  // auto fits the chosen method at the chosen k alone; dnn-top's own runs
  // then train per k too (--every-k off), so that the two compare.
  options.method_options = {{"min-steps", "200"}, {"threads", "1"}, {"every-k", "off"}};
  const EvaluationReport report = evaluate_methods(made.data, options);
  int auto_runs = 0;
  for (const auto& run : report.runs) {
    if (run.method != "auto") {
      EXPECT_TRUE(run.chosen_method.empty());
      continue;
    }
    ++auto_runs;
    SCOPED_TRACE(fmt::format("k={} run {} chose {}", run.k, run.run, run.chosen_method));
    const auto own = std::find_if(report.runs.begin(), report.runs.end(), [&](const auto& other) {
      return other.method == run.chosen_method && other.k == run.k && other.run == run.run;
    });
    ASSERT_NE(own, report.runs.end());
    EXPECT_EQ(run.selected, own->selected);
    EXPECT_EQ(run.score, own->score);
  }
  EXPECT_EQ(auto_runs, 4);
  EXPECT_EQ(report.methods.front().method, "auto");
  const std::string path = temp_dir() + "/auto_report.json";
  write_report_json(path, report);
  EXPECT_EQ(report_to_json(read_report_json(path)), report_to_json(report));
}

// evaluate --k auto: k chosen in every run on its training rows, the run
// holding what it chose and selecting that many; beside fixed k in one grid.
TEST(AutoSelection, EvaluateChoosesKPerRunBesideFixedK) {
  const SyntheticData made = planted_problem(SyntheticOptions::Target::Classes, 2, 11, 500,
                                             SyntheticOptions::Relation::Linear, 40);
  EvaluationOptions options;
  options.methods = {"lasso", "random-forest"};
  options.ks = {3, kAutoK};
  options.k_max = 20;
  options.seeds = 2;
  options.split = SplitMode::Random;
  options.downstream_trees = 10;
  const EvaluationReport report = evaluate_methods(made.data, options);
  EXPECT_EQ(report.ks, (std::vector<int>{kAutoK, 3}));
  ASSERT_EQ(report.runs.size(), 2u * 2u * 2u);
  for (const auto& run : report.runs) {
    SCOPED_TRACE(fmt::format("{} k={} run {}", run.method, k_label(run.k), run.run));
    if (run.k != kAutoK) {
      EXPECT_EQ(run.chosen_k, 0);
      EXPECT_EQ(run.selected.size(), 3u);
      continue;
    }
    EXPECT_GE(run.chosen_k, 1);
    EXPECT_LE(run.chosen_k, 20);
    EXPECT_EQ(static_cast<int>(run.selected.size()), run.chosen_k);
    if (run.method == "lasso") {  // 5 planted: within 30%, as --k auto's target
      EXPECT_LE(std::abs(run.chosen_k - 5), 2) << run.chosen_k;
      SelectionResult selection;
      selection.selected = run.selected;
      EXPECT_GE(recovered(selection, made.informative), 4);
    }
  }
  EXPECT_TRUE(contains(report_table(report), "\nauto ")) << report_table(report);
  const std::string path = temp_dir() + "/auto_k_report.json";
  write_report_json(path, report);
  EXPECT_EQ(report_to_json(read_report_json(path)), report_to_json(report));

  EvaluationOptions stability = options;
  stability.protocol = Protocol::Stability;
  EXPECT_TRUE(contains(error_of<OptionError>([&] { evaluate_methods(made.data, stability); }),
                       "--k auto with --protocol stability"));
  for (const char* bad : {"--k 0", "--k 3,auto,auto", "--k auto --k-folds -1"}) {
    const CommandResult refused = run_cli(fmt::format("evaluate x.csv {} -m lasso -q", bad));
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
  }
}

// --method auto where a downstream least squares barely notices the columns
// it should not select: Pyrimidines with as many noise columns appended
// (the detection protocol). The candidates' scores overlap there, and the
// stability over the folds takes the selection that keeps the noise out.
// Measured over noise seeds 0..9 (bench/quality/results/
// 2026-12-06-auto-stability.md): F1 89.2, dnn-top chosen in every run; 75.0
// by the best score alone (65.4 over seeds 0..2); elastic-net-top as a
// fixed method 68.1. Seeds 0..2 here gave 92.3, 96.2 and 80.8 or 84.6 (the
// thread count changes dnn-top's rounding).
TEST(QualityTest, MethodAutoKeepsTheNoiseColumnsOutOnPyrimidines) {
  TOPKFS_REQUIRE_SHARED_DATA("pyrim");
  const Dataset data = read_dataset(shared_data("pyrim/pyrim.csv"));
  EvaluationOptions options;
  options.methods = {"auto"};
  options.protocol = Protocol::Detection;
  options.seeds = 3;
  const EvaluationReport report = evaluate_methods(data, options);
  ASSERT_EQ(report.methods.size(), 1u);
  std::string chosen;
  for (const auto& run : report.runs) chosen += run.chosen_method + " ";
  EXPECT_GE(report.methods.front().over_k.mean, 80.0) << "chosen: " << chosen;
}

}  // namespace
}  // namespace topkfs
