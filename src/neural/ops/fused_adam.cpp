#include "fused_adam.hpp"

#include <algorithm>
#include <cmath>

#include "neural/ops/kernels.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {

FusedAdam::FusedAdam(std::vector<torch::Tensor> parameters, std::vector<double> weight_decay,
                     const AdamSettings& settings)
    : parameters_(std::move(parameters)),
      weight_decay_(std::move(weight_decay)),
      settings_(settings) {
  TOPKFS_ASSERT(parameters_.size() == weight_decay_.size());
  for (const auto& parameter : parameters_) {
    TOPKFS_ASSERT(parameter.is_contiguous() && parameter.scalar_type() == torch::kFloat);
    first_moment_.push_back(torch::zeros_like(parameter));
    second_moment_.push_back(torch::zeros_like(parameter));
  }
  shared_.assign(parameters_.size(), 0);
  lr_factor_.assign(parameters_.size(), 1.0f);
  shared_square_.assign(parameters_.size(), 0.0f);
  first_chunk_.push_back(0);
  for (const auto& parameter : parameters_) {
    const std::int64_t rows = parameter.dim() == 0 ? 1 : parameter.size(0);
    first_chunk_.push_back(first_chunk_.back() + static_cast<std::size_t>(unit_blocks(rows)));
  }
}

void FusedAdam::share_second_moment(const torch::Tensor& parameter) {
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    if (parameters_[t].is_same(parameter)) shared_[t] = 1;
  }
}

void FusedAdam::zero_grad() {
  for (auto& parameter : parameters_) parameter.mutable_grad().reset();
}

bool FusedAdam::step() {
  // The runs index gradients as flat arrays; a transposed gradient (from some
  // autograd formulas) is copied once.
  for (auto& parameter : parameters_) {
    const auto& grad = parameter.grad();
    if (grad.defined() && !grad.is_contiguous()) parameter.mutable_grad() = grad.contiguous();
  }
  const auto all = slice(0, 1);
  double norm = 0.0;
  if (settings_.clip > 0) {
    std::vector<double> by_chunk(chunk_count(), 0.0);
    chunk_norms(all, by_chunk);
    norm = squared_norm(by_chunk);
  }
  if (!begin_step(norm)) return false;
  update(all);
  return true;
}

std::vector<torch::Tensor> FusedAdam::moments_of(const torch::Tensor& parameter) const {
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    if (parameters_[t].is_same(parameter)) return {first_moment_[t], second_moment_[t]};
  }
  TOPKFS_ASSERT(false);  // not one of the optimizer's parameters
  return {};
}

std::vector<torch::Tensor> FusedAdam::moments() const {
  std::vector<torch::Tensor> out = first_moment_;
  out.insert(out.end(), second_moment_.begin(), second_moment_.end());
  return out;
}

void FusedAdam::restore(const std::vector<torch::Tensor>& moments, std::int64_t steps) {
  TOPKFS_ASSERT(moments.size() == 2 * parameters_.size());
  torch::NoGradGuard no_grad;
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    first_moment_[t].copy_(moments[t]);
    second_moment_[t].copy_(moments[parameters_.size() + t]);
  }
  steps_ = steps;
}

std::int64_t row_share_begin(int part, int parts, std::int64_t rows) { return rows * part / parts; }

std::vector<ParameterRun> FusedAdam::slice(int part, int parts) const {
  std::vector<ParameterRun> runs;
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    const auto& parameter = parameters_[t];
    const std::int64_t rows = parameter.dim() == 0 ? 1 : parameter.size(0);
    const std::int64_t row_size = rows == 0 ? 0 : parameter.numel() / rows;
    const int chunks = unit_blocks(rows);
    const auto first = static_cast<int>(row_share_begin(part, parts, chunks));
    const auto last = static_cast<int>(row_share_begin(part + 1, parts, chunks));
    for (int c = first; c < last; ++c) {
      const std::int64_t begin = row_share_begin(c, chunks, rows) * row_size;
      const std::int64_t end = row_share_begin(c + 1, chunks, rows) * row_size;
      runs.push_back({t, begin, end, first_chunk_[t] + static_cast<std::size_t>(c)});
    }
  }
  return runs;
}

std::size_t FusedAdam::chunk_count() const { return first_chunk_.back(); }

void FusedAdam::chunk_norms(const std::vector<ParameterRun>& runs,
                            std::vector<double>& by_chunk) const {
  for (const auto& run : runs) {
    const auto& grad = parameters_[run.tensor].grad();
    double sum = 0.0;
    if (grad.defined()) {
      TOPKFS_ASSERT(grad.is_contiguous());
      sum = kernels::squared_sum(grad.data_ptr<float>() + run.begin, run.end - run.begin);
    }
    by_chunk[run.chunk] = sum;
  }
}

double FusedAdam::squared_norm(const std::vector<double>& by_chunk) {
  double sum = 0.0;
  for (const double chunk : by_chunk) sum += chunk;
  return sum;
}

bool FusedAdam::begin_step(double squared_norm) {
  double factor = 1.0;
  if (settings_.clip > 0) {
    const double norm = std::sqrt(squared_norm);
    if (!std::isfinite(norm)) return false;
    // The same rule as torch::nn::utils::clip_grad_norm_.
    if (norm + 1e-6 > settings_.clip) factor = settings_.clip / (norm + 1e-6);
  }
  ++steps_;
  const double bias1 = 1.0 - std::pow(settings_.beta1, static_cast<double>(steps_));
  const double bias2 = 1.0 - std::pow(settings_.beta2, static_cast<double>(steps_));
  current_.clip_factor = static_cast<float>(factor);
  current_.step_size = static_cast<float>(settings_.lr / bias1);
  current_.inv_sqrt_bias2 = static_cast<float>(1.0 / std::sqrt(bias2));
  // Shared second moments need the whole gradient, which is complete here
  // (a team has summed its parts); every member's runs then read the same value.
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    const auto& grad = parameters_[t].grad();
    if (!shared_[t] || !grad.defined()) continue;
    const float* g = grad.data_ptr<float>();
    const float* p = parameters_[t].data_ptr<float>();
    const auto decay = static_cast<float>(weight_decay_[t]);
    double sum = 0.0;
    for (std::int64_t i = 0; i < grad.numel(); ++i) {
      const double gi = g[i] * current_.clip_factor + decay * p[i];
      sum += gi * gi;
    }
    shared_square_[t] =
        static_cast<float>(sum / static_cast<double>(std::max<std::int64_t>(1, grad.numel())));
  }
  return true;
}

void FusedAdam::set_learning_rate(const torch::Tensor& parameter, double lr) {
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    if (parameters_[t].is_same(parameter)) lr_factor_[t] = static_cast<float>(lr / settings_.lr);
  }
}

void FusedAdam::update(const std::vector<ParameterRun>& runs) const {
  kernels::AdamConstants constants;
  constants.beta1 = static_cast<float>(settings_.beta1);
  constants.beta2 = static_cast<float>(settings_.beta2);
  constants.eps = static_cast<float>(settings_.eps);
  constants.clip_factor = current_.clip_factor;
  constants.step_size = current_.step_size;
  constants.inv_sqrt_bias2 = current_.inv_sqrt_bias2;
  for (const auto& run : runs) {
    const auto& grad = parameters_[run.tensor].grad();
    if (!grad.defined()) continue;
    TOPKFS_ASSERT(grad.is_contiguous());
    constants.decay = static_cast<float>(weight_decay_[run.tensor]);
    constants.step_size = current_.step_size * lr_factor_[run.tensor];
    const std::int64_t at = run.begin;
    float* p = parameters_[run.tensor].data_ptr<float>() + at;
    const float* g = grad.data_ptr<float>() + at;
    float* m = first_moment_[run.tensor].data_ptr<float>() + at;
    float* v = second_moment_[run.tensor].data_ptr<float>() + at;
    if (shared_[run.tensor]) {
      kernels::adam_update_shared(p, g, m, v, run.end - run.begin, constants,
                                  shared_square_[run.tensor]);
    } else {
      kernels::adam_update(p, g, m, v, run.end - run.begin, constants);
    }
  }
}

}  // namespace topkfs
