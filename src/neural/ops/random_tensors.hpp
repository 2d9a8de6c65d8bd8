#pragma once
// Noise tensors drawn from topkfs's seeded Rng rather than libtorch's global
// generator, so that a seed alone fixes every draw (core/random.hpp).
#include <torch/types.h>

#include "topkfs/core/random.hpp"

namespace topkfs {

// Independent standard normals, float.
torch::Tensor normal_tensor(Rng& rng, torch::IntArrayRef shape);

// Independent standard Gumbel variates -log(-log(u)), float.
torch::Tensor gumbel_tensor(Rng& rng, torch::IntArrayRef shape);

}  // namespace topkfs
