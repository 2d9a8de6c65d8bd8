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
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "fused_adam.hpp"
#include "team_first_layer.hpp"
#include "trainer.hpp"
#include "worker_team.hpp"

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
  // were changed since gradients() (a gradient hook), so their norm is taken
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
  // minibatch order[begin, end), gathered in x. `lockstep`: the members take
  // the backward pass together (TeamFirstLayer), even after a loss that is
  // not finite.
  void part_loss_and_gradients(Part& part, const torch::Tensor& x,
                               const std::vector<std::int64_t>& order, std::size_t lo,
                               std::size_t hi, std::size_t begin, std::size_t end,
                               const StepInfo& step, bool lockstep);
  void sum_parts(int member);

  LoopModel& model_;
  const TrainingSet& data_;
  std::vector<torch::Tensor> parameters_;
  FusedAdam& optimizer_;
  WorkerTeam team_;
  TeamFirstLayer first_layer_;
  bool lockstep_ = false;  // this step's members meet in the first layer
  std::vector<std::vector<ParameterRun>> shares_;  // per member
  std::vector<torch::Tensor> summed_;              // the .grad buffers, reused
  std::vector<Part> parts_;
  std::vector<double> squared_norms_;  // per member, of its share
};

}  // namespace topkfs
