// `evaluate`: the grid, the protocols' scores recomputed independently from
// the recorded selections, the least-squares downstream model's optimality,
// and the command's outputs and errors.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "test_support.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/evaluation/report_io.hpp"
#include "topkfs/io/result_json.hpp"
#include "topkfs/io/table_writer.hpp"
#include "topkfs/scoring/detection.hpp"
#include "topkfs/scoring/downstream.hpp"
#include "topkfs/scoring/metrics.hpp"
#include "topkfs/version.hpp"

namespace topkfs {
namespace {

using test::contains;
using test::error_of;

SyntheticData planted(SyntheticOptions::Target target, std::uint64_t seed = 3) {
  SyntheticOptions options;
  options.samples = 600;
  options.features = 30;
  options.informative = 4;
  options.correlated_decoys = 0;
  options.target = target;
  options.noise = 0.05;
  options.seed = seed;
  SyntheticData made = make_synthetic(options);
  made.data.source = "planted.csv";
  return made;
}

EvaluationOptions linear_grid(Protocol protocol) {
  EvaluationOptions options;
  options.methods = {"elastic-net-top", "ridge"};
  options.ks = {2, 4};
  options.protocol = protocol;
  options.seeds = 2;
  options.downstream_trees = 10;
  return options;
}

TEST(Evaluate, GridHasOneRunPerMethodKAndSeed) {
  const auto made = planted(SyntheticOptions::Target::Real);
  const auto report = evaluate_methods(made.data, linear_grid(Protocol::Auto));
  EXPECT_EQ(report.protocol, Protocol::Mae);
  ASSERT_EQ(report.runs.size(), 2u * 2u * 2u);
  ASSERT_EQ(report.methods.size(), 2u);
  for (const auto& run : report.runs) {
    EXPECT_EQ(static_cast<int>(run.selected.size()), run.k);
    EXPECT_GT(run.score, 0.0);
    ASSERT_TRUE(run.rmse.has_value());
    EXPECT_GE(*run.rmse, run.score);  // RMSE >= MAE always
  }
  // The summary is the mean of the runs it covers.
  const auto& first = report.methods[0];
  double sum = 0;
  for (const auto& run : report.runs) {
    if (run.method == first.method && run.k == 2) sum += run.score;
  }
  EXPECT_NEAR(first.per_k[0].mean, sum / 2, 1e-12);
  EXPECT_EQ(first.over_k.count, 4);
}

TEST(Evaluate, SameSeedSameReport) {
  const auto made = planted(SyntheticOptions::Target::Real);
  const auto a = evaluate_methods(made.data, linear_grid(Protocol::Mae));
  const auto b = evaluate_methods(made.data, linear_grid(Protocol::Mae));
  ASSERT_EQ(a.runs.size(), b.runs.size());
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_EQ(a.runs[i].selected, b.runs[i].selected);
    EXPECT_DOUBLE_EQ(a.runs[i].score, b.runs[i].score);
  }
}

TEST(Evaluate, PlantedFeaturesScoreBetterThanTheRest) {
  // MAE on the planted columns is far below MAE on columns the target ignores.
  const auto made = planted(SyntheticOptions::Target::Real);
  const Split split = random_split(made.data.rows(), 0.2, 1);
  std::vector<std::int64_t> ignored;
  for (std::int64_t j = 0; ignored.size() < made.informative.size(); ++j) {
    if (std::find(made.informative.begin(), made.informative.end(), j) == made.informative.end()) {
      ignored.push_back(j);
    }
  }
  const auto good = score_downstream(made.data, split.train, split.test, made.informative);
  const auto bad = score_downstream(made.data, split.train, split.test, ignored);
  EXPECT_LT(good.mae, 0.25 * bad.mae);
}

TEST(Evaluate, LeastSquaresResidualIsOrthogonalToTheColumns) {
  // The normal equations X^T (y - X b) = 0, intercept column included.
  const auto made = planted(SyntheticOptions::Target::Real);
  std::vector<std::int64_t> rows(400), columns = {0, 5, 9};
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
  const TargetMatrix b = fit_least_squares(made.data, rows, columns);
  ASSERT_EQ(b.rows(), 4);
  const TargetMatrix fitted = predict_least_squares(b, made.data, rows, columns);
  for (std::size_t j = 0; j <= columns.size(); ++j) {
    double dot = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double x = j < columns.size() ? made.data.features(rows[i], columns[j]) : 1.0;
      dot += x * (made.data.targets(rows[i], 0) - fitted(static_cast<Eigen::Index>(i), 0));
    }
    EXPECT_NEAR(dot, 0.0, 1e-8 * rows.size());
  }
}

TEST(Evaluate, AccuracyRunsMatchTheDownstreamModelRecomputed) {
  const auto made = planted(SyntheticOptions::Target::Classes);
  EvaluationOptions options = linear_grid(Protocol::Accuracy);
  options.seeds = 1;
  options.seed = 11;
  const auto report = evaluate_methods(made.data, options);
  EXPECT_EQ(report.metric, "accuracy %");
  const Split split = resolve_split(made.data, SplitMode::Predefined, 0.2, 11);
  for (const auto& run : report.runs) {
    DownstreamOptions downstream;
    downstream.trees = 10;
    downstream.seed = 11;
    EXPECT_DOUBLE_EQ(
        run.score,
        score_downstream(made.data, split.train, split.test, run.selected, downstream).accuracy);
  }
}

TEST(Evaluate, DetectionScoresTheOriginalColumns) {
  const auto made = planted(SyntheticOptions::Target::Real);
  EvaluationOptions options = linear_grid(Protocol::Detection);
  options.methods = {"elastic-net-top"};
  const auto report = evaluate_methods(made.data, options);
  ASSERT_EQ(report.ks, std::vector<int>{30});  // k = original columns whatever --k said
  for (const auto& run : report.runs) {
    ASSERT_EQ(run.selected.size(), 30u);
    const auto originals = std::count_if(run.selected.begin(), run.selected.end(),
                                         [](std::int64_t c) { return c < 30; });
    EXPECT_DOUBLE_EQ(run.score, 100.0 * originals / 30.0);
  }
  // The planted columns are always found (the rest is a coin toss between a
  // useless column and its noise copy).
  for (const auto& run : report.runs) {
    for (const auto column : made.informative) {
      EXPECT_NE(std::find(run.selected.begin(), run.selected.end(), column), run.selected.end());
    }
  }
}

TEST(Evaluate, DetectionDataKeepsTheOriginalsUnderAShuffle) {
  const auto made = planted(SyntheticOptions::Target::Real);
  const DetectionData detection = make_detection_data(made.data, 4);
  ASSERT_EQ(detection.data.cols(), 60);
  for (std::int64_t j = 0; j < 60; ++j) {
    const auto source = detection.unshuffled[static_cast<std::size_t>(j)];
    if (source < 30) EXPECT_EQ(detection.data.features(7, j), made.data.features(7, source));
  }
  std::vector<std::int64_t> originals;
  for (std::int64_t j = 0; j < 60; ++j) {
    if (detection.unshuffled[static_cast<std::size_t>(j)] < 30) originals.push_back(j);
  }
  EXPECT_DOUBLE_EQ(detection_f1(detection, originals), 100.0);
}

TEST(Evaluate, StabilityRecomputedFromTheSelections) {
  const auto made = planted(SyntheticOptions::Target::Real);
  EvaluationOptions options = linear_grid(Protocol::Stability);
  options.seeds.reset();  // the protocol's 10 splits
  const auto report = evaluate_methods(made.data, options);
  EXPECT_EQ(report.seeds, 10);
  for (const auto& method : report.methods) {
    for (std::size_t i = 0; i < report.ks.size(); ++i) {
      std::vector<std::vector<std::int64_t>> sets;
      for (const auto& run : report.runs) {
        if (run.method == method.method && run.k == report.ks[i]) sets.push_back(run.selected);
      }
      ASSERT_EQ(sets.size(), 10u);
      EXPECT_DOUBLE_EQ(method.stability_per_k[i].jaccard, mean_pairwise_jaccard(sets));
      EXPECT_DOUBLE_EQ(method.stability_per_k[i].kuncheva, mean_pairwise_kuncheva(sets, 30));
    }
    double total = 0;
    for (const double share : method.selection_frequency) total += share;
    EXPECT_NEAR(total, 4.0, 1e-9);  // k = 4 features per run
  }
  // A strong planted signal is found on every split.
  EXPECT_DOUBLE_EQ(report.methods[0].stability_per_k[1].jaccard, 1.0);
}

TEST(Evaluate, BadOptionsFailBeforeAnyFit) {
  const auto made = planted(SyntheticOptions::Target::Real);
  auto options = linear_grid(Protocol::Mae);
  options.ks = {2, 31};
  EXPECT_TRUE(contains(error_of<OptionError>([&] { evaluate_methods(made.data, options); }),
                       "--k 31 is more than the 30 columns"));
  options = linear_grid(Protocol::Accuracy);
  EXPECT_TRUE(contains(error_of<OptionError>([&] { evaluate_methods(made.data, options); }),
                       "--protocol accuracy needs class labels"));
  options = linear_grid(Protocol::Mae);
  options.methods = {"ridge", "no-such-method"};
  EXPECT_TRUE(contains(error_of<OptionError>([&] { evaluate_methods(made.data, options); }),
                       "unknown method 'no-such-method'"));
  options = linear_grid(Protocol::Mae);
  options.method_options = {{"epochs", "3"}};
  EXPECT_TRUE(contains(error_of<OptionError>([&] { evaluate_methods(made.data, options); }),
                       "--epochs does not apply to any of the methods"));
  options = linear_grid(Protocol::Stability);
  options.seeds = 1;
  EXPECT_TRUE(contains(error_of<OptionError>([&] { evaluate_methods(made.data, options); }),
                       "give --seeds 2 or more"));
}

TEST(Evaluate, KIndependentRankingIsFittedOncePerRun) {
  const auto made = planted(SyntheticOptions::Target::Classes);
  EvaluationOptions options;
  options.methods = {"dfs"};
  options.ks = {2, 4, 8};
  options.downstream_trees = 5;
  options.method_options = {{"epochs", "2"}, {"hidden", "16"}};
  const auto report = evaluate_methods(made.data, options);
  ASSERT_EQ(report.runs.size(), 3u);
  for (const auto& run : report.runs) {
    EXPECT_TRUE(run.shared_fit);
    // Each selection is a prefix of the largest one.
    const auto& largest = report.runs.back().selected;
    EXPECT_TRUE(std::equal(run.selected.begin(), run.selected.end(), largest.begin()));
  }
}

TEST(EvaluateCli, WritesTheTableTheReportAndTheCsv) {
  const auto made = planted(SyntheticOptions::Target::Real);
  const std::string data = test::temp_dir() + "/planted_eval.csv";
  write_selected_columns(data, made.data, made.informative);
  const std::string report = test::temp_dir() + "/report.json";
  const std::string csv = test::temp_dir() + "/runs.csv";
  const auto result = test::run_cli("evaluate " + data +
                                    " --target y --method ridge,elastic-net-top --k 1,2 --seeds 2 "
                                    "-q --output " +
                                    report + " --csv " + csv);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "MAE (lower is better), 2 runs"));
  EXPECT_TRUE(contains(result.out, "all k"));
  std::ifstream in(report);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["protocol"], "mae");
  // The report says which build made it and when it started.
  EXPECT_EQ(json["topkfs_version"], kVersion);
  EXPECT_TRUE(std::regex_match(json["started_utc"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << json["started_utc"];
  EXPECT_EQ(json["runs"].size(), 8u);
  EXPECT_EQ(json["methods"][0]["method"], "ridge");
  std::ifstream rows(csv);
  std::string line;
  int lines = 0;
  while (std::getline(rows, line)) ++lines;
  EXPECT_EQ(lines, 9);  // header + 8 runs
}

TEST(EvaluateCli, BadOptionExitsTwoWithoutOutput) {
  const auto made = planted(SyntheticOptions::Target::Real);
  const std::string data = test::temp_dir() + "/planted_bad.csv";
  write_selected_columns(data, made.data, made.informative);
  const std::string report = test::temp_dir() + "/never.json";
  auto result =
      test::run_cli("evaluate " + data + " --target y --method ridge --k 9 -q --output " + report);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.err, "--k 9 is more than the 4 columns")) << result.err;
  EXPECT_TRUE(result.out.empty());
  EXPECT_FALSE(test::path_exists(report));
  result = test::run_cli("evaluate " + data + " --target y --method ridge --k 1 --protocol bogus");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.err, "unknown protocol 'bogus'")) << result.err;
}

TEST(SelectScore, ReportsTheDownstreamModelOnTheHeldOutRows) {
  const auto made = planted(SyntheticOptions::Target::Real);
  const std::string data = test::temp_dir() + "/planted_score.csv";
  std::vector<std::int64_t> all(30);
  for (std::size_t j = 0; j < all.size(); ++j) all[j] = static_cast<std::int64_t>(j);
  write_selected_columns(data, made.data, all);
  const std::string output = test::temp_dir() + "/scored.json";
  const auto result = test::run_cli("select " + data +
                                    " --target y --method elastic-net-top --k 4 --split random "
                                    "--split-seed 2 --score -q --output " +
                                    output);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "downstream  MAE"));
  const SelectionResult read = read_selection(output);
  ASSERT_TRUE(read.downstream.has_value());
  EXPECT_EQ(read.downstream->metric, "MAE");
  EXPECT_EQ(read.downstream->test_rows, 120);  // ceil(0.2 x 600)
  // The same number as the downstream model fitted here on the same rows.
  const Split split = random_split(600, 0.2, 2);
  EXPECT_NEAR(read.downstream->value,
              score_downstream(made.data, split.train, split.test, read.selected).mae, 1e-5);
}

TEST(SelectScore, NeedsRowsTheMethodDidNotSee) {
  const auto made = planted(SyntheticOptions::Target::Real);
  const std::string data = test::temp_dir() + "/planted_noheld.csv";
  write_selected_columns(data, made.data, made.informative);
  const std::string output = test::temp_dir() + "/never_scored.json";
  const auto result = test::run_cli("select " + data +
                                    " --target y --method ridge --k 2 --score -q "
                                    "--output " +
                                    output);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.err, "add --split random")) << result.err;
  EXPECT_FALSE(test::path_exists(output));
}

TEST(EvaluateReport, ReadBackEqualsWhatWasWritten) {
  const auto made = planted(SyntheticOptions::Target::Real);
  // Detection selects among the columns and as many noise columns.
  for (const Protocol protocol : {Protocol::Mae, Protocol::Stability, Protocol::Detection}) {
    SCOPED_TRACE(to_string(protocol));
    auto options = linear_grid(protocol);
    options.seeds = 3;
    const auto report = evaluate_methods(made.data, options);
    if (protocol == Protocol::Detection) {  // the read must take a noise column's index
      EXPECT_TRUE(std::any_of(report.runs.begin(), report.runs.end(), [&](const auto& run) {
        return *std::max_element(run.selected.begin(), run.selected.end()) >= made.data.cols();
      }));
    }
    const std::string path = test::temp_dir() + "/round_trip.json";
    write_report_json(path, report);
    const auto read = read_report_json(path);
    EXPECT_EQ(report_to_json(read), report_to_json(report));
    EXPECT_EQ(report_table(read), report_table(report));
  }
}

// Each method's summary says which input scaling its fits used, so that a
// table of several methods can say it per method; it survives a round trip.
TEST(EvaluateReport, SummariesRecordTheScalingTheFitsUsed) {
  const auto made = planted(SyntheticOptions::Target::Real);
  auto options = linear_grid(Protocol::Mae);
  options.seeds = 1;
  options.methods = {"elastic-net-top", "random-forest"};
  options.method_options["n-estimators"] = "5";
  auto report = evaluate_methods(made.data, options);
  EXPECT_EQ(report.methods[0].scaling, "standard");
  EXPECT_EQ(report.methods[1].scaling, "");  // trees have no scaling
  options.methods = {"elastic-net-top"};
  options.method_options = {{"scaling", "none"}};
  report = evaluate_methods(made.data, options);
  EXPECT_EQ(report.methods[0].scaling, "none");
  const std::string path = test::temp_dir() + "/scaling.json";
  write_report_json(path, report);
  EXPECT_EQ(read_report_json(path).methods[0].scaling, "none");
}

TEST(EvaluateReport, MergesMethodsOfTheSameGrid) {
  const auto made = planted(SyntheticOptions::Target::Real);
  auto options = linear_grid(Protocol::Mae);
  options.methods = {"ridge", "elastic-net-top"};
  const auto first = evaluate_methods(made.data, options);
  options.methods = {"lasso", "ridge"};
  const auto second = evaluate_methods(made.data, options);
  const auto merged = merge_reports({first, second}, {"a.json", "b.json"});
  ASSERT_EQ(merged.methods.size(), 3u);
  EXPECT_EQ(merged.methods[0].method, "elastic-net-top");
  EXPECT_EQ(merged.methods[1].method, "lasso");
  EXPECT_EQ(merged.methods[2].method, "ridge");
  EXPECT_EQ(merged.runs.size(), 3u * 2u * 2u);
  EXPECT_EQ(merged.topkfs_version, first.topkfs_version);
  EXPECT_EQ(merged.started_utc, first.started_utc);
  // A part made by another build is named in a note.
  auto older = second;
  older.topkfs_version = "0.0.1";
  const auto notes = merge_reports({first, older}, {"a.json", "b.json"}).notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "b.json was made by topkfs 0.0.1, a.json by " + std::string(kVersion)),
            notes.end());
  // The same file by another path (another checkout beside the data) merges;
  // another file does not.
  auto elsewhere = second;
  elsewhere.data.path = "checkout/../" + first.data.path;
  EXPECT_EQ(merge_reports({first, elsewhere}, {"a.json", "b.json"}).methods.size(), 3u);
  elsewhere.data.path = "other_" + first.data.path;
  EXPECT_TRUE(contains(error_of<DataError>([&] {
                         merge_reports({first, elsewhere}, {"a.json", "b.json"});
                       }),
                       "b.json: cannot be merged with a.json: the data differ"));
  options.ks = {1, 2};
  const auto other_ks = evaluate_methods(made.data, options);
  EXPECT_TRUE(contains(error_of<DataError>([&] {
                         merge_reports({first, other_ks}, {"a.json", "c.json"});
                       }),
                       "c.json: cannot be merged with a.json: the k values differ (1,2 here"));
}

TEST(EvaluateReport, RefusesFilesThatAreNotReports) {
  const std::string path =
      test::write_temp_file("not_a_report.json", "{\"format\": \"topkfs-selection/1\"}");
  EXPECT_TRUE(
      contains(error_of<DataError>([&] { read_report_json(path); }), "not an evaluation report"));
  const std::string broken = test::write_temp_file("broken.json", "{\"format\": ");
  EXPECT_TRUE(contains(error_of<DataError>([&] { read_report_json(broken); }),
                       "broken.json: not valid JSON"));
}

TEST(EvaluateReport, TableUsesOneNumberFormatPerColumn) {
  EvaluationReport report;
  report.protocol = Protocol::Mae;
  report.metric = "MAE";
  report.higher_is_better = false;
  report.ks = {10, 20};
  report.seeds = 3;
  MethodSummary large;  // MAE in tens: two decimals in every cell, std included
  large.method = "dnn-top";
  large.per_k = {{47.81, 0.9233, 3}, {45.8, 0.704, 3}};
  large.over_k = {46.805, 1.2, 6};
  MethodSummary small;  // MAE below one: its own decimals, four significant digits
  small.method = "ridge";
  small.per_k = {{0.01234, 0.0005, 3}, {0.0098765, 0.0001, 3}};
  small.over_k = {0.0111, 0.0013, 6};
  report.methods = {large, small};
  const std::string table = report_table(report);
  EXPECT_TRUE(contains(table, "47.81 ± 0.92")) << table;
  EXPECT_TRUE(contains(table, "45.80 ± 0.70")) << table;
  EXPECT_TRUE(contains(table, "46.80 ± 1.20")) << table;
  EXPECT_TRUE(contains(table, "0.01234 ± 0.00050")) << table;
  EXPECT_TRUE(contains(table, "0.00988 ± 0.00010")) << table;
  EXPECT_FALSE(contains(table, "0.704")) << table;

  report.protocol = Protocol::Accuracy;  // percent: two decimals everywhere
  report.methods[0].per_k = {{90.0, 1.5, 3}, {88.25, 0.125, 3}};
  const std::string accuracy = report_table(report);
  EXPECT_TRUE(contains(accuracy, "90.00 ± 1.50")) << accuracy;
  EXPECT_TRUE(contains(accuracy, "88.25 ± 0.12")) << accuracy;
}

}  // namespace
}  // namespace topkfs
