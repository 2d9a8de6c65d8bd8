#pragma once
// The fixed cut of a training step that makes its result the same for any
// number of threads. A team step (ParallelStep) cuts the minibatch's rows
// into row blocks, the first layer's hidden units into unit blocks and every
// parameter's rows into chunks, all decided by the sizes alone: every
// matrix product then has the same shape, and every sum adds the same
// blocks in the same order, whether one thread takes all the blocks or
// several threads share them. (OpenBLAS's result for an element of a
// product depends on the shape of the product it is computed in, so cutting
// a product another way changes the last bits: docs/reliability.md, "Same
// selection for any thread count".) A team has as many working members as
// there are blocks at most.
//
// The blocks are as large as the team's speed-up allows: every block costs
// a pass of its own through the network's smaller layers, and a narrower
// product runs slower, so one thread pays for every cut (measured in
// bench/speed/results/2026-12-07-thread-invariance.md).
#include <algorithm>
#include <cstdint>

namespace topkfs {

// Rows of a row block, at least: a minibatch of 128 rows (the default) has
// 2 blocks, one of 256 has 4.
constexpr std::int64_t kRowsPerBlock = 64;
// Hidden units of a unit block, at least: 256 units (the default first
// layer) make 2 blocks.
constexpr std::int64_t kUnitsPerBlock = 128;

// The row blocks of a minibatch of `rows` rows: one per kRowsPerBlock rows
// (at least one; none without rows).
inline int row_blocks(std::int64_t rows) {
  return static_cast<int>(
      std::min<std::int64_t>(rows, std::max<std::int64_t>(1, rows / kRowsPerBlock)));
}

// The unit blocks of a layer of `units` units, and the chunks of a
// parameter of `units` rows (FusedAdam::slice: the first layer's weights
// are cut alike): one per kUnitsPerBlock (at least one; none of nothing).
inline int unit_blocks(std::int64_t units) {
  return static_cast<int>(
      std::min<std::int64_t>(units, std::max<std::int64_t>(1, units / kUnitsPerBlock)));
}

}  // namespace topkfs
