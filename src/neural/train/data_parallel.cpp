#include "data_parallel.hpp"

#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {

DataParallel::DataParallel(RankGroup& ranks, std::int64_t rows, bool in_memory)
    : ranks_(ranks), shard_(row_shard(rows, ranks.rank(), ranks.size())), by_places_(in_memory) {}

void DataParallel::local_rows(const std::vector<std::int64_t>& rows, std::size_t begin,
                              std::size_t end, std::vector<std::int64_t>& out) const {
  out.clear();
  if (by_places_) {
    // row_shard's rule over the places: the first ranks hold one more.
    const RowShard part =
        row_shard(static_cast<std::int64_t>(end - begin), ranks_.rank(), ranks_.size());
    out.assign(rows.begin() + static_cast<std::ptrdiff_t>(begin + part.begin),
               rows.begin() + static_cast<std::ptrdiff_t>(begin + part.end));
    return;
  }
  for (std::size_t i = begin; i < end; ++i) {
    if (shard_.contains(rows[i])) out.push_back(rows[i]);
  }
}

GradientBuckets& DataParallel::make_buckets(const std::vector<torch::Tensor>& parameters, int early,
                                            std::vector<std::int64_t> cuts,
                                            std::int64_t bucket_bytes) {
  buckets_.emplace(ranks_, parameters, early, std::move(cuts), bucket_bytes);
  return *buckets_;
}

void DataParallel::begin_step(double weight) {
  TOPKFS_ASSERT(buckets_);
  buckets_->begin_step(weight);
}

double DataParallel::sum_step(std::vector<torch::Tensor>& parameters, double loss,
                              const std::vector<torch::Tensor>& statistics) {
  const auto start = Clock::now();
  const double sum = buckets_->finish(parameters, loss, statistics);
  wait_seconds_ += seconds_since(start);
  ++steps_;
  return sum;
}

double DataParallel::mean_over_ranks(double sum, std::size_t count) const {
  double parts[2] = {sum, static_cast<double>(count)};
  ranks_.sum(parts, 2);
  return parts[0] / parts[1];
}

}  // namespace topkfs
