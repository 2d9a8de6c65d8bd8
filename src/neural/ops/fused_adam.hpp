#pragma once
// Adam with gradient-norm clipping in one pass per parameter. The same update
// as torch::optim::Adam (L2 weight decay added to the gradient, bias-corrected
// moments, eps outside the square root), but libtorch's version makes about
// ten elementwise passes over each parameter plus two for clipping, and on
// the first layer's m x 256 weights every pass is a trip to memory.
//
// The step can also be taken in parts by several threads: each parameter's
// rows are cut into chunks (step_blocks.hpp), a thread takes whole chunks
// (slice()) and sums the squared gradient of each, begin_step() turns the
// chunks' sums, added in chunk order, into the clip factor, and each thread
// then updates its chunks. The chunks do not depend on the number of
// threads, so neither does the clip factor.
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "neural/ops/step_blocks.hpp"

namespace topkfs {

struct AdamSettings {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double clip = 0.0;  // global gradient-norm bound; 0 = off
};

// Elements [begin, end) of parameter `tensor`: chunk `chunk` of all the
// parameters' chunks (numbered parameter by parameter).
struct ParameterRun {
  std::size_t tensor = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::size_t chunk = 0;
};

// The first of the rows (along dimension 0) in part `part` of `parts` shares
// of `rows`: FusedAdam::slice and TeamFirstLayer cut alike.
std::int64_t row_share_begin(int part, int parts, std::int64_t rows);

class FusedAdam {
 public:
  // `weight_decay[i]` applies to `parameters[i]` (w has none: its penalties
  // are part of the objective).
  FusedAdam(std::vector<torch::Tensor> parameters, std::vector<double> weight_decay,
            const AdamSettings& settings);

  // Drops the gradients so that the next backward pass writes them afresh
  // instead of zero-filling and accumulating.
  void zero_grad();
  // Clips the global gradient norm, then updates every parameter in place.
  // Returns false, changing nothing, when the gradient norm is not finite.
  [[nodiscard]] bool step();

  // From now on `parameter` (one of the optimizer's) keeps one second moment
  // for all its elements, from the mean of their squared gradients: its
  // elements then step in proportion to their gradients instead of each by
  // about lr (dnn-top's --w-step shared).
  void share_second_moment(const torch::Tensor& parameter);

  // From now on `parameter` (one of the optimizer's) steps with learning
  // rate `lr` instead of the settings' (dnn-top's --w-lr).
  void set_learning_rate(const torch::Tensor& parameter, double lr);

  // Adam's first and second moments of `parameter` (one of the optimizer's):
  // whoever reorders a parameter's elements reorders these alike.
  std::vector<torch::Tensor> moments_of(const torch::Tensor& parameter) const;

  // What carries from one step to the next, for training checkpoints: the
  // first moments of every parameter, then the second moments, and the
  // steps taken. restore() copies into the optimizer's own tensors (which an
  // InputOrder may track), so the shapes must match.
  std::vector<torch::Tensor> moments() const;
  std::int64_t steps() const { return steps_; }
  void restore(const std::vector<torch::Tensor>& moments, std::int64_t steps);

  // Part `part` of `parts` shares of every parameter, one run per chunk, in
  // parameter order: of each parameter's unit_blocks(rows) chunks of rows
  // (of a vector, of elements), those from row_share_begin(part, parts,
  // chunks) on. A team that splits a layer's units among its members
  // (TeamFirstLayer, the same cut) then updates on each core the rows that
  // core wrote and will read, where any other cut would move those cache
  // lines from core to core every step.
  std::vector<ParameterRun> slice(int part, int parts) const;
  // The chunks of all parameters (the size of a table of chunk_norms).
  std::size_t chunk_count() const;
  // The sum of squared gradients of each run, in double, into
  // by_chunk[run.chunk] (zero for a parameter without a gradient).
  void chunk_norms(const std::vector<ParameterRun>& runs, std::vector<double>& by_chunk) const;
  // The chunks' sums added in chunk order: the squared norm of the whole
  // gradient, the same however the chunks were shared out.
  static double squared_norm(const std::vector<double>& by_chunk);
  // Starts a step from the squared norm of the whole gradient: fixes the clip
  // factor and bias corrections. False, changing nothing, when not finite.
  [[nodiscard]] bool begin_step(double squared_norm);
  // The update of begin_step's step on `runs` (parameters without a gradient
  // are left alone).
  void update(const std::vector<ParameterRun>& runs) const;

 private:
  struct StepConstants {
    float clip_factor = 1.0f;
    float step_size = 0.0f;
    float inv_sqrt_bias2 = 1.0f;
  };

  std::vector<torch::Tensor> parameters_;
  std::vector<double> weight_decay_;
  std::vector<torch::Tensor> first_moment_;
  std::vector<torch::Tensor> second_moment_;
  std::vector<char> shared_;              // per parameter: one second moment for all elements
  std::vector<float> shared_square_;      // this step's mean squared gradient of those
  std::vector<float> lr_factor_;          // per parameter: its learning rate / the settings'
  std::vector<std::size_t> first_chunk_;  // per parameter, then the count of all chunks
  AdamSettings settings_;
  std::int64_t steps_ = 0;
  StepConstants current_;
};

}  // namespace topkfs
