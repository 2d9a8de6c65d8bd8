// The six linear methods as Selectors: exactly k features for every k, the
// path rule for the plain models, options per model, targets they accept and
// refuse, warnings, and the model in the result.
#include "topkfs/linear/linear_selector.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "../linear/linear_test_support.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/linear/marginal_screen.hpp"
#include "topkfs/select/run_selection.hpp"

namespace topkfs {
namespace {

struct Variant {
  LinearModel model;
  bool top_k;
};

const Variant variants[] = {{LinearModel::Lasso, false},      {LinearModel::Lasso, true},
                            {LinearModel::Ridge, false},      {LinearModel::Ridge, true},
                            {LinearModel::ElasticNet, false}, {LinearModel::ElasticNet, true}};

Dataset synthetic(std::int64_t samples = 200, std::int64_t features = 30,
                  SyntheticOptions::Target target = SyntheticOptions::Target::Real,
                  int classes = 2) {
  SyntheticOptions options;
  options.samples = samples;
  options.features = features;
  options.informative = 5;
  options.correlated_decoys = 5;
  options.target = target;
  options.classes = classes;
  options.noise = 0.3;
  options.seed = 11;
  return make_synthetic(options).data;
}

SelectionResult select(Selector& selector, const Dataset& data, int k) {
  return selector.fit(data, test::all_rows(data.rows()), k, {});
}

TEST(LinearSelector, EveryMethodReturnsExactlyKFeatures) {
  const Dataset data = synthetic();
  for (const auto& variant : variants) {
    for (const int k : {1, 5, 12, 30}) {
      auto selector = make_linear_selector(variant.model, variant.top_k);
      SCOPED_TRACE(fmt::format("{} k = {}", selector->name(), k));
      const SelectionResult result = select(*selector, data, k);
      EXPECT_EQ(result.method, linear_method_name(variant.model, variant.top_k));
      EXPECT_EQ(result.k, k);
      ASSERT_EQ(result.selected.size(), static_cast<std::size_t>(k));
      ASSERT_EQ(result.ranking.size(), 30u);
      ASSERT_EQ(result.scores.size(), 30u);
      std::vector<std::int64_t> sorted = result.ranking;
      std::sort(sorted.begin(), sorted.end());
      for (std::int64_t j = 0; j < 30; ++j) EXPECT_EQ(sorted[static_cast<std::size_t>(j)], j);
      EXPECT_TRUE(
          std::equal(result.selected.begin(), result.selected.end(), result.ranking.begin()));
      // By score, after the columns that pass the marginal screen.
      LinearProblem problem = test::make_problem(data);
      const auto passes =
          passes_screen(marginal_score_statistics(problem), 1, LinearOptions{}.screen_level);
      for (std::size_t i = 1; i < result.ranking.size(); ++i) {
        const auto before = static_cast<std::size_t>(result.ranking[i - 1]);
        const auto after = static_cast<std::size_t>(result.ranking[i]);
        EXPECT_GE(passes[before], passes[after]);
        if (passes[before] == passes[after]) EXPECT_GE(result.scores[before], result.scores[after]);
      }
      // Scores are |w| on the standardised columns: the model in the result
      // holds w / sd on the original ones.
      const auto& coefficients = result.options.at("model").at("coefficients");
      ASSERT_EQ(coefficients.size(), 30u);
      for (std::size_t j = 0; j < 30; ++j) {
        EXPECT_NEAR(result.scores[j],
                    std::abs(coefficients[j].get<double>()) *
                        problem.column_scale()[static_cast<Eigen::Index>(j)],
                    1e-9 * std::max(1.0, result.scores[j]));
      }
      EXPECT_TRUE(result.options.at("converged").get<bool>());
      EXPECT_FALSE(result.history.empty());
      if (result.options.at("nonzero").get<int>() >= k) {
        EXPECT_TRUE(result.warnings.empty()) << fmt::format("{}", fmt::join(result.warnings, "\n"));
      } else {
        // Only a Lasso asked for every column may run out of non-zero weights.
        EXPECT_EQ(variant.model, LinearModel::Lasso);
        EXPECT_EQ(k, 30);
        ASSERT_EQ(result.warnings.size(), 1u);
        EXPECT_NE(result.warnings[0].find("fewer than k = 30"), std::string::npos);
      }
    }
  }
}

TEST(LinearSelector, PlainModelsStopAtTheFirstPathPointWithKNonZeroWeights) {
  const Dataset data = synthetic();
  for (const auto model : {LinearModel::Lasso, LinearModel::ElasticNet}) {
    auto selector = make_linear_selector(model, false);
    selector->set_option("screen-level", "0");  // by weight alone (the screen: linear_screen_test)
    const int k = 7;
    const SelectionResult result = select(*selector, data, k);
    const auto point = result.options.at("path_point").get<std::size_t>();
    // The same path by hand: the point before has fewer than k non-zero weights.
    LinearProblem problem = test::make_problem(data);
    LinearPenalty penalty;
    penalty.lambda1 = model == LinearModel::Lasso ? 0.0 : LinearOptions{}.lambda1;
    const auto grid = lambda2_grid(lambda2_max(problem, penalty), 100, 1e-3);
    const auto path = fit_linear_path(problem, penalty, grid, {});
    ASSERT_GT(point, 1u);
    EXPECT_LT(path[point - 2].nonzero(), k);
    EXPECT_GE(path[point - 1].nonzero(), k);
    EXPECT_DOUBLE_EQ(result.options.at("lambda2_used").get<double>(), grid[point - 1]);
    // Ranked by |w| there.
    EXPECT_EQ(result.selected.size(), static_cast<std::size_t>(k));
    auto expected = top_k_columns(path[point - 1].coef_std, k);
    auto selected = result.selected;
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, expected);
  }
}

TEST(LinearSelector, TopKModelsWalkTheWholePathAndSelectByTheTopKTerm) {
  const Dataset data = synthetic();
  auto selector = make_linear_selector(LinearModel::ElasticNet, true);
  EXPECT_EQ(selector->options_json().at("path-stop"), "end");
  const SelectionResult result = select(*selector, data, 5);
  EXPECT_EQ(result.options.at("path_point").get<int>(), 100);
  EXPECT_GE(result.options.at("nonzero").get<int>(), 5);
  // A plain model stops early by default, and can be told to walk to the end.
  auto plain = make_linear_selector(LinearModel::ElasticNet, false);
  EXPECT_EQ(plain->options_json().at("path-stop"), "k");
  plain->set_option("path-stop", "end");
  EXPECT_EQ(select(*plain, data, 5).options.at("path_point").get<int>(), 100);
}

TEST(LinearSelector, EachModelTakesItsOwnOptions) {
  auto lasso = make_linear_selector(LinearModel::Lasso, false);
  EXPECT_FALSE(lasso->has_option("lambda1"));
  EXPECT_FALSE(lasso->has_option("lambda3"));
  EXPECT_TRUE(lasso->has_option("lambda2"));
  EXPECT_THROW(lasso->set_option("lambda1", "0.5"), OptionError);
  try {
    lasso->set_option("lambda3", "1");
    FAIL() << "lambda3 accepted by lasso";
  } catch (const OptionError& error) {
    EXPECT_NE(std::string(error.what()).find("lasso-top"), std::string::npos) << error.what();
  }
  auto ridge = make_linear_selector(LinearModel::Ridge, true);
  EXPECT_FALSE(ridge->has_option("lambda2"));
  EXPECT_FALSE(ridge->has_option("eps"));
  EXPECT_TRUE(ridge->has_option("lambda3"));
  EXPECT_EQ(ridge->options_json().at("lambda1"), LinearOptions{}.lambda1);

  auto top = make_linear_selector(LinearModel::ElasticNet, true);
  std::vector<std::string> names;
  for (const auto& info : top->describe_options()) names.push_back(info.name);
  for (const char* name : {"lambda1", "lambda2", "lambda3", "tol", "max-iter", "path-points", "eps",
                           "path-stop", "solver", "screen-level", "threads"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  for (const auto& info : lasso->describe_options()) {
    EXPECT_NE(info.name, "lambda1");
    if (info.name == "path-stop") EXPECT_EQ(info.default_text, "k");
  }
  for (const auto& info : make_linear_selector(LinearModel::Lasso, true)->describe_options()) {
    if (info.name == "path-stop") EXPECT_EQ(info.default_text, "end");
  }

  const Dataset data = synthetic();
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"lambda1", "-1"},
                                                        {"lambda3", "-0.5"},
                                                        {"tol", "0"},
                                                        {"max-iter", "0"},
                                                        {"path-points", "0"},
                                                        {"eps", "1"},
                                                        {"solver", "gram"},
                                                        {"path-stop", "never"},
                                                        {"screen-level", "1.5"},
                                                        {"threads", "-2"}}) {
    auto selector = make_linear_selector(LinearModel::ElasticNet, true);
    try {
      selector->set_option(name, value);  // a choice is refused here, a number at the fit
      select(*selector, data, 3);
      ADD_FAILURE() << "--" << name << " " << value << " accepted";
    } catch (const OptionError& error) {
      EXPECT_NE(test::as_command_line(error.what()).find("--" + name), std::string::npos)
          << error.what();
    }
  }
  EXPECT_THROW(top->set_option("lambda1", "abc"), OptionError);
  EXPECT_THROW(top->set_option("epochs", "3"), OptionError);
}

TEST(LinearSelector, GivenLambda2FitsOnceAndWarnsWhenFewerThanKWeightsAreNonZero) {
  const Dataset data = synthetic();
  auto selector = make_linear_selector(LinearModel::Lasso, false);
  selector->set_option("lambda2", "1e9");  // zeroes everything
  const SelectionResult result = select(*selector, data, 4);
  EXPECT_EQ(result.selected.size(), 4u);
  EXPECT_EQ(result.options.at("nonzero").get<int>(), 0);
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_NE(result.warnings[0].find("only 0 weights are non-zero"), std::string::npos);
  EXPECT_FALSE(result.options.contains("path_point"));

  auto small = make_linear_selector(LinearModel::ElasticNet, true);
  small->set_option("lambda2", "0.001");
  const SelectionResult fitted = select(*small, data, 4);
  EXPECT_TRUE(fitted.warnings.empty());
  EXPECT_DOUBLE_EQ(fitted.options.at("lambda2_used").get<double>(), 0.001);
}

// Zero weights tie at score 0; they are ranked by how close each is to
// entering (|x_j'r| / n), not by column order. With every weight zero that is
// |x_j'(y - mean)| / n on the standardised columns, for a real target and, as
// the intercepts-only residual of two classes is the 0/1 label minus its mean,
// for the binomial family too.
TEST(LinearSelector, ZeroWeightsRankByHowCloseEachIsToEntering) {
  for (const auto target : {SyntheticOptions::Target::Real, SyntheticOptions::Target::Classes}) {
    const Dataset data = synthetic(200, 30, target);
    auto selector = make_linear_selector(LinearModel::Lasso, false);
    selector->set_option("lambda2", "1e9");  // zeroes everything
    const SelectionResult result = select(*selector, data, 6);
    ASSERT_EQ(result.options.at("nonzero").get<int>(), 0);
    EXPECT_NE(result.warnings.at(0).find("how close each is to entering"), std::string::npos);

    Eigen::VectorXd y(data.rows());
    for (Eigen::Index i = 0; i < y.size(); ++i) {
      y[i] = target == SyntheticOptions::Target::Real
                 ? data.targets(i, 0)
                 : static_cast<double>(data.labels[static_cast<std::size_t>(i)]);
    }
    const Eigen::VectorXd centred = (y.array() - y.mean()).matrix();
    const LinearProblem problem(data.features, test::all_rows(data.rows()), centred);
    Eigen::VectorXd closeness(data.cols());
    for (Eigen::Index j = 0; j < closeness.size(); ++j) {
      closeness[j] = std::abs(problem.x().col(j).dot(centred));
    }
    std::vector<std::int64_t> expected(static_cast<std::size_t>(data.cols()));
    std::iota(expected.begin(), expected.end(), 0);
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::int64_t a, std::int64_t b) { return closeness[a] > closeness[b]; });
    expected.resize(6);
    EXPECT_EQ(result.selected, expected);
  }
}

TEST(LinearSelector, NonConvergenceIsAWarningNotAnError) {
  const Dataset data = synthetic(100, 60);
  auto selector = make_linear_selector(LinearModel::ElasticNet, false);
  selector->set_option("lambda2", "0.001");
  selector->set_option("max-iter", "2");
  const SelectionResult result = select(*selector, data, 5);
  EXPECT_EQ(result.selected.size(), 5u);
  ASSERT_FALSE(result.warnings.empty());
  EXPECT_NE(result.warnings[0].find("did not converge"), std::string::npos) << result.warnings[0];
  EXPECT_NE(test::as_command_line(result.warnings[0]).find("--max-iter"), std::string::npos);
  EXPECT_FALSE(result.options.at("converged").get<bool>());
  EXPECT_EQ(result.options.at("sweeps").get<int>(), 2);
}

// The methods see rows, not files: a DataError about the rows they learn
// from names the data it came from (the message named no file).
TEST(LinearSelector, AProblemWithTheRowsNamesTheDataFile) {
  Dataset data = synthetic(60, 10, SyntheticOptions::Target::Classes, 3);
  for (auto& label : data.labels) label = label == 2 ? 0 : label;
  data.source = "three-classes.csv";
  auto selector = make_linear_selector(LinearModel::Lasso, true);
  SelectionSplitOptions split;
  split.rows = SelectionRows::All;
  const std::string message =
      test::error_of<DataError>([&] { run_selection(data, *selector, 3, split, {}); });
  EXPECT_EQ(message.rfind("three-classes.csv: class 2 has no training row", 0), 0u) << message;
}

// A path whose points stop short of convergence warns once, naming how many
// points did (a warning per point was dozens of lines for one fit).
TEST(LinearSelector, APathThatStopsShortWarnsOnce) {
  const Dataset data = synthetic(100, 60);
  auto selector = make_linear_selector(LinearModel::ElasticNet, true);
  selector->set_option("path-points", "20");
  selector->set_option("path-stop", "end");
  selector->set_option("max-iter", "1");
  const SelectionResult result = select(*selector, data, 5);
  ASSERT_EQ(result.warnings.size(), 1u) << fmt::format("{}", fmt::join(result.warnings, "\n"));
  EXPECT_NE(result.warnings[0].find("did not converge at"), std::string::npos)
      << result.warnings[0];
  EXPECT_NE(result.warnings[0].find("of the path's 20 points"), std::string::npos)
      << result.warnings[0];
  EXPECT_FALSE(result.options.at("converged").get<bool>());
}

TEST(LinearSelector, TwoClassesWithTheGaussianFamilyAreARegressionWithANote) {
  const Dataset data = synthetic(200, 30, SyntheticOptions::Target::Classes, 2);
  auto selector = make_linear_selector(LinearModel::ElasticNet, true);
  selector->set_option("family", "gaussian");
  const SelectionResult result = select(*selector, data, 5);
  EXPECT_EQ(result.selected.size(), 5u);
  EXPECT_EQ(result.options.at("task"), "binary-as-regression");
  const bool noted =
      std::any_of(result.notes.begin(), result.notes.end(), [](const std::string& note) {
        return note.find("as a regression") != std::string::npos &&
               note.find("'0' = 0") != std::string::npos;
      });
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(result.notes, "\n"));
}

TEST(LinearSelector, RefusesTargetsItCannotFit) {
  auto selector = make_linear_selector(LinearModel::Lasso, true);
  const Dataset three = synthetic(90, 20, SyntheticOptions::Target::Classes, 3);
  try {
    auto gaussian = make_linear_selector(LinearModel::Lasso, true);
    gaussian->set_option("family", "gaussian");
    select(*gaussian, three, 3);
    FAIL() << "three classes accepted as a regression";
  } catch (const DataError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("3 classes"), std::string::npos) << message;
    EXPECT_NE(message.find("dnn-top"), std::string::npos) << message;
  }
  Dataset two_outputs = synthetic();
  two_outputs.targets.conservativeResize(Eigen::NoChange, 2);
  two_outputs.targets.col(1).setOnes();
  two_outputs.target_names = {"a", "b"};
  try {
    select(*selector, two_outputs, 3);
    FAIL() << "two target columns accepted";
  } catch (const DataError& error) {
    EXPECT_NE(test::as_command_line(error.what()).find("--target"), std::string::npos)
        << error.what();
  }
  Dataset none = synthetic();
  none.target_kind = TargetKind::None;
  EXPECT_THROW(select(*selector, none, 3), DataError);
  EXPECT_THROW(select(*selector, synthetic(), 0), OptionError);
  EXPECT_THROW(select(*selector, synthetic(), 31), OptionError);
}

TEST(LinearSelector, LearnsFromTheGivenRowsOnly) {
  const Dataset data = synthetic(300, 30);
  std::vector<std::int64_t> rows;
  for (std::int64_t i = 0; i < data.rows(); i += 3) rows.push_back(i);
  auto on_rows = make_linear_selector(LinearModel::ElasticNet, true);
  const SelectionResult a = on_rows->fit(data, rows, 6, {});
  auto on_copy = make_linear_selector(LinearModel::ElasticNet, true);
  const SelectionResult b = select(*on_copy, take_rows(data, rows), 6);
  EXPECT_EQ(a.selected, b.selected);
  for (std::size_t j = 0; j < a.scores.size(); ++j) EXPECT_NEAR(a.scores[j], b.scores[j], 1e-12);
}

TEST(LinearSelector, ClassTargetsChooseTheirFamily) {
  for (const int classes : {2, 3}) {
    SCOPED_TRACE(fmt::format("{} classes", classes));
    const Dataset data = synthetic(150, 20, SyntheticOptions::Target::Classes, classes);
    auto selector = make_linear_selector(LinearModel::ElasticNet, false);
    const SelectionResult result = select(*selector, data, 4);
    EXPECT_EQ(result.selected.size(), 4u);
    const std::string family = classes == 2 ? "binomial" : "multinomial";
    EXPECT_EQ(result.options.at("family_used"), family);
    EXPECT_EQ(result.options.at("task"), family);
    const auto& model = result.options.at("model");
    ASSERT_EQ(model.at("coefficients").size(), 20u);
    if (classes == 2) {
      EXPECT_TRUE(model.at("coefficients")[0].is_number());
      EXPECT_EQ(model.at("log_odds_of"), data.class_names[1]);
    } else {
      EXPECT_EQ(model.at("coefficients")[0].size(), 3u);
      EXPECT_EQ(model.at("intercept").size(), 3u);
    }
  }
}

TEST(LinearSelector, FamiliesAndScalingsThatDoNotFitAreRefused) {
  auto multinomial = make_linear_selector(LinearModel::Lasso, false);
  multinomial->set_option("family", "multinomial");
  EXPECT_THROW(select(*multinomial, synthetic(), 3), DataError);
  auto binomial = make_linear_selector(LinearModel::Lasso, false);
  binomial->set_option("family", "binomial");
  try {
    select(*binomial, synthetic(90, 20, SyntheticOptions::Target::Classes, 3), 3);
    FAIL() << "binomial accepted three classes";
  } catch (const DataError& error) {
    EXPECT_NE(test::as_command_line(error.what()).find("--family multinomial"), std::string::npos);
  }
  auto bad = make_linear_selector(LinearModel::Lasso, false);
  EXPECT_THROW(bad->set_option("family", "poisson"), OptionError);
  auto minmax = make_linear_selector(LinearModel::Lasso, false);
  EXPECT_THROW(minmax->set_option("scaling", "minmax"), OptionError);
}

}  // namespace
}  // namespace topkfs
