#pragma once
// Helpers of the baseline selectors' tests: planted-support data and how much
// of the support a selection recovers.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "../linear/linear_test_support.hpp"
#include "test_support.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/io/table_writer.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs::test {

// `informative` of `features` standard-normal columns carry the target
// (linear relation, 10% noise), the rest are independent noise.
inline SyntheticData planted(SyntheticOptions::Target target, int classes = 2,
                             std::int64_t samples = 400, std::int64_t features = 60,
                             int informative = 6, std::uint64_t seed = 5) {
  SyntheticOptions options;
  options.samples = samples;
  options.features = features;
  options.informative = informative;
  options.correlated_decoys = 0;
  options.target = target;
  options.classes = classes;
  options.seed = seed;
  return make_synthetic(options);
}

inline SelectionResult fit_all_rows(Selector& selector, const Dataset& data, int k) {
  return selector.fit(data, all_rows(data.rows()), k, {});
}

// Every column and the target of `data` as a CSV file `name` in temp_dir().
inline std::string write_csv(const Dataset& data, const std::string& name) {
  std::vector<std::int64_t> columns(static_cast<std::size_t>(data.cols()));
  std::iota(columns.begin(), columns.end(), 0);
  const std::string path = temp_dir() + "/" + name;
  write_selected_columns(path, data, columns);
  return path;
}

// How many of `selected` are in `support`.
inline int recovered(const std::vector<std::int64_t>& selected,
                     const std::vector<std::int64_t>& support) {
  return static_cast<int>(std::count_if(selected.begin(), selected.end(), [&](std::int64_t j) {
    return std::find(support.begin(), support.end(), j) != support.end();
  }));
}

// The selection is exactly k columns, the head of a ranking of every column
// that orders the scores.
inline void expect_well_formed(const SelectionResult& result, std::int64_t columns, int k) {
  EXPECT_EQ(result.k, k);
  ASSERT_EQ(result.selected.size(), static_cast<std::size_t>(k));
  ASSERT_EQ(result.ranking.size(), static_cast<std::size_t>(columns));
  ASSERT_EQ(result.scores.size(), static_cast<std::size_t>(columns));
  std::vector<std::int64_t> sorted = result.ranking;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t j = 0; j < columns; ++j) EXPECT_EQ(sorted[static_cast<std::size_t>(j)], j);
  EXPECT_TRUE(std::equal(result.selected.begin(), result.selected.end(), result.ranking.begin()));
  for (std::size_t i = 1; i < result.ranking.size(); ++i) {
    EXPECT_GE(result.scores[static_cast<std::size_t>(result.ranking[i - 1])],
              result.scores[static_cast<std::size_t>(result.ranking[i])]);
  }
}

}  // namespace topkfs::test
