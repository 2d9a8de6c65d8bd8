#include "fused_mlp.hpp"

#include <torch/autograd.h>

#include <cstdint>
#include <optional>

#include "neural/ops/kernels.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The backward pass runs the first layer as the forward pass did, so the
// node keeps the seat in its context, which holds only IValues: the team's
// layer as an integer address and the member. The layer (ParallelStep's)
// outlives the graph, which the member's own backward pass frees within the
// step.
void save_seat(AutogradContext* ctx, const FirstLayerSeat* seat) {
  if (!seat) return;
  ctx->saved_data["team_layer"] =
      static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(seat->layer));
  ctx->saved_data["team_member"] = static_cast<std::int64_t>(seat->member);
  ctx->saved_data["team_block"] = static_cast<std::int64_t>(seat->block);
}

std::optional<FirstLayerSeat> saved_seat(AutogradContext* ctx) {
  const auto layer = ctx->saved_data.find("team_layer");
  if (layer == ctx->saved_data.end()) return std::nullopt;
  return FirstLayerSeat{
      reinterpret_cast<TeamFirstLayer*>(static_cast<std::intptr_t>(layer->second.toInt())),
      static_cast<int>(ctx->saved_data.at("team_member").toInt()),
      static_cast<int>(ctx->saved_data.at("team_block").toInt())};
}

// The sub-models' subsets packed one after another in `subset`, of
// `sizes` inputs each (several sub-models: DnnTopOptions::sub_k_min).
std::vector<Tensor> unpacked(const Tensor& subset, const std::vector<std::int64_t>& sizes) {
  std::vector<Tensor> subsets;
  std::int64_t start = 0;
  for (const std::int64_t size : sizes) {
    subsets.push_back(subset.narrow(0, start, size));
    start += size;
  }
  return subsets;
}

// Inputs: x, w, subset, first weight, first bias, then weight and bias of
// every further layer (the TensorList), then the team seat (or null), then
// the sizes of several sub-models packed in `subset` (empty: one, or none).
// Saved: the inputs of every further layer after their ReLU, which is all
// the backward pass needs of the forward.
struct FusedMlp : public torch::autograd::Function<FusedMlp> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor w, Tensor subset, Tensor weight,
                        Tensor bias, at::TensorList rest, const FirstLayerSeat* seat,
                        std::vector<std::int64_t> sub_sizes) {
    TOPKFS_ASSERT(x.scalar_type() == torch::kFloat && x.is_contiguous());
    const std::int64_t batch = x.size(0);
    const bool with_sub = subset.numel() > 0;
    Tensor z;
    if (!sub_sizes.empty()) {
      // Several sub-models: the lead's rows once, then each sub-model's,
      // outside a team's shared first layer (it holds one sub-model).
      TOPKFS_ASSERT(!seat);
      const std::vector<Tensor> subsets = unpacked(subset, sub_sizes);
      z = torch::empty({static_cast<std::int64_t>(1 + subsets.size()) * batch, weight.size(0)},
                       x.options());
      const Tensor xw = x * w;
      Tensor lead_rows = z.narrow(0, 0, batch);
      torch::addmm_out(lead_rows, bias, xw, weight.t());
      for (std::size_t s = 0; s < subsets.size(); ++s) {
        Tensor rows = z.narrow(0, static_cast<std::int64_t>(s + 1) * batch, batch);
        torch::addmm_out(rows, bias, xw.index_select(1, subsets[s]),
                         weight.index_select(1, subsets[s]).t());
      }
      ctx->saved_data["sub_sizes"] = c10::IValue(sub_sizes);
    } else if (seat) {
      z = seat->layer->forward(*seat, x, w, subset, weight, bias);
      save_seat(ctx, seat);
    } else {
      z = torch::empty({with_sub ? 2 * batch : batch, weight.size(0)}, x.options());
      Tensor lead_rows = z.narrow(0, 0, batch);
      Tensor sub_rows = with_sub ? z.narrow(0, batch, batch) : Tensor();
      gated_products(lead_rows, sub_rows, x * w, weight, bias, subset);
    }
    variable_list saved = {x, w, subset, weight};
    for (std::size_t l = 0; l < rest.size(); l += 2) {
      kernels::relu(z.data_ptr<float>(), z.numel());
      saved.push_back(z);
      z = torch::addmm(rest[l + 1], z, rest[l].t());
    }
    for (std::size_t l = 0; l < rest.size(); l += 2) saved.push_back(rest[l]);
    ctx->save_for_backward(saved);
    return z;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const Tensor& w = saved[1];
    const Tensor& subset = saved[2];
    const Tensor& weight = saved[3];
    const std::size_t further = (saved.size() - 4) / 2;  // layers after the first
    const std::int64_t batch = x.size(0);

    // One per input, the seat and the sizes included; x's, subset's, the
    // seat's and the sizes' undefined.
    variable_list out(7 + 2 * further);
    Tensor g = grads[0].contiguous();
    for (std::size_t l = further; l-- > 0;) {
      const Tensor& input = saved[4 + l];
      const Tensor& layer_weight = saved[4 + further + l];
      out[5 + 2 * l] = torch::mm(g.t(), input);
      out[6 + 2 * l] = g.sum(0);
      Tensor below = torch::mm(g, layer_weight);
      kernels::relu_backward(below.data_ptr<float>(), input.data_ptr<float>(), below.numel());
      g = below;
    }
    // g: the first layer's output gradient, lead rows then sub rows.
    out[4] = g.sum(0);
    const auto sizes = ctx->saved_data.find("sub_sizes");
    if (sizes != ctx->saved_data.end()) {
      const std::vector<Tensor> subsets = unpacked(subset, sizes->second.toIntVector());
      Tensor accumulated = torch::mm(g.narrow(0, 0, batch).t(), x);
      for (std::size_t s = 0; s < subsets.size(); ++s) {
        const Tensor rows = g.narrow(0, static_cast<std::int64_t>(s + 1) * batch, batch);
        accumulated.index_add_(1, subsets[s], torch::mm(rows.t(), x.index_select(1, subsets[s])));
      }
      Tensor grad_gate = torch::empty({weight.size(1)}, weight.options());
      gate_pass(accumulated, weight, w, grad_gate);
      out[1] = grad_gate;
      out[3] = accumulated;
      return out;
    }
    const Tensor sub = subset.numel() > 0 ? g.narrow(0, batch, batch) : Tensor();
    const Tensor lead = g.narrow(0, 0, batch);
    const std::optional<FirstLayerSeat> seat = saved_seat(ctx);
    if (seat) {
      // The team's layer keeps the weight's and the gate's gradients of the
      // whole minibatch, which the team step adds to the row blocks' own.
      seat->layer->backward(*seat, lead, sub, w, weight, subset);
      return out;
    }
    const GatedLayerGradients first = gated_layer_gradients(lead, sub, x, w, weight, subset);
    out[1] = first.gate;
    out[3] = first.weight;
    return out;
  }
};

Tensor apply_fused_mlp(const Tensor& x, const Tensor& w, const Tensor& subset,
                       const MlpLayers& layers, const FirstLayerSeat* seat,
                       const std::vector<std::int64_t>& sub_sizes) {
  TOPKFS_ASSERT(layers.activation == Activation::Relu);
  std::vector<Tensor> rest;
  for (const auto& layer : layers.rest) {
    rest.push_back(layer->weight);
    rest.push_back(layer->bias);
  }
  // As a TensorList, so that autograd counts every tensor as an input.
  return FusedMlp::apply(x, w, subset, layers.first_weight, layers.first_bias, at::TensorList(rest),
                         seat, sub_sizes);
}

}  // namespace

Tensor fused_mlp(const Tensor& x, const Tensor& w, const Tensor& subset, const MlpLayers& layers,
                 const FirstLayerSeat* seat) {
  return apply_fused_mlp(x, w, subset, layers, seat, {});
}

Tensor fused_mlp_subsets(const Tensor& x, const Tensor& w, const std::vector<Tensor>& subsets,
                         const MlpLayers& layers) {
  TOPKFS_ASSERT(subsets.size() >= 2);
  std::vector<std::int64_t> sizes;
  for (const auto& subset : subsets) sizes.push_back(subset.numel());
  return apply_fused_mlp(x, w, torch::cat(subsets), layers, nullptr, sizes);
}

}  // namespace topkfs
