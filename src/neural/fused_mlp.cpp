#include "fused_mlp.hpp"

#include <torch/autograd.h>

#include <cstdint>
#include <optional>

#include "kernels.hpp"
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
}

std::optional<FirstLayerSeat> saved_seat(AutogradContext* ctx) {
  const auto layer = ctx->saved_data.find("team_layer");
  if (layer == ctx->saved_data.end()) return std::nullopt;
  return FirstLayerSeat{
      reinterpret_cast<TeamFirstLayer*>(static_cast<std::intptr_t>(layer->second.toInt())),
      static_cast<int>(ctx->saved_data.at("team_member").toInt())};
}

// Inputs: x, w, subset, first weight, first bias, then weight and bias of
// every further layer (the TensorList), then the team seat (or null). Saved:
// the inputs of every further layer after their ReLU, which is all the
// backward pass needs of the forward.
struct FusedMlp : public torch::autograd::Function<FusedMlp> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor w, Tensor subset, Tensor weight,
                        Tensor bias, at::TensorList rest, const FirstLayerSeat* seat) {
    TOPKFS_ASSERT(x.scalar_type() == torch::kFloat && x.is_contiguous());
    const std::int64_t batch = x.size(0);
    const bool with_sub = subset.numel() > 0;
    Tensor z;
    if (seat) {
      z = seat->layer->forward(seat->member, x, w, subset, weight, bias);
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

    // One per input, the seat included; x's, subset's and the seat's undefined.
    variable_list out(6 + 2 * further);
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
    const Tensor sub = subset.numel() > 0 ? g.narrow(0, batch, batch) : Tensor();
    const Tensor lead = g.narrow(0, 0, batch);
    const std::optional<FirstLayerSeat> seat = saved_seat(ctx);
    const GatedLayerGradients first =
        seat ? seat->layer->gradients(seat->member, lead, sub, w, weight, subset)
             : gated_layer_gradients(lead, sub, x, w, weight, subset);
    out[1] = first.gate;
    out[3] = first.weight;
    return out;
  }
};

}  // namespace

Tensor fused_mlp(const Tensor& x, const Tensor& w, const Tensor& subset, const MlpLayers& layers,
                 const FirstLayerSeat* seat) {
  TOPKFS_ASSERT(layers.activation == Activation::Relu);
  std::vector<Tensor> rest;
  for (const auto& layer : layers.rest) {
    rest.push_back(layer->weight);
    rest.push_back(layer->bias);
  }
  // As a TensorList, so that autograd counts every tensor as an input.
  return FusedMlp::apply(x, w, subset, layers.first_weight, layers.first_bias, at::TensorList(rest),
                         seat);
}

}  // namespace topkfs
