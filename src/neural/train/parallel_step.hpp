#pragma once
// A training step on a team of threads (LoopSettings::batch_workers), or on
// one thread as a team of one: the minibatch's rows are cut into
// row_blocks(rows) row blocks (step_blocks.hpp), whatever the team's size,
// each member takes the loss and gradients of some of them, one block at a
// time with single-threaded kernels, except that a fused MLP's first layer
// is split by unit blocks among the members in lockstep (TeamFirstLayer);
// then each member adds up the blocks' gradients and takes the Adam step on
// its own chunks of every parameter. Every phase but the optimizer's few
// scalars runs on all members, which is what lets two cores go nearly twice
// as fast as one.
//
// Invariants of a team step (what the code relies on, in one place):
//  1. Lockstep. Every member with row blocks takes the whole step, forward
//     and backward, block by block; when the loss goes through the first
//     layer, the members meet at the layer's SpinBarrier three times a step
//     (a member's first forward call and its last backward call). Every
//     block's backward pass is taken, even after a loss that is not finite,
//     since the others may wait for it inside the layer; the step's
//     gradients are then discarded (gradients() returns the loss untouched,
//     apply() is not called) and training stops with an error. Members
//     beyond the blocks (a minibatch of fewer blocks than members) do
//     nothing.
//  2. Failure aborts the barrier. A member that throws inside its part
//     aborts the barrier, so that the members waiting for it throw
//     BarrierAborted instead of spinning forever; those members then return
//     quietly, and WorkerTeam::run rethrows the failing member's own
//     exception, the cause. begin_step() resets the barrier for the next step.
//  3. The first layer's seat. Each member hands its FirstLayerSeat (the
//     team's layer, its own index and the block) to LoopModel::batch_loss,
//     which passes it to TopKNetwork::forward and on to the fused MLP, whose
//     autograd node keeps it for the backward pass; nothing else tells the
//     fused MLP that it runs in a team. The seat is valid for the block's
//     forward and backward passes. Without a seat (validation, inference)
//     the fused MLP computes the whole layer. The layer keeps the weight's
//     and the gate's gradients, which the step adds to the blocks'.
//  4. Input order. Every member gathers its rows in the model's input order
//     (LoopModel::input_order()), which changes only between steps
//     (after_step, on one thread); the model puts the inputs back in their
//     own order when training ends, also when a step failed (the dnn-top
//     model's finish() and destructor), so the caller always sees the
//     network's inputs in their own order.
//  5. Determinism whatever the team's size. The blocks, the products' shapes
//     and the order of every sum depend on the minibatch's and the
//     parameters' sizes only: the blocks' losses and gradients are added in
//     block order (then the layer's unit blocks' gate gradients in their
//     order), the gradient norm is the chunks' squared sums added in chunk
//     order (FusedAdam::slice), and every member's share of the optimizer
//     update is whole chunks. A seed gives one result for any team size, one
//     thread included.
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "neural/ops/fused_adam.hpp"
#include "neural/ops/team_first_layer.hpp"
#include "neural/runtime/worker_team.hpp"
#include "neural/train/trainer.hpp"

namespace topkfs {

class ParallelStep {
 public:
  // `parameters` and `optimizer` are the loop's; `model` must have a pure
  // batch_loss(). `workers`: 1 or more.
  ParallelStep(LoopModel& model, const TrainingSet& data, std::vector<torch::Tensor> parameters,
               FusedAdam& optimizer, int workers);

  // The loss of rows order[begin, end), and its gradient in the parameters'
  // .grad (left undefined for parameters the loss does not reach). A loss that
  // is not finite is returned with the gradients untouched.
  double gradients(const std::vector<std::int64_t>& order, std::size_t begin, std::size_t end,
                   const StepInfo& step);
  // The optimizer step on the gradients in .grad; `gradients_changed`: they
  // were changed since gradients() (the ranks' sum), so their norm is taken
  // again. False, changing nothing, when the gradient norm is not finite.
  [[nodiscard]] bool apply(bool gradients_changed);

  WorkerTeam& team() { return team_; }
  // Where the first layer reports each unit block of its weight gradient as
  // it is finished (TeamFirstLayer::on_weight_rows_ready).
  TeamFirstLayer& first_layer() { return first_layer_; }

 private:
  struct Part {
    double loss = 0.0;
    std::vector<torch::Tensor> gradients;  // contiguous, or undefined
  };

  void compute_part(int member, const std::vector<std::int64_t>& order, std::size_t begin,
                    std::size_t end, const StepInfo& step);
  // The block's loss and gradients from its rows order[lo, hi) of the
  // minibatch order[begin, end), gathered in x. `seat`: the member's place
  // in the first layer, handed to the model's loss; the members take the
  // backward pass together, even after a loss that is not finite.
  void part_loss_and_gradients(Part& part, const torch::Tensor& x,
                               const std::vector<std::int64_t>& order, std::size_t lo,
                               std::size_t hi, std::size_t begin, std::size_t end,
                               const StepInfo& step, const FirstLayerSeat& seat);
  // Points sources_ at what each parameter's gradient adds up, in order.
  void collect_sources(int blocks);
  void sum_parts(int member);

  LoopModel& model_;
  const TrainingSet& data_;
  std::vector<torch::Tensor> parameters_;
  FusedAdam& optimizer_;
  WorkerTeam team_;
  TeamFirstLayer first_layer_;
  std::vector<std::vector<ParameterRun>> shares_;  // per member: whole chunks
  std::vector<torch::Tensor> summed_;              // the .grad buffers, reused
  std::vector<Part> parts_;                        // per row block
  // Per parameter, the gradients it adds up, in order: the row blocks',
  // then the first layer's (TeamFirstLayer::weight_gradient, gate_parts).
  std::vector<std::vector<const float*>> sources_;
  std::vector<double> chunk_norms_;  // per chunk (FusedAdam::chunk_count)
};

}  // namespace topkfs
