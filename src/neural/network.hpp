#pragma once
// The lead model and its sub-model as one libtorch module: the one-to-one
// layer w followed by a body whose weights both models share.
#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "topkfs/core/random.hpp"
#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct ModelOutputs {
  torch::Tensor lead;  // F(X)
  torch::Tensor sub;   // F^{max_k}(X); undefined when no subset was given
};

class TopKNetwork : public torch::nn::Module {
 public:
  // The one-to-one layer, initialised at 1.
  torch::Tensor w;

  // `subset`: int64 indices of the k kept inputs (w^{max_k}); an empty tensor
  // runs the lead model alone (DFS, or inference).
  virtual ModelOutputs forward(const torch::Tensor& x, const torch::Tensor& subset) = 0;
  // Parameters of the body (everything but w), for weight decay.
  virtual std::vector<torch::Tensor> body_parameters() = 0;
};

// MLP body: Linear -> ReLU per hidden size, then a linear output layer.
// The first layer is fused with w and computes its backward pass without the
// input gradient, and the sub-model's first layer reads only the k kept
// columns (DESIGN.md §5).
std::shared_ptr<TopKNetwork> make_mlp(std::int64_t inputs, std::int64_t outputs,
                                      const std::vector<int>& hidden, Rng& rng);

// CNN body for images (w is a per-pixel weight, the mask selects pixels):
// two 3x3 conv + ReLU + 2x2 max-pool stages, then dense layers of `hidden`
// sizes, then the output layer.
std::shared_ptr<TopKNetwork> make_cnn(const ImageShape& shape, std::int64_t outputs,
                                      const std::vector<int>& hidden, Rng& rng);

}  // namespace topkfs
