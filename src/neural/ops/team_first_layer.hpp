#pragma once
// The gated first layer of a team step (ParallelStep), split among the
// members by hidden units where the rest of the network is split by rows.
//
// Split by rows, every member reads all of the first layer's H x m weights
// in its forward pass, writes a whole H x m gradient A = G^T x from half the
// rows, runs the gate pass over all of it, the halves are summed, and every
// weight that one core updates was read by the other: work and cache traffic
// that do not shrink with the rows. Here the units are cut into
// unit_blocks(H) unit blocks (step_blocks.hpp) and each member owns some of
// them: it computes their outputs for every row of the minibatch, their rows
// of A and of the weight gradient, and (FusedAdam::slice cuts alike) their
// Adam update, so those weights never leave its core.
//
// The minibatch's rows are cut into row_blocks(rows) row blocks, and the
// model's loss is taken one row block at a time, a member taking some of
// them. Each unit block is one product over every row, each row block's loss
// and gradients are their own, and the gate's gradient is a sum per unit
// block, added in block order by the step: nothing depends on how many
// members share the blocks. The members meet three times per step: when
// the minibatch is in the shared buffer (a member's first forward call),
// when the layer's outputs are, and when its output gradients are (its last
// backward call).
#include <torch/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "neural/model/network.hpp"
#include "neural/runtime/worker_team.hpp"

namespace topkfs {

struct FirstLayerSeat;

class TeamFirstLayer {
 public:
  explicit TeamFirstLayer(int members);

  // Before the members' part of a step of `rows` rows (at least one) of
  // `inputs` columns: cuts the rows into blocks and shares them out.
  void begin_step(std::int64_t rows, std::int64_t inputs);
  // The step's row blocks; member `member` takes blocks
  // [first_block(member), first_block(member + 1)), none when there are
  // fewer blocks than members.
  int blocks() const { return blocks_; }
  int first_block(int member) const;
  // The first row of block `block` (of block blocks(): the step's rows).
  std::int64_t block_row(int block) const;
  // Rows [block_row(first), block_row(last)) of the step's shared minibatch
  // buffer, which the member that owns those blocks fills and gives the
  // network as x one block at a time. Not a view of the buffer, so that
  // writing it does not count as a change of what the other members'
  // autograd graphs saved.
  torch::Tensor block_rows(int first, int last) const;
  // Where the members meet; a member that fails outside the layer aborts it,
  // so that the others stop waiting.
  SpinBarrier& barrier() { return barrier_; }

  // The layer's outputs on the seat's row block (x, as block_rows gave
  // them): z = (x * w) W^T + b, then given a non-empty int64 subset S the
  // sub-model's z_S = (x_S * w_S) W_S^T + b on the same rows after them
  // (2 x rows x H). A member's first call of a step computes its unit
  // blocks for every row with the other members, so every member with
  // blocks must call it.
  torch::Tensor forward(const FirstLayerSeat& seat, const torch::Tensor& x, const torch::Tensor& w,
                        const torch::Tensor& subset, const torch::Tensor& weight,
                        const torch::Tensor& bias);
  // Its backward pass on the seat's row block, from the gradient of those
  // outputs (lead rows `grad`, sub-model rows `grad_sub`). A member's last
  // call of a step computes, with the other members, its unit blocks'
  // weight gradient and gate gradient from every row; the step reads them
  // (weight_gradient, gate_parts) once the team is done.
  void backward(const FirstLayerSeat& seat, const torch::Tensor& grad,
                const torch::Tensor& grad_sub, const torch::Tensor& gate,
                const torch::Tensor& weight, const torch::Tensor& subset);

  // After the step: whether the model's loss went through the layer, and
  // then the weights it saw (to find the parameters), the whole minibatch's
  // weight gradient (H x m), and the gate's gradient of each unit block
  // (rows of unit_blocks x m), to be added in that order.
  bool used() const { return used_.load(); }
  const void* weight_data() const { return weight_data_; }
  const void* gate_data() const { return gate_data_; }
  const torch::Tensor& weight_gradient() const { return accumulated_; }
  std::vector<torch::Tensor> gate_parts() const;

  // The first rows of the unit blocks of a layer of `hidden` units, and
  // `hidden`: the rows of the weight gradient that each unit block finishes.
  static std::vector<std::int64_t> unit_block_rows(std::int64_t hidden);
  // Called by the member that finishes a unit block's rows of the weight
  // gradient, with the block and the rows (contiguous, final until the next
  // step), while the other blocks may still be computed: a data-parallel
  // step starts their sum over the ranks there (GradientBuckets).
  using RowsReady = std::function<void(int block, const float* rows)>;
  void on_weight_rows_ready(RowsReady ready) { rows_ready_ = std::move(ready); }

 private:
  // Sizes the buffers of a layer of `hidden` units; the first member to
  // arrive does it.
  void ensure_buffers(std::int64_t hidden, bool with_sub);
  // The unit blocks of member `member`: [first, last) of unit_blocks(hidden).
  std::pair<int, int> unit_blocks_of(int member, std::int64_t hidden) const;

  const int members_;
  int parties_ = 1;  // members with row blocks this step
  std::int64_t rows_ = 0;
  int blocks_ = 0;
  SpinBarrier barrier_;
  std::mutex allocation_;
  std::vector<int> forward_calls_;   // per member, this step
  std::vector<int> backward_calls_;  // per member, this step
  std::atomic<bool> used_{false};
  const void* weight_data_ = nullptr;
  const void* gate_data_ = nullptr;
  torch::Tensor batch_;        // rows x m: x
  torch::Tensor gated_;        // rows x m: x * w
  torch::Tensor outputs_;      // rows x H: the lead's z
  torch::Tensor outputs_sub_;  // rows x H: the sub-model's z_S
  torch::Tensor grad_;         // rows x H: G on the lead's rows
  torch::Tensor grad_sub_;     // rows x H: G on the sub-model's rows
  torch::Tensor accumulated_;  // H x m: A, then dW
  torch::Tensor gate_parts_;   // unit blocks x m: each unit block's dw
  RowsReady rows_ready_;
};

// One member's place in a team step's first layer: the layer, the member and
// the row block whose loss it takes. The team step hands it to the model's
// loss (LoopModel::batch_loss), which hands it to the network
// (TopKNetwork::forward), so that the fused MLP computes that block with the
// team's layer; where there is no team step the pointer passed is null and
// the fused MLP computes the whole layer. Passed down explicitly rather than
// found in a thread-local, so that what a forward pass does can be read from
// its arguments.
struct FirstLayerSeat {
  TeamFirstLayer* layer = nullptr;
  int member = 0;
  int block = 0;
};

}  // namespace topkfs
