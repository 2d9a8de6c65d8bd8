#pragma once
// The data-parallel side of train_loop (docs/scale.md). Every rank runs the
// same loop on the same global shuffle of the training rows; of each global
// minibatch it computes the rows in its shard only (a row range of the
// file), then one sum over the ranks per step carries every gradient, the
// loss and the model's step statistics, each weighted by the rank's share of
// the minibatch: the sum is the gradient of the whole minibatch's mean loss,
// so every rank takes the same Adam step as one process would, up to the
// order of the sums. The validation loss is summed the same way, so early
// stopping decides alike on every rank.
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "topkfs/core/rank_group.hpp"

namespace topkfs {

class DataParallel {
 public:
  // `rows`: the rows of the data the shards divide.
  DataParallel(RankGroup& ranks, std::int64_t rows);

  RankGroup& ranks() const { return ranks_; }
  const RowShard& shard() const { return shard_; }

  // The rows of rows[begin, end) in this rank's shard, in their order.
  void local_rows(const std::vector<std::int64_t>& rows, std::size_t begin, std::size_t end,
                  std::vector<std::int64_t>& out) const;

  // One sum over the ranks: each parameter's .grad and each tensor of
  // `statistics` (float, contiguous; replaced in place), and the loss, all
  // times `weight` (this rank's share of the minibatch) first. Returns the
  // minibatch's loss. A gradient that is undefined on every rank stays
  // undefined; the others become views of one buffer.
  double sum_step(std::vector<torch::Tensor>& parameters, double loss, double weight,
                  const std::vector<torch::Tensor>& statistics);

  // The mean over the ranks of a loss whose sum over `count` rows this rank
  // computed.
  double mean_over_ranks(double sum, std::size_t count) const;

 private:
  RankGroup& ranks_;
  RowShard shard_;
  torch::Tensor buffer_;  // flat float, reused while its size fits
};

}  // namespace topkfs
