#include "team_first_layer.hpp"

#include <algorithm>

#include "neural/ops/fused_adam.hpp"
#include "neural/ops/step_blocks.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

void ensure_shape(Tensor& buffer, std::int64_t rows, std::int64_t cols) {
  if (!buffer.defined() || buffer.size(0) != rows || buffer.size(1) != cols) {
    buffer = torch::empty({rows, cols});
  }
}

std::int64_t unit_block_begin(int block, std::int64_t hidden) {
  return row_share_begin(block, unit_blocks(hidden), hidden);
}

}  // namespace

TeamFirstLayer::TeamFirstLayer(int members)
    : members_(members),
      barrier_(members),
      forward_calls_(static_cast<std::size_t>(members), 0),
      backward_calls_(static_cast<std::size_t>(members), 0) {}

void TeamFirstLayer::begin_step(std::int64_t rows, std::int64_t inputs) {
  TOPKFS_ASSERT(rows >= 1);
  rows_ = rows;
  blocks_ = row_blocks(rows);
  parties_ = std::min(members_, blocks_);
  ensure_shape(batch_, rows, inputs);
  std::fill(forward_calls_.begin(), forward_calls_.end(), 0);
  std::fill(backward_calls_.begin(), backward_calls_.end(), 0);
  used_.store(false);
  barrier_.reset(parties_);
}

int TeamFirstLayer::first_block(int member) const {
  // The first parties_ members share the blocks; the others get none.
  return static_cast<int>(row_share_begin(std::min(member, parties_), parties_, blocks_));
}

std::int64_t TeamFirstLayer::block_row(int block) const {
  return row_share_begin(block, blocks_, rows_);
}

Tensor TeamFirstLayer::block_rows(int first, int last) const {
  const std::int64_t row = block_row(first);
  return torch::from_blob(batch_.data_ptr<float>() + row * batch_.size(1),
                          {block_row(last) - row, batch_.size(1)}, batch_.options());
}

std::pair<int, int> TeamFirstLayer::unit_blocks_of(int member, std::int64_t hidden) const {
  // The members with row blocks are the first parties_ (first_block): they
  // share the unit blocks, as FusedAdam::slice shares every parameter's.
  const int units = unit_blocks(hidden);
  return {static_cast<int>(row_share_begin(member, parties_, units)),
          static_cast<int>(row_share_begin(member + 1, parties_, units))};
}

void TeamFirstLayer::ensure_buffers(std::int64_t hidden, bool with_sub) {
  const std::lock_guard<std::mutex> lock(allocation_);
  const std::int64_t inputs = batch_.size(1);
  ensure_shape(gated_, rows_, inputs);
  ensure_shape(outputs_, rows_, hidden);
  ensure_shape(grad_, rows_, hidden);
  if (with_sub) {
    ensure_shape(outputs_sub_, rows_, hidden);
    ensure_shape(grad_sub_, rows_, hidden);
  }
  ensure_shape(accumulated_, hidden, inputs);
  ensure_shape(gate_parts_, unit_blocks(hidden), inputs);
}

Tensor TeamFirstLayer::forward(const FirstLayerSeat& seat, const Tensor& x, const Tensor& w,
                               const Tensor& subset, const Tensor& weight, const Tensor& bias) {
  const int member = seat.member;
  const std::int64_t row = block_row(seat.block);
  const std::int64_t rows = block_row(seat.block + 1) - row;
  // x must be the block's rows of the shared batch (block_rows): the other
  // members read them too.
  TOPKFS_ASSERT(x.data_ptr<float>() == batch_.data_ptr<float>() + row * batch_.size(1) &&
                x.size(0) == rows && seat.block >= first_block(member) &&
                seat.block < first_block(member + 1));
  const std::int64_t hidden = weight.size(0);
  const bool with_sub = subset.numel() > 0;
  if (forward_calls_[static_cast<std::size_t>(member)]++ == 0) {
    ensure_buffers(hidden, with_sub);
    if (member == 0) {
      weight_data_ = weight.data_ptr();
      gate_data_ = w.data_ptr();
      used_.store(true);
    }
    const std::int64_t own = block_row(first_block(member));
    const std::int64_t own_rows = block_row(first_block(member + 1)) - own;
    Tensor gated_rows = gated_.narrow(0, own, own_rows);
    torch::mul_out(gated_rows, batch_.narrow(0, own, own_rows), w);
    barrier_.wait();  // all rows of x and x * w are in

    // This member's unit blocks for every row, one product each; the
    // outputs are strided column blocks, written in place.
    const auto [first, last] = unit_blocks_of(member, hidden);
    for (int block = first; block < last; ++block) {
      const std::int64_t unit = unit_block_begin(block, hidden);
      const std::int64_t units = unit_block_begin(block + 1, hidden) - unit;
      Tensor out = outputs_.narrow(1, unit, units);
      Tensor out_sub = with_sub ? outputs_sub_.narrow(1, unit, units) : Tensor();
      gated_products(out, out_sub, gated_, weight.narrow(0, unit, units),
                     bias.narrow(0, unit, units), subset);
    }
    barrier_.wait();  // all units' outputs are in
  }
  Tensor z = torch::empty({with_sub ? 2 * rows : rows, hidden});
  z.narrow(0, 0, rows).copy_(outputs_.narrow(0, row, rows));
  if (with_sub) z.narrow(0, rows, rows).copy_(outputs_sub_.narrow(0, row, rows));
  return z;
}

void TeamFirstLayer::backward(const FirstLayerSeat& seat, const Tensor& grad,
                              const Tensor& grad_sub, const Tensor& gate, const Tensor& weight,
                              const Tensor& subset) {
  const int member = seat.member;
  const std::int64_t row = block_row(seat.block);
  const std::int64_t rows = block_row(seat.block + 1) - row;
  TOPKFS_ASSERT(grad.size(0) == rows);
  const bool with_sub = subset.numel() > 0;
  grad_.narrow(0, row, rows).copy_(grad);
  if (with_sub) grad_sub_.narrow(0, row, rows).copy_(grad_sub);
  const int own_blocks = first_block(member + 1) - first_block(member);
  if (++backward_calls_[static_cast<std::size_t>(member)] < own_blocks) return;
  barrier_.wait();  // every row's output gradient is in

  // This member's unit blocks of A = G^T x (+ G_S^T x_S at S) from every
  // row, then their weight gradient in place and their part of the gate's.
  const std::int64_t hidden = weight.size(0);
  const auto [first, last] = unit_blocks_of(member, hidden);
  for (int block = first; block < last; ++block) {
    const std::int64_t unit = unit_block_begin(block, hidden);
    const std::int64_t units = unit_block_begin(block + 1, hidden) - unit;
    Tensor unit_rows = accumulated_.narrow(0, unit, units);
    accumulate_gate_products(unit_rows, grad_.narrow(1, unit, units),
                             with_sub ? grad_sub_.narrow(1, unit, units) : Tensor(), batch_,
                             subset);
    Tensor part = gate_parts_[block];
    gate_pass(unit_rows, weight.narrow(0, unit, units), gate, part);
    if (rows_ready_) rows_ready_(block, unit_rows.data_ptr<float>());
  }
  // The other members' unit blocks are theirs to finish; the team joins
  // before anyone reads the gradients.
}

std::vector<std::int64_t> TeamFirstLayer::unit_block_rows(std::int64_t hidden) {
  std::vector<std::int64_t> rows;
  for (int block = 0; block <= unit_blocks(hidden); ++block) {
    rows.push_back(unit_block_begin(block, hidden));
  }
  return rows;
}

std::vector<Tensor> TeamFirstLayer::gate_parts() const {
  std::vector<Tensor> parts;
  for (std::int64_t block = 0; block < gate_parts_.size(0); ++block) {
    parts.push_back(gate_parts_[block]);
  }
  return parts;
}

}  // namespace topkfs
