// Selecting whole groups of columns (select/group_selection.hpp): a planted
// support whose informative columns each sit in a group with a noise column,
// recovered as groups by dnn-top (its mask on whole groups), stg, concrete
// and fir (their gates, nodes and masks on whole groups), dfs and
// random-forest (their column scores summed or normed into groups).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "selection_test_support.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/select/group_selection.hpp"

namespace topkfs {
namespace {

using namespace test;  // NOLINT: the suite's helpers

const OptionValues& kSmall = kSmallNetwork;

// Each planted column shares a group with the noise column after it (or
// before it, at the end); every other column is a group of its own.
struct Grouped {
  Dataset data;
  std::set<std::int64_t> planted_groups;
};

Grouped grouped_problem() {
  SyntheticData made = planted_problem(SyntheticOptions::Target::Classes, 3, 5, 1500);
  Grouped out;
  out.data = std::move(made.data);
  const auto m = out.data.cols();
  std::vector<std::int64_t> partner(static_cast<std::size_t>(m), -1);
  for (auto j : made.informative) {
    std::int64_t other = j + 1 < m ? j + 1 : j - 1;
    while (std::count(made.informative.begin(), made.informative.end(), other) > 0 ||
           partner[static_cast<std::size_t>(other)] >= 0) {
      other = (other + 1) % m;
    }
    partner[static_cast<std::size_t>(j)] = other;
    partner[static_cast<std::size_t>(other)] = j;
  }
  std::vector<std::int64_t> group_of(static_cast<std::size_t>(m), -1);
  for (std::int64_t j = 0; j < m; ++j) {
    if (group_of[static_cast<std::size_t>(j)] >= 0) continue;
    const auto g = static_cast<std::int64_t>(out.data.group_names.size());
    out.data.group_names.push_back("g" + std::to_string(g));
    group_of[static_cast<std::size_t>(j)] = g;
    if (partner[static_cast<std::size_t>(j)] >= 0) {
      group_of[static_cast<std::size_t>(partner[static_cast<std::size_t>(j)])] = g;
    }
  }
  out.data.column_group = group_of;
  for (auto j : made.informative) out.planted_groups.insert(group_of[static_cast<std::size_t>(j)]);
  out.data.validate();
  return out;
}

int recovered_groups(const SelectionResult& result, const std::set<std::int64_t>& planted) {
  return static_cast<int>(std::count_if(result.selected.begin(), result.selected.end(),
                                        [&](std::int64_t g) { return planted.count(g) > 0; }));
}

TEST(GroupSelection, EveryKindOfMethodRecoversThePlantedGroups) {
  const Grouped problem = grouped_problem();
  const auto groups = static_cast<std::size_t>(problem.data.group_count());
  ASSERT_EQ(groups, 45u);
  for (const std::string method : {"dnn-top", "dfs", "random-forest", "stg", "concrete", "fir"}) {
    SCOPED_TRACE(method);
    auto selector = make_selector(method);
    if (method != "random-forest") {
      // concrete's nodes need a faster rate, smaller batches and more steps
      // (its own small settings, baselines_test.cpp, and 100 epochs) to
      // settle on 1500 rows: at 40 epochs it keeps 3 planted groups, as it
      // does fitted on the columns alone.
      const OptionValues options =
          method == "concrete" ? with(kSmall, {{"lr", "1e-2"}, {"batch", "32"}, {"epochs", "100"}})
                               : kSmall;
      for (const auto& [name, value] : options) selector->set_option(name, value);
    }
    const SelectionResult result =
        fit_groups(*selector, problem.data, all_rows(problem.data), 5, {});
    EXPECT_EQ(result.k, 5);
    ASSERT_EQ(result.scores.size(), groups);
    ASSERT_EQ(result.ranking.size(), groups);
    EXPECT_GE(recovered_groups(result, problem.planted_groups), 4)
        << fmt::format("{}", fmt::join(result.selected, ","));
    EXPECT_EQ(result.selected_names[0],
              problem.data.group_names[static_cast<std::size_t>(result.selected[0])]);
  }
}

// stg's gates, concrete's nodes and fir's masks act on groups: fitted on
// grouped data, every column of a group carries the group's score, and k
// counts groups.
TEST(GroupSelection, TheNeuralBaselinesTrainOnWholeGroups) {
  const Grouped problem = grouped_problem();
  for (const std::string method : {"stg", "concrete", "fir"}) {
    SCOPED_TRACE(method);
    auto selector = make_selector(method);
    for (const auto& [name, value] : kSmall) selector->set_option(name, value);
    selector->set_option("epochs", "5");
    EXPECT_TRUE(selector->selects_groups());
    const SelectionResult columns =
        selector->fit(problem.data, all_rows(problem.data), 5, FitCallbacks{});
    ASSERT_EQ(columns.scores.size(), static_cast<std::size_t>(problem.data.cols()));
    std::vector<double> group_score(problem.data.group_names.size(), std::nan(""));
    for (std::size_t j = 0; j < columns.scores.size(); ++j) {
      double& score = group_score[static_cast<std::size_t>(problem.data.column_group[j])];
      if (std::isnan(score)) score = columns.scores[j];
      EXPECT_EQ(columns.scores[j], score) << "column " << j;
    }
    const SelectionResult groups =
        fit_groups(*selector, problem.data, all_rows(problem.data), 5, {});
    ASSERT_EQ(groups.selected.size(), 5u);
    for (std::size_t g = 0; g < group_score.size(); ++g) {
      EXPECT_EQ(groups.scores[g], group_score[g]) << "group " << g;
    }
  }
}

TEST(GroupSelection, KCountsGroupsWithColumns) {
  Grouped problem = grouped_problem();
  problem.data.group_names.push_back("empty");  // a dropped column's group
  auto selector = make_selector("random-forest");
  const auto message = error_of<OptionError>(
      [&] { fit_groups(*selector, problem.data, all_rows(problem.data), 46, {}); });
  EXPECT_NE(message.find("--k 46 is out of range"), std::string::npos) << message;
  EXPECT_NE(message.find("45 columns that can be selected (1 of 46 were dropped"),
            std::string::npos)
      << message;
  const SelectionResult all = fit_groups(*selector, problem.data, all_rows(problem.data), 45, {});
  EXPECT_EQ(all.ranking.back(), 45);  // the empty group ranks last
}

TEST(GroupSelection, ColumnsForGroupsScalesKByTheMeanWidth) {
  const Grouped problem = grouped_problem();  // 50 columns in 45 groups
  EXPECT_EQ(columns_for_groups(problem.data, 9), 10);
  EXPECT_EQ(columns_for_groups(problem.data, 1), 1);
  EXPECT_EQ(columns_for_groups(problem.data, 45), 50);
}

}  // namespace
}  // namespace topkfs
