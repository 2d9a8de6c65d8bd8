#include "elastic_penalty.hpp"

#include <torch/autograd.h>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct ElasticPenalty : public torch::autograd::Function<ElasticPenalty> {
  static Tensor forward(AutogradContext* ctx, Tensor w, double lambda1, double lambda2) {
    TOPKFS_ASSERT(w.scalar_type() == torch::kFloat && w.is_contiguous());
    ctx->save_for_backward({w});
    ctx->saved_data["lambda1"] = lambda1;
    ctx->saved_data["lambda2"] = lambda2;
    const float* values = w.data_ptr<float>();
    double l1 = 0.0;
    double l2 = 0.0;
    for (std::int64_t j = 0; j < w.numel(); ++j) {
      l1 += std::abs(values[j]);
      l2 += static_cast<double>(values[j]) * values[j];
    }
    // As a float first: a diverging w overflows to inf, which the trainer
    // reports as divergence (libtorch refuses a finite double beyond float).
    return torch::full({}, static_cast<float>(lambda2 * l1 + lambda1 * l2), w.options());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor w = ctx->get_saved_variables()[0];
    const float scale = grads[0].item<float>();
    const auto lambda1 = static_cast<float>(ctx->saved_data["lambda1"].toDouble());
    const auto lambda2 = static_cast<float>(ctx->saved_data["lambda2"].toDouble());
    Tensor grad = torch::empty_like(w);
    const float* values = w.data_ptr<float>();
    float* out = grad.data_ptr<float>();
    for (std::int64_t j = 0; j < w.numel(); ++j) {
      const float v = values[j];
      const float sign = static_cast<float>((v > 0.0f) - (v < 0.0f));
      out[j] = scale * (lambda2 * sign + 2.0f * lambda1 * v);
    }
    return {grad, Tensor(), Tensor()};
  }
};

}  // namespace

Tensor elastic_penalty(const Tensor& w, double lambda1, double lambda2) {
  return ElasticPenalty::apply(w, lambda1, lambda2);
}

}  // namespace topkfs
