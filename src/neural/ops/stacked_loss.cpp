#include "stacked_loss.hpp"

#include <torch/autograd.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The shapes of one call: `rows` rows of `width` outputs for `batch` targets.
struct Shape {
  std::int64_t rows = 0;
  std::int64_t width = 0;
  std::int64_t batch = 0;
};

Shape shape_of(const Tensor& output, const Tensor& targets, NeuralTask task) {
  TOPKFS_ASSERT(output.dim() == 2 && output.scalar_type() == torch::kFloat &&
                output.is_contiguous());
  Shape shape{output.size(0), output.size(1), targets.size(0)};
  TOPKFS_ASSERT(shape.rows == shape.batch ||
                (shape.batch > 0 && shape.rows % shape.batch == 0 && shape.rows > shape.batch));
  TOPKFS_ASSERT(targets.is_contiguous());
  if (task == NeuralTask::MultiClass) {
    TOPKFS_ASSERT(targets.scalar_type() == torch::kLong && targets.dim() == 1);
  } else {
    TOPKFS_ASSERT(targets.scalar_type() == torch::kFloat &&
                  targets.numel() == shape.batch * shape.width);
  }
  return shape;
}

// log(sum_j exp(z_j)) of one row, shifted by its largest value for range.
float log_sum_exp(const float* z, std::int64_t width) {
  float largest = -std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < width; ++j) largest = std::max(largest, z[j]);
  if (!std::isfinite(largest)) return largest;
  float sum = 0.0f;
  for (std::int64_t j = 0; j < width; ++j) sum += std::exp(z[j] - largest);
  return largest + std::log(sum);
}

// The logistic loss of logit z against target t, stable for large |z|:
// max(z, 0) - z t + log(1 + exp(-|z|)).
float logistic_loss(float z, float t) {
  return std::max(z, 0.0f) - z * t + std::log1p(std::exp(-std::abs(z)));
}

float sigmoid(float z) { return 1.0f / (1.0f + std::exp(-z)); }

struct StackedLoss : public torch::autograd::Function<StackedLoss> {
  static Tensor forward(AutogradContext* ctx, Tensor output, Tensor targets, Tensor weights,
                        int64_t task_code, double second_weight) {
    const auto task = static_cast<NeuralTask>(task_code);
    const Shape shape = shape_of(output, targets, task);
    TOPKFS_ASSERT(weights.numel() == 0 || weights.numel() == shape.batch);
    const float* w = weights.numel() > 0 ? weights.data_ptr<float>() : nullptr;
    const float* z = output.data_ptr<float>();
    // Per row, for the backward pass: log-sum-exp (classes), else unused.
    Tensor log_norms = torch::empty({task == NeuralTask::MultiClass ? shape.rows : 0});
    double first = 0.0;
    double second = 0.0;
    for (std::int64_t i = 0; i < shape.rows; ++i, z += shape.width) {
      const std::int64_t target_row = i % shape.batch;
      double row_loss = 0.0;
      if (task == NeuralTask::MultiClass) {
        const std::int64_t label = targets.data_ptr<std::int64_t>()[target_row];
        TOPKFS_ASSERT(label >= 0 && label < shape.width);
        const float norm = log_sum_exp(z, shape.width);
        log_norms.data_ptr<float>()[i] = norm;
        row_loss = static_cast<double>(norm) - z[label];
      } else {
        const float* t = targets.data_ptr<float>() + target_row * shape.width;
        double sum = 0.0;
        for (std::int64_t j = 0; j < shape.width; ++j) {
          const float d = z[j] - t[j];
          sum += task == NeuralTask::Binary ? logistic_loss(z[j], t[j]) : d * d;
        }
        row_loss = sum / static_cast<double>(shape.width);
      }
      if (w != nullptr) row_loss *= w[target_row];
      (i < shape.batch ? first : second) += row_loss;
    }
    ctx->save_for_backward({output, targets, log_norms, weights});
    ctx->saved_data["task"] = task_code;
    ctx->saved_data["second_weight"] = second_weight;
    const double mean = (first + second_weight * second) / static_cast<double>(shape.batch);
    // As a float first, as libtorch's losses: a diverging network gives inf.
    return torch::full({}, static_cast<float>(mean), output.options());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& output = saved[0];
    const Tensor& targets = saved[1];
    const auto task = static_cast<NeuralTask>(ctx->saved_data["task"].toInt());
    const double second_weight = ctx->saved_data["second_weight"].toDouble();
    const Shape shape = shape_of(output, targets, task);
    const float* w = saved[3].numel() > 0 ? saved[3].data_ptr<float>() : nullptr;
    const double upstream = grads[0].item<double>() / static_cast<double>(shape.batch);
    Tensor grad = torch::empty_like(output);
    const float* z = output.data_ptr<float>();
    float* out = grad.data_ptr<float>();
    for (std::int64_t i = 0; i < shape.rows; ++i, z += shape.width, out += shape.width) {
      const std::int64_t target_row = i % shape.batch;
      double row_scale = i < shape.batch ? upstream : upstream * second_weight;
      if (w != nullptr) row_scale *= w[target_row];
      if (task == NeuralTask::MultiClass) {
        // d/dz_j = softmax_j - [j is the label]
        const auto scale = static_cast<float>(row_scale);
        const float norm = saved[2].data_ptr<float>()[i];
        for (std::int64_t j = 0; j < shape.width; ++j) out[j] = scale * std::exp(z[j] - norm);
        out[targets.data_ptr<std::int64_t>()[target_row]] -= scale;
        continue;
      }
      // Binary: (sigmoid(z) - t) / width; Regression: 2 (z - t) / width.
      const float* t = targets.data_ptr<float>() + target_row * shape.width;
      const auto scale = static_cast<float>(row_scale / static_cast<double>(shape.width));
      for (std::int64_t j = 0; j < shape.width; ++j) {
        out[j] = task == NeuralTask::Binary ? scale * (sigmoid(z[j]) - t[j])
                                            : scale * 2.0f * (z[j] - t[j]);
      }
    }
    return {grad, Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

Tensor stacked_data_loss(const Tensor& output, const Tensor& targets, NeuralTask task,
                         double second_weight, const Tensor& weights) {
  if (targets.size(0) == 0) {
    return torch::full({}, std::numeric_limits<float>::quiet_NaN(), output.options());
  }
  const Tensor row_weights = weights.defined() ? weights.contiguous() : torch::empty({0});
  return StackedLoss::apply(output.contiguous(), targets.contiguous(), row_weights,
                            static_cast<int64_t>(task), second_weight);
}

}  // namespace topkfs
