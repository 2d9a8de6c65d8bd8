#include "team_first_layer.hpp"

#include "neural/ops/fused_adam.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

void ensure_shape(Tensor& buffer, std::int64_t rows, std::int64_t cols) {
  if (!buffer.defined() || buffer.size(0) != rows || buffer.size(1) != cols) {
    buffer = torch::empty({rows, cols});
  }
}

}  // namespace

TeamFirstLayer::TeamFirstLayer(int members) : members_(members), barrier_(members) {}

void TeamFirstLayer::begin_step(std::int64_t rows, std::int64_t inputs) {
  TOPKFS_ASSERT(rows >= members_);
  rows_ = rows;
  ensure_shape(batch_, rows, inputs);
  barrier_.reset();
}

std::int64_t TeamFirstLayer::first_row(int member) const {
  return row_share_begin(member, members_, rows_);
}

Tensor TeamFirstLayer::member_rows(int member) const {
  const std::int64_t first = first_row(member);
  return torch::from_blob(batch_.data_ptr<float>() + first * batch_.size(1),
                          {first_row(member + 1) - first, batch_.size(1)}, batch_.options());
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
}

Tensor TeamFirstLayer::forward(int member, const Tensor& x, const Tensor& w, const Tensor& subset,
                               const Tensor& weight, const Tensor& bias) {
  const std::int64_t row = first_row(member);
  const std::int64_t rows = first_row(member + 1) - row;
  // x must be this member's rows of the shared batch (member_rows): the
  // other members read them too.
  TOPKFS_ASSERT(x.data_ptr<float>() == batch_.data_ptr<float>() + row * batch_.size(1) &&
                x.size(0) == rows);
  const std::int64_t hidden = weight.size(0);
  const bool with_sub = subset.numel() > 0;
  ensure_buffers(hidden, with_sub);
  Tensor gated_rows = gated_.narrow(0, row, rows);
  torch::mul_out(gated_rows, x, w);
  barrier_.wait();  // all rows of x and x * w are in

  const std::int64_t unit = row_share_begin(member, members_, hidden);
  const std::int64_t units = row_share_begin(member + 1, members_, hidden) - unit;
  if (units > 0) {
    // This member's units for every row; the outputs are strided column
    // blocks, written in place.
    const Tensor unit_weight = weight.narrow(0, unit, units);
    const Tensor unit_bias = bias.narrow(0, unit, units);
    Tensor out = outputs_.narrow(1, unit, units);
    Tensor out_sub = with_sub ? outputs_sub_.narrow(1, unit, units) : Tensor();
    gated_products(out, out_sub, gated_, unit_weight, unit_bias, subset);
  }
  barrier_.wait();  // all units' outputs are in

  Tensor z = torch::empty({with_sub ? 2 * rows : rows, hidden});
  z.narrow(0, 0, rows).copy_(outputs_.narrow(0, row, rows));
  if (with_sub) z.narrow(0, rows, rows).copy_(outputs_sub_.narrow(0, row, rows));
  return z;
}

GatedLayerGradients TeamFirstLayer::gradients(int member, const Tensor& grad,
                                              const Tensor& grad_sub, const Tensor& gate,
                                              const Tensor& weight, const Tensor& subset) {
  const std::int64_t row = first_row(member);
  const std::int64_t rows = first_row(member + 1) - row;
  TOPKFS_ASSERT(grad.size(0) == rows);
  const bool with_sub = subset.numel() > 0;
  grad_.narrow(0, row, rows).copy_(grad);
  if (with_sub) grad_sub_.narrow(0, row, rows).copy_(grad_sub);
  barrier_.wait();  // every row's output gradient is in

  const std::int64_t hidden = weight.size(0);
  const std::int64_t unit = row_share_begin(member, members_, hidden);
  const std::int64_t units = row_share_begin(member + 1, members_, hidden) - unit;
  Tensor grad_gate = torch::zeros({weight.size(1)});
  if (units > 0) {
    // This member's rows of A = G^T x (+ G_S^T x_S at S), from every row.
    Tensor unit_rows = accumulated_.narrow(0, unit, units);
    accumulate_gate_products(unit_rows, grad_.narrow(1, unit, units),
                             with_sub ? grad_sub_.narrow(1, unit, units) : Tensor(), batch_,
                             subset);
    gate_pass(unit_rows, weight.narrow(0, unit, units), gate, grad_gate);
  }
  // The other members' rows of A are theirs to finish; the team joins before
  // anyone reads the weight gradient.
  return {member == 0 ? accumulated_ : Tensor(), grad_gate};
}

}  // namespace topkfs
