#pragma once
// The fixed cut of a training step that makes its result the same for any
// number of threads. A team step (ParallelStep) cuts the minibatch's rows,
// the first layer's hidden units and every parameter's rows into at most
// kStepBlocks blocks each, decided by the sizes alone: every matrix product
// then has the same shape, and every sum adds the same blocks in the same
// order, whether one thread takes all the blocks or several threads share
// them. (OpenBLAS's result for an element of a product depends on the shape
// of the product it is computed in, so cutting a product another way
// changes the last bits: docs/reliability.md, "Same selection for any
// thread count".) A team has as many working members as there are blocks at
// most.
#include <algorithm>
#include <cstdint>

namespace topkfs {

constexpr int kStepBlocks = 4;

// The blocks of a dimension of `size` elements: kStepBlocks, or `size` when
// smaller.
inline int step_blocks(std::int64_t size) {
  return static_cast<int>(std::min<std::int64_t>(kStepBlocks, size));
}

}  // namespace topkfs
