#pragma once
// The gated first layer of a team step (ParallelStep), split among the
// members by hidden units where the rest of the network is split by rows.
//
// Split by rows, every member reads all of the first layer's H x m weights
// in its forward pass, writes a whole H x m gradient A = G^T x from half the
// rows, runs the gate pass over all of it, the halves are summed, and every
// weight that one core updates was read by the other: work and cache traffic
// that do not shrink with the rows. Here member j owns hidden units
// [row_share_begin(j), row_share_begin(j + 1)) of the layer: it computes
// their outputs for every row of the minibatch, their rows of A and of the
// weight gradient, and (FusedAdam::slice cuts alike) their Adam update, so
// those weights never leave its core. The members meet three times per step:
// when the minibatch is in the shared buffer, when the layer's outputs are,
// and when its output gradients are.
#include <torch/types.h>

#include <cstdint>
#include <mutex>

#include "neural/model/network.hpp"
#include "neural/runtime/worker_team.hpp"

namespace topkfs {

class TeamFirstLayer {
 public:
  explicit TeamFirstLayer(int members);

  // Before the members' part of a step of `rows` rows (at least one per
  // member) of `inputs` columns.
  void begin_step(std::int64_t rows, std::int64_t inputs);
  // The rows of the minibatch that member `member` takes through the rest of
  // the network: [row_share_begin(member), row_share_begin(member + 1)).
  std::int64_t first_row(int member) const;
  // Member `member`'s rows of the step's shared minibatch buffer, which the
  // member fills and gives the network as x. Not a view of the buffer, so
  // that writing it does not count as a change of what the other members'
  // autograd graphs saved.
  torch::Tensor member_rows(int member) const;
  // Where the members meet; a member that fails outside the layer aborts it,
  // so that the others stop waiting.
  SpinBarrier& barrier() { return barrier_; }

  // The layer's outputs on member `member`'s rows (x, as member_rows gave
  // them): z = (x * w) W^T + b, then given a non-empty int64 subset S the
  // sub-model's z_S = (x_S * w_S) W_S^T + b on the same rows after them
  // (2 x rows x H). Every member must call it.
  torch::Tensor forward(int member, const torch::Tensor& x, const torch::Tensor& w,
                        const torch::Tensor& subset, const torch::Tensor& weight,
                        const torch::Tensor& bias);
  // Its backward pass, from the gradient of those outputs (lead rows `grad`,
  // sub-model rows `grad_sub`): the whole minibatch's weight gradient for
  // member 0 (undefined for the others: there is nothing to add) and member
  // `member`'s part of the gate gradient (the parts add up). Every member
  // must call it.
  GatedLayerGradients gradients(int member, const torch::Tensor& grad,
                                const torch::Tensor& grad_sub, const torch::Tensor& gate,
                                const torch::Tensor& weight, const torch::Tensor& subset);

 private:
  // Sizes the buffers of a layer of `hidden` units; the first member to
  // arrive does it.
  void ensure_buffers(std::int64_t hidden, bool with_sub);

  const int members_;
  std::int64_t rows_ = 0;
  SpinBarrier barrier_;
  std::mutex allocation_;
  torch::Tensor batch_;        // rows x m: x
  torch::Tensor gated_;        // rows x m: x * w
  torch::Tensor outputs_;      // rows x H: the lead's z
  torch::Tensor outputs_sub_;  // rows x H: the sub-model's z_S
  torch::Tensor grad_;         // rows x H: G on the lead's rows
  torch::Tensor grad_sub_;     // rows x H: G on the sub-model's rows
  torch::Tensor accumulated_;  // H x m: A, then dW
};

// One member's place in a team step's first layer. The team step hands it to
// the model's loss (LoopModel::batch_loss), which hands it to the network
// (TopKNetwork::forward), so that the fused MLP computes that member's share
// of the first layer with the team; where there is no team step the pointer
// passed is null and the fused MLP computes the whole layer. Passed down
// explicitly rather than found in a thread-local, so that what a forward
// pass does can be read from its arguments.
struct FirstLayerSeat {
  TeamFirstLayer* layer = nullptr;
  int member = 0;
};

}  // namespace topkfs
