#pragma once
// A training step on a team of threads (LoopSettings::batch_workers): each
// member computes the loss and gradients of its part of the minibatch with
// single-threaded kernels; then each member sums the parts' gradients and
// takes the Adam step on its own share of the parameters' elements. Every
// phase but the optimizer's few scalars runs on all members, which is what
// lets two cores go nearly twice as fast as one. The parts' gradients are
// summed in part order, so a seed gives one result for a given team size.
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "fused_adam.hpp"
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
  void sum_parts(int member);

  LoopModel& model_;
  const TrainingSet& data_;
  std::vector<torch::Tensor> parameters_;
  FusedAdam& optimizer_;
  WorkerTeam team_;
  std::vector<std::vector<ParameterRun>> shares_;  // per member
  std::vector<torch::Tensor> summed_;              // the .grad buffers, reused
  std::vector<Part> parts_;
  std::vector<double> squared_norms_;  // per member, of its share
};

}  // namespace topkfs
