#pragma once
// dnn-top's whole MLP, lead and sub-model, as one autograd node with a
// hand-written backward pass. Through plain autograd the network is some
// forty small operations per step whose dispatch and bookkeeping cost as much
// as a third of the matrix products (build/bench/dnn_epoch_bench --breakdown); here
// it is the matrix products, one fused pass per activation, and the gated
// first layer's fused gradient without the input gradient (docs/method.md §4).
#include <torch/types.h>

#include <vector>

#include "neural/model/network.hpp"
#include "neural/ops/team_first_layer.hpp"

namespace topkfs {

// The outputs of the MLP `layers` (ReLU) on x * w for every row of x and,
// given a non-empty int64 `subset` S, then on x_S * w_S through the first
// layer's columns S: a B x outputs tensor, or 2B x outputs with the
// sub-model's rows after the lead's. Gradients reach w and every layer.
// `seat`: in a team step, the calling member's place in the team's first
// layer and its row block (team_first_layer.hpp), whose share of that layer
// the forward and backward passes then compute with the other members; the
// first layer's weight and gate gradients then stay with the team's layer
// (autograd sees none); null: the whole layer here.
torch::Tensor fused_mlp(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& subset,
                        const MlpLayers& layers, const FirstLayerSeat* seat);

// The same with several sub-models (at least two), each on its own subset
// S_s: (1 + S) B x outputs, the lead's rows first, then each sub-model's in
// the subsets' order. The lead's first layer is computed once for all of
// them. Not in a team's shared first layer.
torch::Tensor fused_mlp_subsets(const torch::Tensor& x, const torch::Tensor& w,
                                const std::vector<torch::Tensor>& subsets, const MlpLayers& layers);

}  // namespace topkfs
