#pragma once
// dnn-top's objective on the shared training loop (train/trainer.hpp): the
// lead model plus lambda3 times the sub-model on its top-k inputs, the
// elastic penalty on the one-to-one layer w, and what ranks the inputs.
// dfs is dnn-top with lambda3 = 0. Defined in dnn_top_objective.cpp.
#include <torch/types.h>

#include <cstdint>

#include "neural/model/network.hpp"
#include "neural/train/trainer.hpp"
#include "topkfs/core/callbacks.hpp"
#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {

// dnn-top / dfs: trains `network` in place on `data` with the options'
// objective; `k` is the size of the sub-model's input set (ignored when
// lambda3 is 0).
TrainingOutcome train_network(TopKNetwork& network, const TrainingSet& data,
                              const DnnTopOptions& options, std::int64_t k,
                              const FitCallbacks& callbacks, const GradientObserver& observer = {},
                              int batch_workers = 1);

// dnn-top's data loss: the lead's mean loss plus lambda3 times the
// sub-model's, computed as one loss over the networks' stacked rows (each
// row weighted 1/B or lambda3/B) by one autograd node (stacked_loss.hpp).
torch::Tensor lead_and_sub_loss(const ModelOutputs& out, const torch::Tensor& y, NeuralTask task,
                                double lambda3, const torch::Tensor& weights = {});
// lambda2 * |w|_1 + lambda1 * |w|^2 as one autograd node, or an undefined
// tensor when both are 0.
torch::Tensor elastic_penalty_of(const TopKNetwork& network, const DnnTopOptions& options);

// What ranks the inputs (--rank-by): |w|, or |w| times the norm of the body's
// weights on each input; float, contiguous, one entry per input in the
// network's current input order.
torch::Tensor input_ranking_magnitude(const TopKNetwork& network, const DnnTopOptions& options);

}  // namespace topkfs
