#pragma once
// The minibatch loop shared by the neural methods: seeded shuffling, Adam,
// the top-k mask per step, validation with early stopping and the best weights
// restored, gradient clipping, progress reports.
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "network.hpp"
#include "topkfs/core/callbacks.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/neural/dnn_top.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs {

enum class NeuralTask { MultiClass, Binary, Regression };

// The rows a network learns from, left unscaled in the caller's matrix:
// minibatches are gathered and scaled on the fly, so the data is never copied
// whole (peak memory stays near the dataset's own size).
struct TrainingSet {
  const FeatureMatrix* features = nullptr;
  torch::Tensor offset;     // per column, subtracted
  torch::Tensor inv_scale;  // per column, multiplied after the offset
  NeuralTask task = NeuralTask::MultiClass;
  torch::Tensor targets;    // all rows of `features`: int64 labels, or float n x q
  std::vector<std::int64_t> train_rows;
  std::vector<std::int64_t> validation_rows;
};

// Called after backward and before the optimizer step: the seam where a
// data-parallel trainer all-reduces the gradients.
using GradientHook = std::function<void(std::vector<torch::Tensor>& parameters)>;

struct TrainingOutcome {
  std::vector<EpochRecord> history;
  int best_epoch = 0;
  bool stopped_early = false;
};

// Trains `network` in place on `data` with the options' objective; `k` is the
// size of the sub-model's input set (ignored when lambda3 is 0).
TrainingOutcome train_network(TopKNetwork& network, const TrainingSet& data,
                              const DnnTopOptions& options, std::int64_t k,
                              const FitCallbacks& callbacks, const GradientHook& hook = {});

// Loss of one model output against the targets of the same rows.
torch::Tensor data_loss(const torch::Tensor& output, const torch::Tensor& targets, NeuralTask task);

// Gathers rows `rows[begin, end)` of the set, scaled, into a B x m tensor.
torch::Tensor gather_batch(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                           std::size_t begin, std::size_t end);

}  // namespace topkfs
