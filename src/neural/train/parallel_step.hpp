#pragma once
// A training step on a team of threads (LoopSettings::batch_workers): each
// member computes the loss and gradients of its rows of the minibatch with
// single-threaded kernels, except that a fused MLP's first layer is split by
// hidden units among the members in lockstep (TeamFirstLayer); then each
// member sums the members' gradients and takes the Adam step on its own rows
// of every parameter. Every phase but the optimizer's few scalars runs on
// all members, which is what lets two cores go nearly twice as fast as one.
// Gradients are summed in member order, so a seed gives one result for a
// given team size.
//
// Invariants of a team step (what the code relies on, in one place):
//  1. Lockstep. When the minibatch has at least one row per member, every
//     member takes the whole step, forward and backward, through the first
//     layer, where the members meet at the layer's SpinBarrier (three times a
//     step). A member whose loss is not finite still runs its backward pass,
//     since the others wait for it inside the layer; the step's gradients are
//     then discarded (gradients() returns the loss untouched, apply() is not
//     called) and training stops with an error. With fewer rows than
//     members there is no lockstep: members without rows do nothing.
//  2. Failure aborts the barrier. A member that throws inside its part
//     aborts the barrier, so that the members waiting for it throw
//     BarrierAborted instead of spinning forever; those members then return
//     quietly, and WorkerTeam::run rethrows the failing member's own
//     exception, the cause. begin_step() resets the barrier for the next step.
//  3. The first layer's seat. In lockstep each member hands its
//     FirstLayerSeat (the team's layer and its own index) to
//     LoopModel::batch_loss, which passes it to TopKNetwork::forward and on
//     to the fused MLP, whose autograd node keeps it for the backward pass;
//     nothing else tells the fused MLP that it runs in a team. The seat is
//     valid for the member's part of the step, forward and backward. Without
//     a seat (no lockstep, validation, inference) the fused MLP computes the
//     whole layer.
//  4. Input order. Every member gathers its rows in the model's input order
//     (LoopModel::input_order()), which changes only between steps
//     (after_step, on one thread); the model puts the inputs back in their
//     own order when training ends, also when a step failed (the dnn-top
//     model's finish() and destructor), so the caller always sees the
//     network's inputs in their own order.
//  5. Determinism. The parts are summed in member order and every member's
//     share of the optimizer update is fixed (FusedAdam::slice, the same cut
//     as the layer's hidden units): a seed and a team size give one result.
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
  // batch_loss().
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

 private:
  struct Part {
    double loss = 0.0;
    std::vector<torch::Tensor> gradients;  // contiguous, or undefined
  };

  void compute_part(int member, const std::vector<std::int64_t>& order, std::size_t begin,
                    std::size_t end, const StepInfo& step);
  // The part's loss and gradients from its rows order[lo, hi) of the
  // minibatch order[begin, end), gathered in x. `seat` (in lockstep, else
  // null): the member's place in the first layer, handed to the model's
  // loss; the members then take the backward pass together, even after a
  // loss that is not finite.
  void part_loss_and_gradients(Part& part, const torch::Tensor& x,
                               const std::vector<std::int64_t>& order, std::size_t lo,
                               std::size_t hi, std::size_t begin, std::size_t end,
                               const StepInfo& step, const FirstLayerSeat* seat);
  void sum_parts(int member);

  LoopModel& model_;
  const TrainingSet& data_;
  std::vector<torch::Tensor> parameters_;
  FusedAdam& optimizer_;
  WorkerTeam team_;
  TeamFirstLayer first_layer_;
  bool lockstep_ = false;                          // this step's members meet in the first layer
  std::vector<std::vector<ParameterRun>> shares_;  // per member
  std::vector<torch::Tensor> summed_;              // the .grad buffers, reused
  std::vector<Part> parts_;
  std::vector<double> squared_norms_;  // per member, of its share
};

}  // namespace topkfs
