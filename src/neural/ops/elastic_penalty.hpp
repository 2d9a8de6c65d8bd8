#pragma once
// lambda2 * sum |w| + lambda1 * sum w^2 as one autograd node: through plain
// autograd it is eight small operations a step, forward and backward, whose
// dispatch costs more than the arithmetic on a vector of a few hundred.
#include <torch/types.h>

namespace topkfs {

// The gradient at w = 0 takes sign(0) = 0 for |w|, as libtorch's abs does.
torch::Tensor elastic_penalty(const torch::Tensor& w, double lambda1, double lambda2);

}  // namespace topkfs
