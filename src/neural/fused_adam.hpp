#pragma once
// Adam with gradient-norm clipping in one pass per parameter. The same update
// as torch::optim::Adam (L2 weight decay added to the gradient, bias-corrected
// moments, eps outside the square root), but libtorch's version makes about
// ten elementwise passes over each parameter plus two for clipping, and on
// the first layer's m x 256 weights every pass is a trip to memory.
#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace topkfs {

struct AdamSettings {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double clip = 0.0;  // global gradient-norm bound; 0 = off
};

class FusedAdam {
 public:
  // `weight_decay[i]` applies to `parameters[i]` (w has none: its penalties
  // are part of the objective).
  FusedAdam(std::vector<torch::Tensor> parameters, std::vector<double> weight_decay,
            const AdamSettings& settings);

  // Drops the gradients so that the next backward pass writes them afresh
  // instead of zero-filling and accumulating.
  void zero_grad();
  // Clips the global gradient norm, then updates every parameter in place.
  // Returns false, changing nothing, when the gradient norm is not finite.
  [[nodiscard]] bool step();

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<double> weight_decay_;
  std::vector<torch::Tensor> first_moment_;
  std::vector<torch::Tensor> second_moment_;
  AdamSettings settings_;
  std::int64_t steps_ = 0;
};

}  // namespace topkfs
