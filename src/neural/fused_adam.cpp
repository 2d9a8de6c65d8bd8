#include "fused_adam.hpp"

#include <cmath>

#include "topkfs/core/error.hpp"

namespace topkfs {

FusedAdam::FusedAdam(std::vector<torch::Tensor> parameters, std::vector<double> weight_decay,
                     const AdamSettings& settings)
    : parameters_(std::move(parameters)), weight_decay_(std::move(weight_decay)), settings_(settings) {
  TOPKFS_ASSERT(parameters_.size() == weight_decay_.size());
  for (const auto& parameter : parameters_) {
    TOPKFS_ASSERT(parameter.is_contiguous() && parameter.scalar_type() == torch::kFloat);
    first_moment_.push_back(torch::zeros_like(parameter));
    second_moment_.push_back(torch::zeros_like(parameter));
  }
}

void FusedAdam::zero_grad() {
  for (auto& parameter : parameters_) parameter.mutable_grad().reset();
}

bool FusedAdam::step() {
  ++steps_;
  double factor = 1.0;
  if (settings_.clip > 0) {
    double sum_sq = 0.0;
    for (const auto& parameter : parameters_) {
      const auto& grad = parameter.grad();
      if (!grad.defined()) continue;
      const float* g = grad.data_ptr<float>();
      const std::int64_t n = grad.numel();
      // In double: huge finite gradients overflow a float sum to inf, and the
      // clip factor would then silently freeze training at zero steps.
      double partial = 0.0;
      for (std::int64_t i = 0; i < n; ++i) partial += static_cast<double>(g[i]) * g[i];
      sum_sq += partial;
    }
    const double norm = std::sqrt(sum_sq);
    if (!std::isfinite(norm)) return false;
    // The same rule as torch::nn::utils::clip_grad_norm_.
    if (norm + 1e-6 > settings_.clip) factor = settings_.clip / (norm + 1e-6);
  }
  const double bias1 = 1.0 - std::pow(settings_.beta1, static_cast<double>(steps_));
  const double bias2 = 1.0 - std::pow(settings_.beta2, static_cast<double>(steps_));
  const float step_size = static_cast<float>(settings_.lr / bias1);
  const float inv_sqrt_bias2 = static_cast<float>(1.0 / std::sqrt(bias2));
  const float beta1 = static_cast<float>(settings_.beta1);
  const float beta2 = static_cast<float>(settings_.beta2);
  const float eps = static_cast<float>(settings_.eps);
  const float clip_factor = static_cast<float>(factor);

  torch::NoGradGuard no_grad;
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    const auto& grad = parameters_[t].grad();
    if (!grad.defined()) continue;
    const float decay = static_cast<float>(weight_decay_[t]);
    float* __restrict p = parameters_[t].data_ptr<float>();
    const float* __restrict g = grad.contiguous().data_ptr<float>();
    float* __restrict m = first_moment_[t].data_ptr<float>();
    float* __restrict v = second_moment_[t].data_ptr<float>();
    const std::int64_t n = parameters_[t].numel();
    for (std::int64_t i = 0; i < n; ++i) {
      const float gi = g[i] * clip_factor + decay * p[i];
      m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
      v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
      p[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bias2 + eps);
    }
  }
  return true;
}

}  // namespace topkfs
