#pragma once
// The data-parallel side of train_loop (docs/scale.md). Every rank runs the
// same loop on the same global shuffle of the training rows; of each global
// minibatch (N x --batch rows, or --global-batch) it computes the rows in
// its shard only (a row range of the file), then the sums over the ranks
// (GradientBuckets: started during the backward pass, waited for before the
// optimizer step) carry every gradient, the loss and the model's step
// statistics, each weighted by the rank's share of the minibatch: the sum is
// the gradient of the whole minibatch's mean loss, so every rank takes the
// same Adam step as one process would on that minibatch, up to the order of
// the sums. The validation loss is summed the same way, so early stopping
// decides alike on every rank.
#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "neural/train/gradient_buckets.hpp"

#include "topkfs/core/rank_group.hpp"

namespace topkfs {

class DataParallel {
 public:
  // `rows`: the rows of the data the shards divide. `in_memory`: every rank
  // holds every row (RowStorage::InMemory), so that each may compute any of
  // them.
  DataParallel(RankGroup& ranks, std::int64_t rows, bool in_memory);

  RankGroup& ranks() const { return ranks_; }
  const RowShard& shard() const { return shard_; }

  // This rank's rows of rows[begin, end), in their order: with every row in
  // memory, its equal part of the places (row_shard's rule: the first ranks
  // take one more), so that every rank computes as many rows;
  // otherwise the rows in its shard, so that it reads no other.
  void local_rows(const std::vector<std::int64_t>& rows, std::size_t begin, std::size_t end,
                  std::vector<std::int64_t>& out) const;

  // The buckets of the loop's parameters (GradientBuckets: `early`, `cuts`),
  // once, before the first step.
  GradientBuckets& make_buckets(const std::vector<torch::Tensor>& parameters, int early,
                                std::vector<std::int64_t> cuts, std::int64_t bucket_bytes);
  // Before the step's backward pass: `weight`, this rank's share of the
  // minibatch, weights its gradients and loss in the sum.
  void begin_step(double weight);
  // The sum over the ranks: each parameter's .grad and each tensor of
  // `statistics` (float, contiguous; replaced in place), and the loss, all
  // times the step's weight first. Returns the minibatch's loss. A gradient
  // that is undefined on every rank stays undefined; the others become views
  // of the buckets' buffers.
  double sum_step(std::vector<torch::Tensor>& parameters, double loss,
                  const std::vector<torch::Tensor>& statistics);
  // The time a step waited for its sums, on average over the steps so far
  // (the sums' time that the backward pass did not hide, the wait for the
  // slowest rank included), in milliseconds; and the buckets a step.
  double sum_wait_ms() const { return steps_ > 0 ? 1e3 * wait_seconds_ / steps_ : 0.0; }
  int buckets() const { return buckets_ ? buckets_->count() : 1; }

  // The mean over the ranks of a loss whose sum over `count` rows this rank
  // computed.
  double mean_over_ranks(double sum, std::size_t count) const;

 private:
  RankGroup& ranks_;
  RowShard shard_;
  bool by_places_;  // local_rows: by places rather than by shard
  std::optional<GradientBuckets> buckets_;
  double wait_seconds_ = 0.0;
  long steps_ = 0;
};

}  // namespace topkfs
