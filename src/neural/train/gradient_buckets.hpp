#pragma once
// The ranks' sum of a step's gradients in buckets started while the
// backward pass still runs, as PyTorch DDP's reducer does. The weights of a
// team step's fused first layer (four fifths of dnn-top's gradient bytes)
// are finished unit block by unit block (TeamFirstLayer); consecutive unit
// blocks make buckets of at least `bucket_bytes`, and each bucket's sum
// starts as soon as its rows are final, while the rest is computed;
// everything else (the other gradients, the model's step statistics, the
// loss) follows in one last bucket when the backward pass is done, and the
// step waits for all before the optimizer step. Weights too small for two
// such buckets go into the last bucket: each sum has a fixed cost (hand-offs
// between threads and processes) that a small bucket does not repay.
//
// The sums start in bucket order on every rank and the layout is fixed by
// the parameters' sizes. With 2 ranks every element's sum is a0 + a1 in any
// bucket, so the buckets change no bit of it; with more, the order of an
// element's additions follows its place in its bucket (Gloo's ring), which
// the layout fixes: a seed gives one result for a given number of ranks.
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "topkfs/core/rank_group.hpp"

namespace topkfs {

// The least bytes of an early bucket (PyTorch DDP's first bucket is 1 MB):
// dnn-top's first layer on MNIST (256 x 784 floats, 0.8 MB) is summed in the
// last bucket, whose sum then is the step's one; on this 2-core machine, whose
// cores both compute, three sums a step measured slower than one (2.4 to 2.7
// s an epoch against 1.05 s, bench/scale/results/2026-12-07-ddp-convention.md).
constexpr std::int64_t kBucketBytes = std::int64_t{1} << 20;

class GradientBuckets {
 public:
  // `early`: the index in `parameters` of the weights whose gradient rows
  // arrive by ranges during the backward pass, the ranges' first rows
  // `cuts` (from 0, ending with the parameter's rows); -1 for none (one
  // bucket a step). Consecutive ranges make buckets of `bucket_bytes` or
  // more.
  GradientBuckets(RankGroup& ranks, const std::vector<torch::Tensor>& parameters, int early,
                  std::vector<std::int64_t> cuts, std::int64_t bucket_bytes);
  GradientBuckets(const GradientBuckets&) = delete;
  GradientBuckets& operator=(const GradientBuckets&) = delete;
  ~GradientBuckets();

  // Before a step's backward pass: this rank's gradients are weighted by
  // `weight` (its share of the minibatch) in the sum.
  void begin_step(double weight);
  // Range `range` of the early weights' gradient is final at `rows`
  // (contiguous floats): its bucket's sum starts once all its ranges are and
  // the buckets before it have started. From any thread; once a step at most
  // per range.
  void rows_ready(int range, const float* rows);
  // After the backward pass: starts the ranges not started yet (from the
  // early weights' .grad, zeros when it is undefined), then the last bucket
  // with every other gradient, each of `statistics` and the loss, all times
  // the weight; waits for the sums in order and puts them in place: each
  // .grad becomes a view of the summed buffer (undefined when undefined on
  // every rank), each statistic is overwritten. Returns the summed loss.
  double finish(std::vector<torch::Tensor>& parameters, double loss,
                const std::vector<torch::Tensor>& statistics);

  // Sums a step: the early buckets, then the last.
  int count() const { return static_cast<int>(bucket_end_.size()) + 1; }

 private:
  // Starts the sums of the complete buckets from started_ on (with
  // starting_ held).
  void start_ready();
  // Packs range `range` from `rows` (null: zeros) and counts it done.
  void take_range(std::size_t range, const float* rows);
  // Writes weight x `from` (zeros when null) to to[0, n).
  void pack(const float* from, float* to, std::int64_t n) const;

  RankGroup& ranks_;
  int early_;                    // -1 without early buckets
  std::int64_t early_cols_ = 0;  // floats per row of the early weights
  // The first rows of the early ranges and the end, and per early bucket
  // the range after its last; both empty without early buckets.
  std::vector<std::int64_t> cuts_;
  std::vector<std::size_t> bucket_end_;
  // The early weights' gradient (its size never changes, so that the sums
  // in flight keep their place), and the last bucket: the other
  // parameters' gradients in order, the statistics, one "defined" flag per
  // parameter, the loss.
  torch::Tensor early_buffer_;
  torch::Tensor rest_buffer_;
  double weight_ = 0.0;
  std::mutex starting_;                            // the order of the sums
  std::vector<const float*> ready_;                // per range: its rows, once final
  std::vector<std::size_t> done_;                  // per bucket: its ranges final
  std::size_t started_ = 0;                        // buckets whose sum has started
  std::vector<std::unique_ptr<PendingSum>> sums_;  // this step's, in order
};

}  // namespace topkfs
