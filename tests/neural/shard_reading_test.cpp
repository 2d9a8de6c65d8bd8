// Each rank of a data-parallel fit reads only its shard's rows (docs/scale.md,
// "What each rank reads"): two ranks over c10d's Gloo, in two threads of this
// process, each reading the features through a RowSource that records which
// rows it handed out. Together they select what one process selects.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "ranks_in_threads.hpp"
#include "topkfs/core/rank_group.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/distributed/process_ranks.hpp"
#include "topkfs/methods/registry.hpp"

namespace topkfs {
namespace {

// The rows of a matrix, counting how often each row was read.
class CountingRows final : public RowSource {
 public:
  explicit CountingRows(const FeatureMatrix& matrix)
      : matrix_(matrix), reads_(static_cast<std::size_t>(matrix.rows())) {}

  std::int64_t row_count() const override { return matrix_.row_count(); }
  std::int64_t column_count() const override { return matrix_.column_count(); }
  RowStorage storage() const override { return RowStorage::RowBlocks; }
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override {
    for (std::size_t i = 0; i < count; ++i) reads_[static_cast<std::size_t>(rows[i])] += 1;
    matrix_.copy_rows(rows, count, out);
  }

  // The rows read at least once.
  std::vector<std::int64_t> rows_read() const {
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < reads_.size(); ++i) {
      if (reads_[i] > 0) out.push_back(static_cast<std::int64_t>(i));
    }
    return out;
  }

 private:
  const FeatureMatrix& matrix_;
  mutable std::vector<std::atomic<long>> reads_;
};

// 1001 rows (uneven shards), 3 informative columns of 16.
SyntheticData planted() {
  SyntheticOptions options;
  options.samples = 1001;
  options.features = 16;
  options.informative = 3;
  options.correlated_decoys = 0;
  options.noise = 0.05;
  options.seed = 11;
  return make_synthetic(options);
}

std::unique_ptr<Selector> dnn_top() {
  auto selector = make_selector("dnn-top");
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"epochs", "5"},
                                                        {"min-steps", "0"},
                                                        {"global-batch", "100"},
                                                        {"lr", "0.01"},
                                                        {"hidden", "16"},
                                                        {"threads", "1"},
                                                        {"seed", "3"}}) {
    selector->set_option(name, value);
  }
  return selector;
}

// The data with its features read through `rows` (Dataset::row_blocks).
Dataset read_through(const Dataset& data, std::shared_ptr<const RowSource> rows) {
  Dataset out = data;
  out.features.resize(data.rows(), 0);
  out.row_blocks = std::move(rows);
  return out;
}

std::vector<std::int64_t> all_rows(std::int64_t n) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
  return rows;
}

TEST(ShardReadingTest, EachRankReadsOnlyItsShardAndTheRanksSelectAsOneProcess) {
  const SyntheticData made = planted();
  const Dataset& data = made.data;
  const auto rows = all_rows(data.rows());
  const SelectionResult alone = dnn_top()->fit(data, rows, 3, {});

  constexpr int kRanks = 2;
  std::vector<std::shared_ptr<CountingRows>> sources;
  std::vector<SelectionResult> results(kRanks);
  for (int r = 0; r < kRanks; ++r) sources.push_back(std::make_shared<CountingRows>(data.features));
  test::run_ranks_in_threads(kRanks, [&](ProcessRanks& ranks, int r) {
    const Dataset mine = read_through(data, sources[static_cast<std::size_t>(r)]);
    FitCallbacks callbacks;
    callbacks.ranks = &ranks;
    results[static_cast<std::size_t>(r)] = dnn_top()->fit(mine, rows, 3, callbacks);
  });
  ASSERT_FALSE(HasFailure());

  std::int64_t read_total = 0;
  for (int r = 0; r < kRanks; ++r) {
    const RowShard shard = row_shard(data.rows(), r, kRanks);
    const auto read = sources[static_cast<std::size_t>(r)]->rows_read();
    // Every row of the shard (training and validation rows alike), none else.
    EXPECT_EQ(read, std::vector<std::int64_t>(rows.begin() + shard.begin, rows.begin() + shard.end))
        << "rank " << r;
    read_total += static_cast<std::int64_t>(read.size());
    EXPECT_EQ(results[static_cast<std::size_t>(r)].selected, alone.selected) << "rank " << r;
  }
  EXPECT_EQ(read_total, data.rows());
  auto chosen = alone.selected;
  std::sort(chosen.begin(), chosen.end());
  EXPECT_EQ(chosen, made.informative);
}

}  // namespace
}  // namespace topkfs
