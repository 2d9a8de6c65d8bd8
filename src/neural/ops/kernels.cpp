#include "kernels.hpp"

#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TOPKFS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TOPKFS_CLONES
#endif

namespace topkfs::kernels {

TOPKFS_CLONES
void adam_update(float* __restrict p, const float* __restrict g, float* __restrict m,
                 float* __restrict v, std::int64_t n, const AdamConstants& c) {
  const AdamConstants k = c;  // in registers, not re-read through the reference
  for (std::int64_t i = 0; i < n; ++i) {
    const float gi = g[i] * k.clip_factor + k.decay * p[i];
    const float mi = k.beta1 * m[i] + (1.0f - k.beta1) * gi;
    const float vi = k.beta2 * v[i] + (1.0f - k.beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= k.step_size * mi / (std::sqrt(vi) * k.inv_sqrt_bias2 + k.eps);
  }
}

void adam_update_shared(float* __restrict p, const float* __restrict g, float* __restrict m,
                        float* __restrict v, std::int64_t n, const AdamConstants& c,
                        float shared_square) {
  const AdamConstants k = c;
  for (std::int64_t i = 0; i < n; ++i) {
    const float gi = g[i] * k.clip_factor + k.decay * p[i];
    const float mi = k.beta1 * m[i] + (1.0f - k.beta1) * gi;
    const float vi = k.beta2 * v[i] + (1.0f - k.beta2) * shared_square;
    m[i] = mi;
    v[i] = vi;
    p[i] -= k.step_size * mi / (std::sqrt(vi) * k.inv_sqrt_bias2 + k.eps);
  }
}

TOPKFS_CLONES
double squared_sum(const float* __restrict x, std::int64_t n) {
  // Eight running sums, so that the loop vectorises without reassociating
  // a single sum (the order is fixed, so the result is too).
  double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int lane = 0; lane < 8; ++lane) {
      const double value = x[i + lane];
      sums[lane] += value * value;
    }
  }
  double total = 0.0;
  for (; i < n; ++i) total += static_cast<double>(x[i]) * x[i];
  for (const double sum : sums) total += sum;
  return total;
}

TOPKFS_CLONES
void accumulate(float* __restrict out, const float* __restrict x, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] += x[i];
}

TOPKFS_CLONES
double add_and_square(const float* __restrict a, const float* __restrict b, float* __restrict out,
                      std::int64_t n) {
  double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int lane = 0; lane < 8; ++lane) {
      const float value = a[i + lane] + b[i + lane];
      out[i + lane] = value;
      sums[lane] += static_cast<double>(value) * value;
    }
  }
  double total = 0.0;
  for (; i < n; ++i) {
    out[i] = a[i] + b[i];
    total += static_cast<double>(out[i]) * out[i];
  }
  for (const double sum : sums) total += sum;
  return total;
}

TOPKFS_CLONES
void relu(float* __restrict x, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

TOPKFS_CLONES
void relu_backward(float* __restrict grad, const float* __restrict activation, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) grad[i] = activation[i] > 0.0f ? grad[i] : 0.0f;
}

TOPKFS_CLONES
void gate_gradient_row(float* __restrict a, const float* __restrict weight,
                       const float* __restrict gate, float* __restrict gate_grad, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    const float value = a[j];
    gate_grad[j] += weight[j] * value;
    a[j] = value * gate[j];
  }
}

}  // namespace topkfs::kernels
