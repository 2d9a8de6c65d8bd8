#pragma once
// Helpers of the suites that fit registered methods on planted synthetic
// problems (dnn_top_test.cpp, baselines_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "topkfs/data/synthetic.hpp"
#include "topkfs/methods/registry.hpp"

namespace topkfs::test {

using OptionValues = std::map<std::string, std::string>;

inline std::vector<std::int64_t> all_rows(const Dataset& data) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(data.rows()));
  std::iota(rows.begin(), rows.end(), 0);
  return rows;
}

// `method` from the registry with `options`, fitted on every row.
inline SelectionResult fit_method(const std::string& method, const Dataset& data, int k,
                                  const OptionValues& options) {
  auto selector = make_selector(method);
  for (const auto& [name, value] : options) selector->set_option(name, value);
  return selector->fit(data, all_rows(data), k, {});
}

// Small, fast settings of the neural methods for the synthetic problems; the
// defaults are tuned for MNIST-sized data (tested in quality_test.cpp). The
// epochs are taken as given (--min-steps 0), whatever the number of rows.
inline const OptionValues kSmallNetwork = {{"hidden", "64,32"}, {"epochs", "60"},  {"batch", "64"},
                                           {"lr", "3e-3"},      {"patience", "0"}, {"threads", "1"},
                                           {"seed", "1"},       {"min-steps", "0"}};

// `base` with `changes` applied.
inline OptionValues with(OptionValues base, const OptionValues& changes) {
  for (const auto& [name, value] : changes) base[name] = value;
  return base;
}

// How many of the selected columns are planted.
inline int recovered(const SelectionResult& result, const std::vector<std::int64_t>& planted) {
  int hits = 0;
  for (auto column : result.selected) {
    hits += std::count(planted.begin(), planted.end(), column) > 0 ? 1 : 0;
  }
  return hits;
}

// Properties every result has, whatever the method found: exactly k distinct
// columns named as in the data, the ranking a permutation whose head is the
// selection, scores that do not increase along it, a history and a fit time.
inline void expect_well_formed(const SelectionResult& result, const Dataset& data, int k) {
  ASSERT_EQ(result.k, k);
  ASSERT_EQ(static_cast<int>(result.selected.size()), k);
  EXPECT_EQ(std::set<std::int64_t>(result.selected.begin(), result.selected.end()).size(),
            static_cast<std::size_t>(k));
  ASSERT_EQ(result.selected_names.size(), result.selected.size());
  ASSERT_EQ(result.scores.size(), static_cast<std::size_t>(data.cols()));
  std::vector<std::int64_t> sorted = result.ranking;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> expected(static_cast<std::size_t>(data.cols()));
  std::iota(expected.begin(), expected.end(), 0);
  ASSERT_EQ(sorted, expected) << "the ranking is not a permutation of the columns";
  EXPECT_TRUE(std::equal(result.selected.begin(), result.selected.end(), result.ranking.begin()));
  for (std::size_t i = 0; i < result.selected.size(); ++i) {
    EXPECT_EQ(result.selected_names[i],
              data.feature_names[static_cast<std::size_t>(result.selected[i])]);
  }
  for (std::size_t i = 1; i < result.ranking.size(); ++i) {
    EXPECT_GE(result.scores[static_cast<std::size_t>(result.ranking[i - 1])],
              result.scores[static_cast<std::size_t>(result.ranking[i])]);
  }
  EXPECT_FALSE(result.history.empty());
  EXPECT_GT(result.fit_seconds, 0.0);
}

// 50 columns, 5 of them planted, no decoys.
inline SyntheticData planted_problem(
    SyntheticOptions::Target target, int classes, std::uint64_t seed, std::int64_t samples = 2000,
    SyntheticOptions::Relation relation = SyntheticOptions::Relation::Nonlinear,
    std::int64_t features = 50) {
  SyntheticOptions options;
  options.samples = samples;
  options.features = features;
  options.informative = 5;
  options.correlated_decoys = 0;
  options.relation = relation;
  options.target = target;
  options.classes = classes;
  options.noise = 0.1;
  options.seed = seed;
  return make_synthetic(options);
}

}  // namespace topkfs::test
