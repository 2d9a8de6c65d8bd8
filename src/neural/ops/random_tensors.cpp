#include "random_tensors.hpp"

#include <cmath>

namespace topkfs {

torch::Tensor normal_tensor(Rng& rng, torch::IntArrayRef shape) {
  torch::Tensor out = torch::empty(shape);
  float* data = out.data_ptr<float>();
  for (std::int64_t i = 0; i < out.numel(); ++i) data[i] = static_cast<float>(rng.normal());
  return out;
}

torch::Tensor gumbel_tensor(Rng& rng, torch::IntArrayRef shape) {
  // u is kept away from 0 and 1, where the variate is infinite.
  constexpr double kTiny = 1e-12;
  torch::Tensor out = torch::empty(shape);
  float* data = out.data_ptr<float>();
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    const double u = kTiny + (1.0 - 2.0 * kTiny) * rng.uniform();
    data[i] = static_cast<float>(-std::log(-std::log(u)));
  }
  return out;
}

}  // namespace topkfs
