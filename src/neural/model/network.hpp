#pragma once
// The lead model and its sub-model as one libtorch module: the one-to-one
// layer w followed by a body whose weights both models share.
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "topkfs/core/random.hpp"
#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct FirstLayerSeat;

struct ModelOutputs {
  torch::Tensor lead;  // F(X)
  torch::Tensor sub;   // F^{max_k}(X); undefined when no subset was given
  torch::Tensor rows;  // lead's rows, then sub's (the networks compute both as one batch)
};

class TopKNetwork : public torch::nn::Module {
 public:
  // The one-to-one layer, initialised at 1.
  torch::Tensor w;

  // `subset`: int64 indices of the k kept inputs (w^{max_k}); an empty tensor
  // runs the lead model alone (DFS, or inference). `seat`: in a team step
  // (ParallelStep), the calling member's place in the team's first layer
  // (team_first_layer.hpp), null otherwise; a network without a fused first
  // layer (the CNN) computes its rows alone and ignores it.
  virtual ModelOutputs forward(const torch::Tensor& x, const torch::Tensor& subset,
                               const FirstLayerSeat* seat) = 0;
  // The same outside a team step.
  ModelOutputs forward(const torch::Tensor& x, const torch::Tensor& subset) {
    return forward(x, subset, nullptr);
  }
  // The lead's rows, then those of a sub-model on each of `subsets` (at
  // least two), as one (1 + S) B-row tensor whose lead part is computed once;
  // undefined when the network has no such pass (the caller then runs
  // forward() once per subset).
  virtual torch::Tensor forward_subsets(const torch::Tensor& x,
                                        const std::vector<torch::Tensor>& subsets) {
    (void)x;
    (void)subsets;
    return {};
  }
  // Parameters of the body (everything but w), for weight decay.
  virtual std::vector<torch::Tensor> body_parameters() = 0;
  // The tensors indexed by input along their last dimension (w, and a dense
  // first layer's weights) when the network reads its inputs through them
  // alone, so that training may keep the inputs in another order
  // (InputOrder); empty when the inputs' places matter (an image's pixels).
  virtual std::vector<torch::Tensor> input_indexed() { return {}; }
  // The norm of the weights through which the body reads each input (a dense
  // first layer's columns), or an undefined tensor when the body shares its
  // weights across inputs (the CNN's convolutions).
  virtual torch::Tensor input_weight_norms() const { return {}; }
  // The weights of a first layer that a team step computes by unit blocks
  // (fused_mlp.hpp, TeamFirstLayer); undefined when there is none.
  virtual torch::Tensor team_layer_weight() const { return {}; }
};

enum class Activation { Relu, Sigmoid };

// The weights of an MLP: Linear -> activation per hidden size, then a linear
// output layer. The first layer is kept as raw tensors so that a method can
// compute it its own way (fused with a gate, on gathered columns) and hand
// its pre-activation to finish().
struct MlpLayers {
  torch::Tensor first_weight;  // first width x inputs
  torch::Tensor first_bias;
  std::vector<torch::nn::Linear> rest;
  Activation activation = Activation::Relu;

  // Registers the layers on `owner` as first_weight, first_bias, dense1,
  // dense2, ..., initialised from `rng` with libtorch's default bounds
  // (Kaiming-uniform with a = sqrt(5)), so no global torch RNG is involved.
  static MlpLayers create(torch::nn::Module& owner, std::int64_t inputs, std::int64_t outputs,
                          const std::vector<int>& hidden, Rng& rng,
                          Activation activation = Activation::Relu);

  // From the first layer's pre-activation to the outputs.
  torch::Tensor finish(torch::Tensor pre);
  // The whole MLP on dense inputs.
  torch::Tensor forward(const torch::Tensor& x);
  std::vector<torch::Tensor> parameters() const;
};

// The first layer fused with an elementwise gate on its inputs:
// z = (x * gate) W^T + b and, given a non-empty int64 `subset` S, the
// sub-model's z_S = (x_S * gate_S) W_S^T + b. Its backward pass forms no input
// gradient (docs/method.md §4); `gate` may be a parameter or any tensor computed
// from parameters. Returns {z} or {z, z_S}.
std::vector<torch::Tensor> gated_linear(const torch::Tensor& x, const torch::Tensor& gate,
                                        const torch::Tensor& weight, const torch::Tensor& bias,
                                        const torch::Tensor& subset);

// The gated first layer's backward pass, shared by its forms: from the
// gradient of its output on the lead's rows (`grad`, B x H, may be undefined)
// and, given a non-empty `subset`, on the sub-model's rows (`grad_sub`), the
// gradients of the weight (H x m) and of the gate (m). No input gradient is
// formed (docs/method.md §4).
struct GatedLayerGradients {
  torch::Tensor weight;
  torch::Tensor gate;
};
GatedLayerGradients gated_layer_gradients(const torch::Tensor& grad, const torch::Tensor& grad_sub,
                                          const torch::Tensor& x, const torch::Tensor& gate,
                                          const torch::Tensor& weight, const torch::Tensor& subset);
// The layer's forward products into `lead` (B x H) and, given a non-empty
// `subset`, `sub` (B x H), which may be strided views: lead = xw W^T + b and
// sub = xw_S W_S^T + b, with xw = x * gate. When the subset is the leading
// columns (InputOrder), the lead's product continues the sub-model's instead
// of repeating it.
void gated_products(torch::Tensor& lead, torch::Tensor& sub, const torch::Tensor& xw,
                    const torch::Tensor& weight, const torch::Tensor& bias,
                    const torch::Tensor& subset);
// The backward pass's A = G^T x, plus G_S^T x_S at S given a non-empty
// subset and `grad_sub`, into `accumulated` (H x m, or a block of its rows
// with the same columns of G); `grad` may be undefined (no lead rows).
void accumulate_gate_products(torch::Tensor& accumulated, const torch::Tensor& grad,
                              const torch::Tensor& grad_sub, const torch::Tensor& x,
                              const torch::Tensor& subset);
// Its gate pass on A = G^T x (H x m, contiguous) or on a block of A's rows
// with the same rows of W: grad_gate[j] = sum_i W_ij A_ij (overwritten), and
// A becomes dW = A diag(gate).
void gate_pass(torch::Tensor& accumulated, const torch::Tensor& weight, const torch::Tensor& gate,
               torch::Tensor& grad_gate);

// MLP body: Linear -> ReLU per hidden size, then a linear output layer.
// The first layer is fused with w and computes its backward pass without the
// input gradient, and the sub-model's first layer reads only the k kept
// columns (docs/method.md §4), as the first part of the lead's product when they
// are the leading columns (InputOrder).
std::shared_ptr<TopKNetwork> make_mlp(std::int64_t inputs, std::int64_t outputs,
                                      const std::vector<int>& hidden, Rng& rng);

// CNN body for images (w is a per-pixel weight, the mask selects pixels):
// two 3x3 conv + ReLU + 2x2 max-pool stages, then dense layers of `hidden`
// sizes, then the output layer.
std::shared_ptr<TopKNetwork> make_cnn(const ImageShape& shape, std::int64_t outputs,
                                      const std::vector<int>& hidden, Rng& rng);

}  // namespace topkfs
