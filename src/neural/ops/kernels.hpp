#pragma once
// The trainer's elementwise loops over raw float arrays. Debian builds for
// plain x86-64 (SSE2), where Adam's square root and division run four lanes
// at a time; each kernel is also compiled for AVX2 and AVX-512 and the
// loader picks the widest the CPU has (GCC's target_clones). Results are
// exactly rounded either way except for fused multiply-adds, so a seed gives
// one result per machine.
#include <cstdint>

namespace topkfs::kernels {

struct AdamConstants {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float decay = 0.0f;           // L2 weight decay added to the gradient
  float clip_factor = 1.0f;     // scales the gradient first
  float step_size = 0.0f;       // lr / (1 - beta1^t)
  float inv_sqrt_bias2 = 1.0f;  // 1 / sqrt(1 - beta2^t)
};

// One Adam update of n parameters p with gradient g and moments m, v.
void adam_update(float* p, const float* g, float* m, float* v, std::int64_t n,
                 const AdamConstants& c);

// The same update with one second-moment term shared by the n parameters:
// `shared_square` (the mean squared gradient of the whole tensor, clipped and
// with decay) stands in for each element's own squared gradient, so every
// element's step is proportional to its gradient.
void adam_update_shared(float* p, const float* g, float* m, float* v, std::int64_t n,
                        const AdamConstants& c, float shared_square);

// Sum of squares in double (huge finite gradients overflow a float sum).
double squared_sum(const float* x, std::int64_t n);

// out += x.
void accumulate(float* out, const float* x, std::int64_t n);

// out = a + b, returning the sum of squares of out (as squared_sum): one
// pass where a copy, a sum and a norm would take three.
double add_and_square(const float* a, const float* b, float* out, std::int64_t n);

// x = max(x, 0).
void relu(float* x, std::int64_t n);

// grad = activation > 0 ? grad : 0: a ReLU's backward read off its output.
void relu_backward(float* grad, const float* activation, std::int64_t n);

// For one row i of a gated first layer: gate_grad[j] += weight[j] * a[j],
// then a[j] *= gate[j] (a: the row of A = G^T x that becomes dW's row).
void gate_gradient_row(float* a, const float* weight, const float* gate, float* gate_grad,
                       std::int64_t n);

}  // namespace topkfs::kernels
