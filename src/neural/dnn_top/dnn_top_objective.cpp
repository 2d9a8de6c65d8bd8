#include "dnn_top_objective.hpp"

// dnn-top's objective (docs/method.md §1) as a LoopModel: the lead model's loss,
// lambda3 times the sub-model's on the k inputs of largest |w| (the mask
// recomputed at every step), and the elastic-net penalties on w.
#include <algorithm>
#include <cmath>
#include <optional>

#include "neural/model/input_order.hpp"
#include "neural/ops/elastic_penalty.hpp"
#include "neural/ops/stacked_loss.hpp"
#include "neural/ops/top_k_mask.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

class DnnTopModel final : public LoopModel {
 public:
  // With `groups` (one per input, TrainingSet::input_groups), k counts
  // groups and the sub-model keeps or drops a group's inputs together.
  DnnTopModel(TopKNetwork& network, const DnnTopOptions& options, std::int64_t k, NeuralTask task,
              const std::vector<std::int64_t>& groups)
      : network_(network),
        options_(options),
        k_(k),
        task_(task),
        groups_(groups),
        // Without the top-k term (DFS) there is no sub-model to size.
        sub_ks_(options.lambda3 > 0 ? sub_model_sizes(options.sub_k_min, k)
                                    : std::vector<std::int64_t>{k}) {
    for (auto group : groups_) group_count_ = std::max(group_count_, group + 1);
    const auto indexed = network_.input_indexed();
    const std::int64_t inputs = network_.w.numel();
    // The prefix path needs exactly k inputs on top: not for groups, whose
    // widths differ; nor for sub-models of several sizes (--sub-k-min).
    if (options_.lambda3 > 0 && !indexed.empty() && k_ < inputs && groups_.empty() &&
        sub_ks_.size() == 1) {
      // The sub-model's inputs first (input_order.hpp), from the first step
      // on: the top k_t while k is annealed, then the top k.
      order_.emplace(inputs, k_);
      for (const auto& tensor : indexed) order_->track(tensor);
      order_->bring_top_k_first(ranking_weights(), sub_model_size_at(0.0, k_));
      leading_ = torch::arange(inputs, torch::kLong);
    }
  }

  // After training: the network's inputs back in their own order.
  void finish() {
    if (order_) order_->restore_own_order();
  }
  // The same when training failed; a second failure here must not end the
  // process, as the fit's own error is the one to report.
  ~DnnTopModel() override {
    try {
      finish();
    } catch (...) {
    }
  }
  DnnTopModel(const DnnTopModel&) = delete;
  DnnTopModel& operator=(const DnnTopModel&) = delete;

  void optimizer_ready(FusedAdam& optimizer) override {
    if (options_.w_step == WStep::Shared) optimizer.share_second_moment(network_.w);
    if (options_.w_lr > 0) optimizer.set_learning_rate(network_.w, options_.w_lr);
    if (!order_) return;
    for (const auto& tensor : network_.input_indexed()) {
      for (const auto& moment : optimizer.moments_of(tensor)) order_->track(moment);
    }
  }

  // The mask of the next step, made here once rather than by every member of
  // a team inside batch_loss; with --w-constraint nonneg, w is clipped first.
  void after_step(const StepInfo& step) override {
    if (options_.w_constraint == WConstraint::NonNegative) {
      torch::NoGradGuard no_grad;
      network_.w.clamp_min_(0.0);
    }
    if (order_) {
      // The next step's sub-model first.
      order_->bring_top_k_first(ranking_weights(), sub_model_size_at(step.progress_after(), k_));
    }
  }

  // Patience counts only once the top-k term has its final form.
  double schedule_end() const override { return options_.warmup + options_.anneal; }

  const InputOrder* input_order() const override { return order_ ? &*order_ : nullptr; }

  // The weights, and the order of the inputs they are in.
  std::vector<Tensor> state() override {
    auto tensors = parameters();
    if (order_) {
      tensors.push_back(order_->input_at());
      tensors.push_back(order_->k_tensor());
    }
    return tensors;
  }

  std::vector<Tensor> parameters() override { return network_.parameters(); }

  // Adam's weight decay applies to the body only; w is penalised by lambda1/2.
  std::vector<double> weight_decay() override {
    std::vector<double> decay;
    for (const auto& parameter : network_.parameters()) {
      decay.push_back(parameter.is_same(network_.w) ? 0.0 : options_.weight_decay);
    }
    return decay;
  }

  Tensor batch_loss(const Tensor& x, const Tensor& y, const StepInfo& step,
                    const FirstLayerSeat* seat) override {
    const double progress = step.progress();
    Tensor data;
    if (progress < options_.warmup) {
      data = lead_and_sub_loss(network_.forward(x, no_subset(), seat), y, task_, 0.0, step.weights);
    } else if (sub_ks_.size() == 1) {
      data = lead_and_sub_loss(network_.forward(x, subset_at(progress, k_), seat), y, task_,
                               options_.lambda3, step.weights);
    } else {
      data = several_sub_models_loss(x, y, progress, step);
    }
    const Tensor penalty = elastic_penalty_of(network_, options_);
    return penalty.defined() ? data + penalty : data;
  }

  // The forward pass reads w and the body; the top-k set is recomputed from w.
  bool batch_loss_is_pure() const override { return true; }

  Tensor team_layer_weight() override { return network_.team_layer_weight(); }

  // The data part alone (the penalties say nothing about generalisation), on
  // the final top-k set whatever the schedule, so that every epoch's figure
  // compares with every other's: the lead plus lambda3 times the sub-model,
  // or with --stop-on sub the sub-model alone (with --sub-k-min, the mean
  // over the sub-models as in training).
  Tensor validation_loss(const Tensor& x, const Tensor& y, const Tensor& weights) override {
    return mean_over(sub_ks_, [&](std::int64_t k) {
      const ModelOutputs out = network_.forward(x, final_subset(k));
      if (options_.stop_on == StopOn::Sub && out.sub.defined())
        return data_loss(out.sub, y, task_, weights);
      return lead_and_sub_loss(out, y, task_, options_.lambda3, weights);
    });
  }

 private:
  static Tensor no_subset() { return torch::empty({0}, torch::kLong); }

  // The sub-model's size at `progress` (a fraction of the planned steps):
  // while annealing, k_t shrinking geometrically from all inputs (or groups)
  // to k; every input before (the sub-model is not trained then); k after.
  std::int64_t sub_model_size_at(double progress, std::int64_t k) const {
    const double into_anneal = progress - options_.warmup;
    if (!(options_.lambda3 > 0 && options_.anneal > 0 && into_anneal < options_.anneal)) return k;
    const std::int64_t count = groups_.empty() ? network_.w.numel() : group_count_;
    if (into_anneal <= 0) return count;
    const double inputs = static_cast<double>(count);
    const double fraction = into_anneal / options_.anneal;
    const auto k_now = static_cast<std::int64_t>(
        std::llround(inputs * std::pow(static_cast<double>(k) / inputs, fraction)));
    return std::clamp(k_now, k, count);
  }

  // The sub-model's input set of size k at `progress`: the top
  // sub_model_size_at(progress, k) of |w|, the first places when the order
  // holds them there (after_step put them there for this step).
  Tensor subset_at(double progress, std::int64_t k) const {
    const std::int64_t size = sub_model_size_at(progress, k);
    if (size == k) return final_subset(k);
    if (order_ && order_->k() == size) return leading_.narrow(0, 0, size);
    return top_k_of_w(size);
  }

  // The lead's loss plus lambda3 times the mean of the sub-models' at the
  // step's sizes (--sub-k-min; step_sizes): in one pass of the lead and all
  // of them where the network has it (the MLP), else one pass of the lead
  // and a sub-model per size. A team's shared first layer
  // (team_first_layer.hpp) holds one sub-model, so either way the member's
  // rows go through the layer alone.
  Tensor several_sub_models_loss(const Tensor& x, const Tensor& y, double progress,
                                 const StepInfo& step) {
    const std::vector<std::int64_t> sizes = step_sizes(step);
    if (sizes.size() == 1) {  // a turn of one size: the ordinary pass, off the team's layer
      return lead_and_sub_loss(network_.forward(x, subset_at(progress, sizes[0])), y, task_,
                               options_.lambda3, step.weights);
    }
    std::vector<Tensor> subsets;
    for (const std::int64_t k : sizes) subsets.push_back(subset_at(progress, k));
    const Tensor rows = network_.forward_subsets(x, subsets);
    const double each = options_.lambda3 / static_cast<double>(subsets.size());
    if (rows.defined()) return stacked_data_loss(rows, y, task_, each, step.weights);
    return mean_over(sizes, [&](std::int64_t k) {
      return lead_and_sub_loss(network_.forward(x, subset_at(progress, k)), y, task_,
                               options_.lambda3, step.weights);
    });
  }

  // The sizes a step trains: all of them, or with more than
  // --sub-models-per-step a turn of the sizes i with i = step mod R
  // (R = ceil(sizes / per step)), interleaved so that every turn holds small
  // and large sizes alike.
  std::vector<std::int64_t> step_sizes(const StepInfo& step) const {
    const auto per_step = static_cast<std::size_t>(options_.sub_models_per_step);
    if (per_step == 0 || sub_ks_.size() <= per_step) return sub_ks_;
    const std::size_t turns = (sub_ks_.size() + per_step - 1) / per_step;
    std::vector<std::int64_t> sizes;
    for (std::size_t i = static_cast<std::size_t>(step.index()) % turns; i < sub_ks_.size();
         i += turns)
      sizes.push_back(sub_ks_[i]);
    return sizes;
  }

  // The mean of `loss_at(k)` over `sizes`: k alone, or with --sub-k-min the
  // sizes of one training for every k (sub_model_sizes) or a step's turn of
  // them.
  template <typename LossAtK>
  static Tensor mean_over(const std::vector<std::int64_t>& sizes, const LossAtK& loss_at) {
    Tensor total;
    for (const std::int64_t k : sizes) {
      const Tensor loss = loss_at(k);
      total = total.defined() ? total + loss : loss;
    }
    return sizes.size() == 1 ? total : total / static_cast<double>(sizes.size());
  }

  // The top k of |w|, or an empty tensor (lead only) without the top-k term.
  Tensor final_subset(std::int64_t k) const {
    if (!(options_.lambda3 > 0)) return no_subset();
    // after_step keeps the top k first once the annealing is over.
    if (order_ && order_->k() == k) return leading_.narrow(0, 0, k);
    return top_k_of_w(k);
  }

  Tensor top_k_of_w(std::int64_t count) const {
    const Tensor magnitude = ranking_weights();
    if (!groups_.empty()) return top_groups_of(magnitude, count);
    return torch::tensor(top_k_by_magnitude(magnitude.data_ptr<float>(), magnitude.numel(), count),
                         torch::kLong);
  }

  // The inputs of the `count` groups of largest Euclidean norm of w (the
  // group score of docs/algorithms.md, "Groups"), in increasing order.
  Tensor top_groups_of(const Tensor& magnitude, std::int64_t count) const {
    const Tensor contiguous = magnitude.to(torch::kFloat).contiguous();
    const float* w = contiguous.data_ptr<float>();
    std::vector<float> norms(static_cast<std::size_t>(group_count_), 0.0f);
    for (std::size_t j = 0; j < groups_.size(); ++j) {
      norms[static_cast<std::size_t>(groups_[j])] += w[j] * w[j];
    }
    for (auto& norm : norms) norm = std::sqrt(norm);
    const std::vector<std::int64_t> top = top_k_by_magnitude(norms.data(), group_count_, count);
    std::vector<char> kept(norms.size(), 0);
    for (auto group : top) kept[static_cast<std::size_t>(group)] = 1;
    std::vector<std::int64_t> inputs;
    for (std::size_t j = 0; j < groups_.size(); ++j) {
      if (kept[static_cast<std::size_t>(groups_[j])])
        inputs.push_back(static_cast<std::int64_t>(j));
    }
    return torch::tensor(inputs, torch::kLong);
  }

  // What the top-k rule ranks at every step: w itself for --rank-by w (the
  // rule takes |.|, so no copy per step), else the scaled magnitudes.
  Tensor ranking_weights() const {
    return options_.rank_by == RankBy::W ? network_.w.detach()
                                         : input_ranking_magnitude(network_, options_);
  }

  TopKNetwork& network_;
  const DnnTopOptions& options_;
  std::int64_t k_;
  NeuralTask task_;
  const std::vector<std::int64_t>& groups_;
  std::int64_t group_count_ = 0;
  std::vector<std::int64_t> sub_ks_;  // the sub-models' sizes, k_ the largest
  std::optional<InputOrder> order_;   // for a network that allows it
  Tensor leading_;                    // 0 .. inputs - 1: its first k_t are the prefix
};

}  // namespace

Tensor lead_and_sub_loss(const ModelOutputs& out, const Tensor& y, NeuralTask task, double lambda3,
                         const Tensor& weights) {
  if (!out.sub.defined()) return data_loss(out.lead, y, task, weights);
  // 1/B for the lead's rows, lambda3/B for the sub-model's.
  return stacked_data_loss(out.rows, y, task, lambda3, weights);
}

Tensor elastic_penalty_of(const TopKNetwork& network, const DnnTopOptions& options) {
  if (!(options.lambda1 > 0 || options.lambda2 > 0)) return Tensor();
  return elastic_penalty(network.w, options.lambda1, options.lambda2);
}

Tensor input_ranking_magnitude(const TopKNetwork& network, const DnnTopOptions& options) {
  torch::NoGradGuard no_grad;
  Tensor magnitude = network.w.detach().abs();
  if (options.rank_by == RankBy::Scale) {
    const Tensor norms = network.input_weight_norms();
    if (norms.defined()) magnitude = magnitude * norms;
  }
  return magnitude.contiguous();
}

TrainingOutcome train_network(TopKNetwork& network, const TrainingSet& data,
                              const DnnTopOptions& options, std::int64_t k,
                              const FitCallbacks& callbacks, const GradientObserver& observer,
                              int batch_workers) {
  DnnTopModel model(network, options, k, data.task, data.input_groups);
  LoopSettings settings;
  settings.epochs = options.epochs;
  settings.batch = options.batch;
  settings.global_batch = options.global_batch;
  settings.adam = {options.lr, options.beta1, options.beta2, 1e-8, options.clip};
  settings.patience = options.patience;
  settings.min_steps = options.min_steps;
  settings.seed = options.seed;
  settings.batch_workers = batch_workers;
  TrainingOutcome outcome = train_loop(model, data, settings, callbacks, observer);
  model.finish();
  return outcome;
}

}  // namespace topkfs
