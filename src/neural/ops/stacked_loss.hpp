#pragma once
// The trainer's data losses as one autograd node with a hand-written
// backward pass. Through libtorch's functional losses, dnn-top's weighted
// lead-plus-sub-model loss is about a dozen small operations per step
// (log-softmax, the class pick, a weight vector, a product, a sum, and the
// backward node of each), whose dispatch and autograd bookkeeping cost each
// member of a team step as much as they cost one thread (docs/reliability.md,
// "Where each member's step goes"). Here it is one pass over the outputs
// forward and one backward.
#include <torch/types.h>

#include "neural/train/trainer.hpp"

namespace topkfs {

// The loss of `output` against `targets` (int64 labels for classes, else
// float with one column per output), averaged over the B rows of `targets`.
// `output` holds B rows, or 2B: the same rows twice, the lead's then the
// sub-model's (or (1 + S) B: the lead's, then S sub-models'), whose losses
// then count `second_weight` times:
//   (sum of the first B rows' losses + second_weight * the others') / B.
// A row's loss: cross-entropy of the softmax (MultiClass); the mean over the
// outputs of the logistic loss (Binary) or of the squared error
// (Regression), as libtorch's cross_entropy, binary_cross_entropy_with_logits
// and mse_loss. With no rows the loss is NaN, as their mean. `weights`
// (float, one per target row; undefined: all 1) multiplies each row's loss
// in both halves: the training rows' weights, scaled to mean 1
// (TrainingSet::weights).
torch::Tensor stacked_data_loss(const torch::Tensor& output, const torch::Tensor& targets,
                                NeuralTask task, double second_weight,
                                const torch::Tensor& weights = {});

}  // namespace topkfs
