#include "network.hpp"

#include <torch/autograd.h>
#include <torch/nn/functional.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <algorithm>
#include <cmath>

#include "neural/model/input_order.hpp"
#include "neural/ops/fused_mlp.hpp"
#include "neural/ops/kernels.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Same bounds as libtorch's default init (Kaiming-uniform with a = sqrt(5)),
// drawn from our seeded Rng so that no global torch RNG state is involved.
void fill_uniform(Tensor& tensor, double bound, Rng& rng) {
  torch::NoGradGuard no_grad;
  auto flat = tensor.contiguous().view(-1);
  auto* data = flat.data_ptr<float>();
  for (std::int64_t i = 0; i < flat.numel(); ++i) {
    data[i] = static_cast<float>(rng.uniform(-bound, bound));
  }
  tensor.copy_(flat.view(tensor.sizes()));
}

void init_layer(Tensor weight, Tensor bias, std::int64_t fan_in, Rng& rng) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  fill_uniform(weight, bound, rng);
  fill_uniform(bias, bound, rng);
}

}  // namespace

void gate_pass(Tensor& accumulated, const Tensor& weight, const Tensor& gate, Tensor& grad_gate) {
  // The loop reads raw float buffers.
  TOPKFS_ASSERT(accumulated.scalar_type() == torch::kFloat &&
                weight.scalar_type() == torch::kFloat && accumulated.is_contiguous() &&
                grad_gate.is_contiguous() && accumulated.sizes() == weight.sizes());
  const std::int64_t outputs = weight.size(0);
  const std::int64_t inputs = weight.size(1);
  // One pass over A instead of three temporaries: these H x m arrays do not
  // stay in cache, so each extra elementwise pass costs as much as a small
  // matrix product.
  float* a = accumulated.data_ptr<float>();
  const Tensor weight_c = weight.contiguous();
  const Tensor gate_c = gate.contiguous();
  const float* weights = weight_c.data_ptr<float>();
  const float* g = gate_c.data_ptr<float>();
  float* gw = grad_gate.data_ptr<float>();
  std::fill(gw, gw + inputs, 0.0f);
  for (std::int64_t i = 0; i < outputs; ++i) {
    kernels::gate_gradient_row(a + i * inputs, weights + i * inputs, g, gw, inputs);
  }
}

namespace {

// z = (x * w) W^T + b for the lead model and, given a subset S,
// z_S = (x_S * w_S) W_S^T + b for the sub-model. Backward shares one
// accumulator A = G^T x (+ G_S^T x_S scattered to S): dW = A diag(w),
// dw_j = sum_i W_ij A_ij, so no input gradient is ever formed.
struct GatedLinear : public torch::autograd::Function<GatedLinear> {
  static variable_list forward(AutogradContext* ctx, Tensor x, Tensor w, Tensor weight, Tensor bias,
                               Tensor subset) {
    ctx->save_for_backward({x, w, weight, subset});
    Tensor lead = torch::empty({x.size(0), weight.size(0)}, x.options());
    Tensor sub = subset.numel() > 0 ? torch::empty_like(lead) : Tensor();
    gated_products(lead, sub, x * w, weight, bias, subset);
    if (subset.numel() == 0) return {lead};
    return {lead, sub};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const Tensor& w = saved[1];
    const Tensor& weight = saved[2];
    const Tensor& subset = saved[3];
    const Tensor& lead = grads[0];
    const Tensor sub = grads.size() > 1 ? grads[1] : Tensor();
    Tensor grad_bias =
        lead.defined() ? lead.sum(0) : torch::zeros({weight.size(0)}, weight.options());
    if (subset.numel() > 0 && sub.defined()) grad_bias.add_(sub.sum(0));
    const GatedLayerGradients gradients = gated_layer_gradients(lead, sub, x, w, weight, subset);
    return {Tensor(), gradients.gate, gradients.weight, grad_bias, Tensor()};
  }
};

class Mlp : public TopKNetwork {
 public:
  Mlp(std::int64_t inputs, std::int64_t outputs, const std::vector<int>& hidden, Rng& rng) {
    w = register_parameter("w", torch::ones({inputs}));
    layers_ = MlpLayers::create(*this, inputs, outputs, hidden, rng);
  }

  using TopKNetwork::forward;  // the two-argument form stays visible
  ModelOutputs forward(const Tensor& x, const Tensor& subset, const FirstLayerSeat* seat) override {
    // Lead and sub-model go through the body as one batch of 2B rows: the
    // same arithmetic, in larger and so faster matrix products.
    const Tensor out = fused_mlp(x.contiguous(), w, subset, layers_, seat);
    if (subset.numel() == 0) return {out, Tensor(), out};
    const std::int64_t batch = x.size(0);
    return {out.narrow(0, 0, batch), out.narrow(0, batch, batch), out};
  }

  Tensor forward_subsets(const Tensor& x, const std::vector<Tensor>& subsets) override {
    return fused_mlp_subsets(x.contiguous(), w, subsets, layers_);
  }

  std::vector<Tensor> body_parameters() override { return layers_.parameters(); }

  std::vector<Tensor> input_indexed() override { return {w, layers_.first_weight}; }

  Tensor input_weight_norms() const override { return layers_.first_weight.detach().norm(2, {0}); }

  Tensor team_layer_weight() const override { return layers_.first_weight; }

 private:
  MlpLayers layers_;
};

class Cnn : public TopKNetwork {
 public:
  Cnn(const ImageShape& shape, std::int64_t outputs, const std::vector<int>& hidden, Rng& rng)
      : shape_(shape) {
    w = register_parameter("w", torch::ones({shape.pixels()}));
    conv1_ = register_module(
        "conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(shape.channels, 16, 3).padding(1)));
    conv2_ =
        register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)));
    init_layer(conv1_->weight, conv1_->bias, shape.channels * 9, rng);
    init_layer(conv2_->weight, conv2_->bias, 16 * 9, rng);
    std::int64_t width = 32 * (shape.height / 4) * (shape.width / 4);
    for (std::size_t i = 0; i <= hidden.size(); ++i) {
      const std::int64_t next = i < hidden.size() ? hidden[i] : outputs;
      auto layer = register_module("dense" + std::to_string(i), torch::nn::Linear(width, next));
      init_layer(layer->weight, layer->bias, width, rng);
      dense_.push_back(layer);
      width = next;
    }
  }

  using TopKNetwork::forward;
  ModelOutputs forward(const Tensor& x, const Tensor& subset, const FirstLayerSeat*) override {
    const std::int64_t batch = x.size(0);
    Tensor input = x * w;
    if (subset.numel() > 0) {
      // The mask is a constant: gradients of the sub-model reach only the
      // kept entries of w.
      Tensor mask = torch::zeros_like(w).index_fill_(0, subset, 1.0);
      input = torch::cat({input, x * (w * mask)}, 0);
    }
    Tensor h = input.view({input.size(0), shape_.channels, shape_.height, shape_.width});
    h = torch::max_pool2d(torch::relu(conv1_->forward(h)), 2);
    h = torch::max_pool2d(torch::relu(conv2_->forward(h)), 2);
    h = h.flatten(1);
    for (std::size_t i = 0; i < dense_.size(); ++i) {
      h = dense_[i]->forward(h);
      if (i + 1 < dense_.size()) h = torch::relu(h);
    }
    if (subset.numel() == 0) return {h, Tensor(), h};
    return {h.narrow(0, 0, batch), h.narrow(0, batch, batch), h};
  }

  std::vector<Tensor> body_parameters() override {
    std::vector<Tensor> out = {conv1_->weight, conv1_->bias, conv2_->weight, conv2_->bias};
    for (auto& layer : dense_) {
      out.push_back(layer->weight);
      out.push_back(layer->bias);
    }
    return out;
  }

 private:
  ImageShape shape_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  std::vector<torch::nn::Linear> dense_;
};

}  // namespace

MlpLayers MlpLayers::create(torch::nn::Module& owner, std::int64_t inputs, std::int64_t outputs,
                            const std::vector<int>& hidden, Rng& rng, Activation activation) {
  MlpLayers layers;
  layers.activation = activation;
  const std::int64_t first_out = hidden.empty() ? outputs : hidden.front();
  layers.first_weight = owner.register_parameter("first_weight", torch::empty({first_out, inputs}));
  layers.first_bias = owner.register_parameter("first_bias", torch::empty({first_out}));
  init_layer(layers.first_weight, layers.first_bias, inputs, rng);
  std::int64_t width = first_out;
  for (std::size_t i = 1; i <= hidden.size(); ++i) {
    const std::int64_t next = i < hidden.size() ? hidden[i] : outputs;
    auto layer = owner.register_module("dense" + std::to_string(i), torch::nn::Linear(width, next));
    init_layer(layer->weight, layer->bias, width, rng);
    layers.rest.push_back(layer);
    width = next;
  }
  return layers;
}

Tensor MlpLayers::finish(Tensor pre) {
  for (auto& layer : rest) {
    pre = layer->forward(activation == Activation::Relu ? torch::relu(pre) : torch::sigmoid(pre));
  }
  return pre;
}

Tensor MlpLayers::forward(const Tensor& x) {
  return finish(torch::addmm(first_bias, x, first_weight.t()));
}

std::vector<Tensor> MlpLayers::parameters() const {
  std::vector<Tensor> out = {first_weight, first_bias};
  for (const auto& layer : rest) {
    out.push_back(layer->weight);
    out.push_back(layer->bias);
  }
  return out;
}

void gated_products(Tensor& lead, Tensor& sub, const Tensor& xw, const Tensor& weight,
                    const Tensor& bias, const Tensor& subset) {
  if (subset.numel() == 0) {
    torch::addmm_out(lead, bias, xw, weight.t());
  } else if (is_leading_prefix(subset)) {
    // The lead's product continues the sub-model's over the other columns.
    const std::int64_t k = subset.numel();
    const std::int64_t m = xw.size(1);
    torch::addmm_out(sub, bias, xw.narrow(1, 0, k), weight.narrow(1, 0, k).t());
    if (k < m) {
      torch::addmm_out(lead, sub, xw.narrow(1, k, m - k), weight.narrow(1, k, m - k).t());
    } else {
      lead.copy_(sub);
    }
  } else {
    torch::addmm_out(lead, bias, xw, weight.t());
    torch::addmm_out(sub, bias, xw.index_select(1, subset), weight.index_select(1, subset).t());
  }
}

void accumulate_gate_products(Tensor& accumulated, const Tensor& grad, const Tensor& grad_sub,
                              const Tensor& x, const Tensor& subset) {
  const bool with_sub = subset.numel() > 0 && grad_sub.defined();
  if (with_sub && grad.defined() && is_leading_prefix(subset)) {
    // Both models' gradients meet in the first k columns: one product.
    const std::int64_t k = subset.numel();
    const std::int64_t m = x.size(1);
    Tensor front = accumulated.narrow(1, 0, k);
    torch::mm_out(front, (grad + grad_sub).t(), x.narrow(1, 0, k));
    if (k < m) {
      Tensor back = accumulated.narrow(1, k, m - k);
      torch::mm_out(back, grad.t(), x.narrow(1, k, m - k));
    }
    return;
  }
  if (grad.defined()) {
    torch::mm_out(accumulated, grad.t(), x);
  } else {
    accumulated.zero_();
  }
  if (with_sub) {
    accumulated.index_add_(1, subset, torch::mm(grad_sub.t(), x.index_select(1, subset)));
  }
}

GatedLayerGradients gated_layer_gradients(const Tensor& grad, const Tensor& grad_sub,
                                          const Tensor& x, const Tensor& gate, const Tensor& weight,
                                          const Tensor& subset) {
  Tensor accumulated = torch::empty_like(weight);
  accumulate_gate_products(accumulated, grad, grad_sub, x, subset);
  Tensor grad_gate = torch::empty({weight.size(1)}, weight.options());
  gate_pass(accumulated, weight, gate, grad_gate);
  return {accumulated, grad_gate};
}

std::vector<Tensor> gated_linear(const Tensor& x, const Tensor& gate, const Tensor& weight,
                                 const Tensor& bias, const Tensor& subset) {
  return GatedLinear::apply(x, gate, weight, bias, subset);
}

std::shared_ptr<TopKNetwork> make_mlp(std::int64_t inputs, std::int64_t outputs,
                                      const std::vector<int>& hidden, Rng& rng) {
  return std::make_shared<Mlp>(inputs, outputs, hidden, rng);
}

std::shared_ptr<TopKNetwork> make_cnn(const ImageShape& shape, std::int64_t outputs,
                                      const std::vector<int>& hidden, Rng& rng) {
  return std::make_shared<Cnn>(shape, outputs, hidden, rng);
}

}  // namespace topkfs
