#pragma once
// The minibatch loop shared by the neural methods: seeded shuffling, Adam,
// validation with early stopping and the best weights restored, gradient
// clipping, divergence checks, progress reports. What is trained, and on
// which objective, is a LoopModel; dnn-top's is train_network()
// (dnn_top/dnn_top_objective.hpp).
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "neural/model/input_order.hpp"
#include "neural/model/network.hpp"
#include "neural/ops/fused_adam.hpp"
#include "topkfs/core/callbacks.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/neural/training_options.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs {

enum class NeuralTask { MultiClass, Binary, Regression };

// The rows a network learns from, left unscaled in the caller's source:
// minibatches are gathered (RowSource::copy_rows) and scaled on the fly, so
// the data is never copied whole; from a mapped file, peak memory does not
// grow with the number of rows.
struct TrainingSet {
  const RowSource* features = nullptr;
  torch::Tensor offset;     // per column, subtracted
  torch::Tensor inv_scale;  // per column, multiplied after the offset
  NeuralTask task = NeuralTask::MultiClass;
  torch::Tensor targets;  // all rows of `features`: int64 labels, or float n x q
  std::vector<std::int64_t> train_rows;
  std::vector<std::int64_t> validation_rows;
  // Per input, the group it is selected with (Dataset::column_group: a
  // categorical column's one-hot inputs); empty when each input is its own.
  std::vector<std::int64_t> input_groups;
  // Float, one per row of `features`: the sample and class weights
  // (data/sample_weights.hpp) scaled to mean 1 over train_rows, so that a
  // minibatch's mean of weighted losses estimates the weighted mean;
  // undefined when every row weighs 1.
  torch::Tensor weights;
};

// Called with the parameters once their gradients are final (summed over a
// thread team and, in a data-parallel run, over the ranks by
// DataParallel::sum_step) and before the optimizer step: a window on the
// gradients that training takes, which the tests look through. It reads
// them only.
using GradientObserver = std::function<void(const std::vector<torch::Tensor>& parameters)>;

struct TrainingOutcome {
  std::vector<EpochRecord> history;
  int best_epoch = 0;
  bool stopped_early = false;
  int epochs_planned = 0;  // the settings' epochs, or more to reach min_steps
};

// Where the loop is; all 1-based.
struct StepInfo {
  int epoch = 1;
  int epochs = 1;
  long batch = 1;
  long batches = 1;
  // The weight of each row of the step's minibatch (TrainingSet::weights);
  // undefined when unweighted. The models pass it to their data losses.
  torch::Tensor weights;

  // The steps done before this one.
  long index() const { return static_cast<long>(epoch - 1) * batches + (batch - 1); }
  // Fraction of the planned steps done before this one, in [0, 1).
  double progress() const { return planned_fraction(index()); }
  // The same once this step is done: the next step's progress().
  double progress_after() const { return planned_fraction(index() + 1); }

 private:
  double planned_fraction(long steps) const {
    return static_cast<double>(steps) /
           (static_cast<double>(epochs) * static_cast<double>(batches));
  }
};

// What the loop trains.
class LoopModel {
 public:
  virtual ~LoopModel() = default;
  // The tensors the optimizer updates (contiguous float), and the Adam weight
  // decay of each (same order).
  virtual std::vector<torch::Tensor> parameters() = 0;
  virtual std::vector<double> weight_decay() {
    return std::vector<double>(parameters().size(), 0.0);
  }
  // The objective on one training minibatch, with autograd; the loop calls
  // backward() on it. `seat`: in a team step, the calling member's place in
  // the team's first layer, for the network's forward pass
  // (TopKNetwork::forward); null otherwise. A model whose network has no
  // fused first layer ignores it.
  virtual torch::Tensor batch_loss(const torch::Tensor& x, const torch::Tensor& y,
                                   const StepInfo& step, const FirstLayerSeat* seat) = 0;
  // Once, with the loop's optimizer, before the first step.
  virtual void optimizer_ready(FusedAdam& optimizer) {}
  // After the optimizer step (e.g. a second network trained on the side).
  virtual void after_step(const StepInfo& step) {}
  // The order in which the model keeps its inputs, or null for their own:
  // every gathered batch is put in it.
  virtual const InputOrder* input_order() const { return nullptr; }
  // The mean loss on some validation rows that early stopping compares,
  // called without gradients.
  // `weights`: of the rows (undefined: all 1), as StepInfo::weights.
  virtual torch::Tensor validation_loss(const torch::Tensor& x, const torch::Tensor& y,
                                        const torch::Tensor& weights) = 0;
  // The fraction of the planned steps after which the objective no longer
  // changes (a schedule's end): early stopping's patience counts only the
  // epochs that end after it.
  virtual double schedule_end() const { return 0.0; }
  // Everything that the best epoch's weights restore (default: parameters()).
  virtual std::vector<torch::Tensor> state() { return parameters(); }
  // The weights of the network's fused first layer, whose gradient a team
  // step finishes unit block by unit block (TeamFirstLayer), or undefined:
  // a data-parallel step sums those blocks while the rest is computed.
  virtual torch::Tensor team_layer_weight() { return {}; }
  // True when batch_loss only reads the model, so that the loop may call it
  // on the row blocks of a minibatch from several threads at once
  // (LoopSettings::batch_workers). A model that draws noise or changes state per call says no.
  virtual bool batch_loss_is_pure() const { return false; }
  // Float tensors that batch_loss fills with means over the minibatch's
  // rows and after_step reads (FIR's loss per mask). A data-parallel loop
  // replaces them by their means over the whole minibatch, across the ranks,
  // before after_step; in one process they are left alone.
  virtual std::vector<torch::Tensor> step_statistics() { return {}; }
};

struct LoopSettings {
  int epochs = 20;
  // Rows per step (minibatch_rows, topkfs/neural/training_options.hpp): a
  // data-parallel loop over N ranks takes N x batch, or global_batch when
  // above 0, in every step.
  int batch = 128;
  int global_batch = 0;
  AdamSettings adam;  // clip: gradient-norm bound, 0 = off
  int patience = 5;   // 0 = never stop early
  // When epochs x batches falls short of this, epochs and patience are scaled
  // up alike (small data); 0 = off.
  int min_steps = 0;
  std::uint64_t seed = 0;  // the shuffling uses stream 1 of it
  // A team of that many threads takes each step together (ParallelStep),
  // one thread as a team of one: each computes the loss and gradients of its
  // row blocks of the minibatch with single-threaded kernels, then the
  // blocks' gradients are added and each takes the Adam step on its share of
  // the parameters. The blocks and the order of the sums do not depend on
  // the count, so neither does the result. Needs
  // LoopModel::batch_loss_is_pure(); otherwise the steps are taken on the
  // calling thread alone.
  int batch_workers = 1;
};

TrainingOutcome train_loop(LoopModel& model, const TrainingSet& data, const LoopSettings& settings,
                           const FitCallbacks& callbacks, const GradientObserver& observer = {});

// Loss of one model output against the targets of the same rows (the mean,
// each row's loss times its weight when `weights` is defined;
// stacked_loss.hpp).
torch::Tensor data_loss(const torch::Tensor& output, const torch::Tensor& targets, NeuralTask task,
                        const torch::Tensor& weights = {});
// The same loss per row (regression: the mean over the outputs of the row;
// times the row's weight when `weights` is defined), through libtorch's
// losses: for a caller that combines the rows its own way.
torch::Tensor data_loss_per_row(const torch::Tensor& output, const torch::Tensor& targets,
                                NeuralTask task, const torch::Tensor& weights = {});

// Gathers rows `rows[begin, end)` of the set, scaled, into a B x m tensor,
// with the columns in `order` when one is given.
torch::Tensor gather_batch(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                           std::size_t begin, std::size_t end, const InputOrder* order = nullptr);
// The same into `out` (rows x m, contiguous; a view is written in place).
void gather_batch_into(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                       std::size_t begin, std::size_t end, torch::Tensor& out,
                       const InputOrder* order = nullptr);
// The targets of the same rows.
torch::Tensor gather_targets(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                             std::size_t begin, std::size_t end);
// Their weights (undefined when the set is unweighted).
torch::Tensor gather_weights(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                             std::size_t begin, std::size_t end);

}  // namespace topkfs
