// fir: feature importance ranking for deep learning (Wojtas & Chen, NeurIPS
// 2020). The operator network predicts the target from [x * m, m] for masks
// m with exactly k ones; the selector network predicts the operator's loss
// from m. They are trained alternately: each minibatch is seen under a batch
// of masks (random ones to explore; after the exploration phase also the
// selector's best mask, the best mask measured lately and perturbations of
// the former), and the per-mask losses train the selector every few steps.
// The mask optimiser searches the selector's predictions; the final mask is
// its result and the ranking is the selector's importance -dSL/dm there.
// With column groups a mask holds k groups (every input of each), so the
// selector, the search and the random masks work on groups and k counts them.
#include <fmt/format.h>
#include <torch/autograd.h>

#include <algorithm>
#include <numeric>

#include "input_units.hpp"
#include "neural/model/network.hpp"
#include "neural/ops/fused_adam.hpp"
#include "neural/train/neural_selector.hpp"
#include "neural/train/training_option_table.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/neural/baselines.hpp"

namespace topkfs {

FirOptions::FirOptions() {
  epochs = 8;
  batch = 64;
}

void FirOptions::validate() const {
  validate_training();
  auto fail = [](const std::string& message) { throw OptionError(message); };
  if (masks < 4) {
    fail(fmt::format(
        "{} must be at least 4 (random masks, the optimiser's, the best measured one), got {}",
        option_ref("masks"), masks));
  }
  if (!(explore >= 0 && explore <= 1)) {
    fail(fmt::format("{} must be in [0, 1], got {}", option_ref("explore"), explore));
  }
  if (perturb < 1)
    fail(fmt::format("{} must be at least 1, got {}", option_ref("perturb"), perturb));
  for (int size : selector_hidden) {
    if (size <= 0)
      fail(fmt::format("{}: sizes must be positive, got {}", option_ref("selector-hidden"), size));
  }
  if (selector_every < 1) {
    fail(
        fmt::format("{} must be at least 1, got {}", option_ref("selector-every"), selector_every));
  }
  if (search_steps < 0)
    fail(fmt::format("{} must not be negative, got {}", option_ref("search-steps"), search_steps));
}

const OptionTable<FirOptions>& fir_option_table() {
  static const OptionTable<FirOptions> table = [] {
    OptionTable<FirOptions> t;
    add_training_options(t, "Hidden layer sizes of the operator network (ReLU MLP on [x * m, m])");
    t.add("masks", &FirOptions::masks,
          "Masks per minibatch: every row of the minibatch is seen under each")
        .add("explore", &FirOptions::explore,
             "Fraction of the planned steps that use random masks only, before the optimiser's "
             "masks join in")
        .add("perturb", &FirOptions::perturb,
             "Swaps (one column in, one out) that make a perturbed copy of the optimiser's mask")
        .add("selector-hidden", &FirOptions::selector_hidden,
             "Hidden layer sizes of the selector network (sigmoid MLP: mask -> predicted loss)")
        .add("selector-every", &FirOptions::selector_every,
             "Operator steps per selector step; the selector learns from the masks and losses "
             "of those steps")
        .add("search-steps", &FirOptions::search_steps,
             "Local-search steps of the mask optimiser during training (12 for the final mask)");
    return t;
  }();
  return table;
}

namespace {

using torch::Tensor;

// The authors' final search runs longer than the ones during training.
constexpr int kFinalSearchSteps = 12;

// A mask with exactly k ones, as its sorted units (columns, or groups: the
// positions of MaskSpace).
using Mask = std::vector<std::int64_t>;

// The space the masks range over: the columns, or the groups that have
// columns (InputUnits::usable), and each mask's columns for the operator.
class MaskSpace {
 public:
  explicit MaskSpace(const InputUnits& units) : units_(units), usable_(units.usable()) {}

  std::int64_t size() const { return static_cast<std::int64_t>(usable_.size()); }
  std::int64_t group(std::int64_t position) const {
    return usable_[static_cast<std::size_t>(position)];
  }

  // The columns of each mask (masks x width), padded with -1 after a mask
  // whose groups hold fewer columns than the widest.
  Tensor columns(const std::vector<Mask>& masks) const {
    std::vector<Mask> lists;
    std::size_t width = 0;
    for (const auto& mask : masks) {
      lists.push_back(units_.grouped() ? units_.inputs_of(groups_of(mask)) : mask);
      width = std::max(width, lists.back().size());
    }
    const auto w = static_cast<std::int64_t>(width);
    Tensor out = torch::full({static_cast<std::int64_t>(masks.size()), w}, -1, torch::kLong);
    std::int64_t* data = out.data_ptr<std::int64_t>();
    for (std::size_t i = 0; i < lists.size(); ++i) {
      std::copy(lists[i].begin(), lists[i].end(), data + static_cast<std::int64_t>(i) * w);
    }
    return out;
  }

  // Per-position values as per-column scores (a group's columns take its).
  std::vector<double> column_scores(const std::vector<double>& per_position) const {
    if (!units_.grouped()) return per_position;
    std::vector<double> per_group(static_cast<std::size_t>(units_.count()), 0.0);
    for (std::size_t i = 0; i < usable_.size(); ++i) {
      per_group[static_cast<std::size_t>(usable_[i])] = per_position[i];
    }
    return units_.per_input(per_group);
  }

 private:
  std::vector<std::int64_t> groups_of(const Mask& mask) const {
    Mask groups;
    for (auto position : mask) groups.push_back(group(position));
    return groups;
  }

  const InputUnits& units_;
  std::vector<std::int64_t> usable_;
};

class Operator : public torch::nn::Module {
 public:
  Operator(std::int64_t inputs, std::int64_t outputs, const std::vector<int>& hidden, Rng& rng)
      : inputs_(inputs) {
    body = MlpLayers::create(*this, 2 * inputs, outputs, hidden, rng);
  }

  // Outputs for every row of x (B x m) under every mask (M x k columns, -1
  // past the columns of a mask of fewer), as M*B rows, mask by mask.
  // [x * m, m] W^T has only 2k non-zero terms per row, so the first layer
  // multiplies the k kept columns of x and adds the sum of the k mask
  // columns of W: the same values as the dense product at a fraction of its
  // cost. A padding index reads a zero column of x and of W.
  Tensor forward(const Tensor& x, const Tensor& columns) {
    const std::int64_t masks = columns.size(0), k = columns.size(1), batch = x.size(0);
    const Tensor flat = columns.reshape({-1});
    const std::int64_t width = body.first_weight.size(0);
    const bool padded = (flat < 0).any().item<bool>();
    const Tensor pad = padded ? (flat < 0) : Tensor();
    const Tensor first =
        padded ? torch::cat({body.first_weight, torch::zeros({width, 1})}, 1) : body.first_weight;
    const Tensor data_index = padded ? flat.masked_fill(pad, 2 * inputs_) : flat;
    const Tensor mask_index =
        padded ? (flat + inputs_).masked_fill(pad, 2 * inputs_) : flat + inputs_;
    const Tensor rows = padded ? torch::cat({x, torch::zeros({batch, 1})}, 1) : x;
    const Tensor row_index = padded ? flat.masked_fill(pad, inputs_) : flat;
    const Tensor weights = first.index_select(1, torch::cat({data_index, mask_index}));  // H x 2Mk
    const Tensor data_weights =
        weights.narrow(1, 0, masks * k).view({width, masks, k}).permute({1, 2, 0});
    const Tensor mask_term =
        weights.narrow(1, masks * k, masks * k).view({width, masks, k}).sum(2).t();
    const Tensor kept =
        rows.index_select(1, row_index).view({batch, masks, k}).transpose(0, 1);  // M x B x k
    const Tensor pre =
        torch::baddbmm((mask_term + body.first_bias).unsqueeze(1), kept, data_weights);
    return body.finish(pre.reshape({masks * batch, width}));
  }

  MlpLayers body;

 private:
  std::int64_t inputs_;
};

class SelectorNet : public torch::nn::Module {
 public:
  SelectorNet(std::int64_t inputs, const std::vector<int>& hidden, Rng& rng) {
    body = MlpLayers::create(*this, inputs, 1, hidden, rng, Activation::Sigmoid);
  }

  // Predicted operator loss of each mask (rows of dense 0/1 masks).
  Tensor forward(const Tensor& masks) { return body.forward(masks).squeeze(1); }

  MlpLayers body;
};

Tensor dense_masks(const std::vector<Mask>& masks, std::int64_t inputs) {
  Tensor out = torch::zeros({static_cast<std::int64_t>(masks.size()), inputs});
  float* data = out.data_ptr<float>();
  for (std::size_t i = 0; i < masks.size(); ++i) {
    for (auto column : masks[i]) data[static_cast<std::int64_t>(i) * inputs + column] = 1.0f;
  }
  return out;
}

Mask swapped(Mask mask, std::int64_t out, std::int64_t in) {
  *std::find(mask.begin(), mask.end(), out) = in;
  std::sort(mask.begin(), mask.end());
  return mask;
}

// The mask optimiser: a search of the selector's predictions over masks with
// exactly k ones (the authors' MaskOptimizer.get_opt_mask).
class MaskSearch {
 public:
  MaskSearch(SelectorNet& selector, std::int64_t inputs, std::int64_t k)
      : selector_(selector), inputs_(inputs), k_(k) {}

  // -dSL/dm at `mask` (dense): how much each column's presence lowers the
  // predicted loss.
  std::vector<double> importance(const Tensor& mask) {
    torch::AutoGradMode enable(true);
    const Tensor input = mask.detach().clone().requires_grad_(true);
    const Tensor gradient = torch::autograd::grad({selector_.forward(input).sum()}, {input})[0];
    const Tensor negated = (-gradient).reshape({-1}).to(torch::kDouble).contiguous();
    return {negated.data_ptr<double>(), negated.data_ptr<double>() + negated.numel()};
  }

  // Start from the k columns of largest importance at m = 1/2 everywhere;
  // then, for up to `steps` steps, swap the best absent column in for the
  // first present column whose importance is negative, or else for the
  // least important present column, whenever that lowers the prediction.
  Mask run(int steps) {
    const std::vector<double> start = importance(torch::full({1, inputs_}, 0.5f));
    Mask mask = top(start, k_);
    if (k_ == inputs_) return mask;
    for (int step = 0; step < steps; ++step) {
      const std::vector<double> gain = importance(dense_masks({mask}, inputs_));
      std::vector<bool> present(static_cast<std::size_t>(inputs_), false);
      for (auto column : mask) present[static_cast<std::size_t>(column)] = true;
      std::int64_t best_absent = -1;
      for (std::int64_t j = 0; j < inputs_; ++j) {
        if (!present[static_cast<std::size_t>(j)] &&
            (best_absent < 0 ||
             gain[static_cast<std::size_t>(j)] > gain[static_cast<std::size_t>(best_absent)])) {
          best_absent = j;
        }
      }
      std::vector<Mask> candidates;
      std::int64_t weakest = mask.front();
      for (auto column : mask) {
        if (gain[static_cast<std::size_t>(column)] < gain[static_cast<std::size_t>(weakest)])
          weakest = column;
        if (gain[static_cast<std::size_t>(column)] < 0)
          candidates.push_back(swapped(mask, column, best_absent));
      }
      candidates.push_back(swapped(mask, weakest, best_absent));
      candidates.push_back(mask);  // the current prediction, last
      const Tensor predicted = predict(candidates);
      const float* value = predicted.data_ptr<float>();
      const float current = value[candidates.size() - 1];
      // The authors try the negative-importance swaps first, then the
      // weakest one; the first improvement is taken.
      std::size_t taken = candidates.size() - 1;
      for (std::size_t i = 0; i + 1 < candidates.size(); ++i) {
        if (value[i] < current) {
          taken = i;
          break;
        }
      }
      if (taken == candidates.size() - 1) break;
      mask = candidates[taken];
    }
    return mask;
  }

 private:
  Tensor predict(const std::vector<Mask>& masks) {
    torch::NoGradGuard no_grad;
    return selector_.forward(dense_masks(masks, inputs_)).contiguous();
  }

  static Mask top(const std::vector<double>& values, std::int64_t k) {
    Mask order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return values[static_cast<std::size_t>(a)] > values[static_cast<std::size_t>(b)];
    });
    order.resize(static_cast<std::size_t>(k));
    std::sort(order.begin(), order.end());
    return order;
  }

  SelectorNet& selector_;
  std::int64_t inputs_;
  std::int64_t k_;
};

class FirModel final : public LoopModel {
 public:
  FirModel(Operator& op, SelectorNet& selector, const FirOptions& options, NeuralTask task,
           const MaskSpace& space, std::int64_t k)
      : operator_(op),
        selector_(selector),
        options_(options),
        task_(task),
        space_(space),
        inputs_(space.size()),
        k_(k),
        rng_(derive_seed(options.seed, 3)),
        search_(selector, inputs_, k),
        selector_optimizer_(selector.parameters(),
                            std::vector<double>(selector.parameters().size(), 0.0),
                            {options.lr, 0.9, 0.999, 1e-8, options.clip}) {
    best_mask_ = search_.run(options.search_steps);
  }

  std::vector<Tensor> parameters() override { return operator_.parameters(); }

  // The selector is restored with the operator: the final mask comes from it.
  std::vector<Tensor> state() override {
    std::vector<Tensor> all = operator_.parameters();
    for (const auto& tensor : selector_.parameters()) all.push_back(tensor);
    return all;
  }

  Tensor batch_loss(const Tensor& x, const Tensor& y, const StepInfo& step,
                    const FirstLayerSeat*) override {
    exploiting_ = step.progress() >= options_.explore;
    const std::vector<Mask> masks = mask_batch();
    const auto count = static_cast<std::int64_t>(masks.size());
    const Tensor out = operator_.forward(x, space_.columns(masks));
    const Tensor targets = y.dim() == 1 ? y.repeat({count}) : y.repeat({count, 1});
    const Tensor per_mask =
        data_loss_per_row(out, targets, task_, step.weights).view({count, x.size(0)}).mean(1);
    step_masks_ = masks;
    step_losses_ = per_mask.detach().clone();
    return per_mask.mean();
  }

  // The step's loss per mask, which the selector learns from: over the whole
  // minibatch when the rows are spread over ranks.
  std::vector<Tensor> step_statistics() override { return {step_losses_}; }

  void after_step(const StepInfo& step) override {
    remember(step_masks_, step_losses_);
    const long done = (step.epoch - 1) * step.batches + step.batch;
    if (done % options_.selector_every == 0) train_selector();
  }

  // The operator under the optimiser's current mask: what the method would
  // deliver if it stopped here.
  Tensor validation_loss(const Tensor& x, const Tensor& y, const Tensor& weights) override {
    return data_loss(operator_.forward(x, space_.columns({best_mask_})), y, task_, weights);
  }

  // The final mask (a longer search) and the importance there.
  std::pair<Mask, std::vector<double>> result() {
    const Mask mask = search_.run(kFinalSearchSteps);
    return {mask, search_.importance(dense_masks({mask}, inputs_))};
  }

 private:
  // Random masks; after the exploration phase the second half is the
  // optimiser's mask, the best measured mask of the last selector round and
  // perturbations of the optimiser's mask.
  std::vector<Mask> mask_batch() {
    std::vector<Mask> masks;
    const auto total = static_cast<std::size_t>(options_.masks);
    const std::size_t random = exploiting_ ? total / 2 : total;
    for (std::size_t i = 0; i < random; ++i) masks.push_back(random_mask());
    if (!exploiting_) return masks;
    masks.push_back(best_mask_);
    masks.push_back(measured_best_.empty() ? random_mask() : measured_best_);
    while (masks.size() < total) masks.push_back(perturbed(best_mask_));
    return masks;
  }

  Mask random_mask() {
    Mask mask = rng_.sample_without_replacement(inputs_, k_);
    std::sort(mask.begin(), mask.end());
    return mask;
  }

  Mask perturbed(Mask mask) {
    if (k_ == inputs_) return mask;
    for (int i = 0; i < options_.perturb; ++i) {
      std::vector<bool> present(static_cast<std::size_t>(inputs_), false);
      for (auto column : mask) present[static_cast<std::size_t>(column)] = true;
      const auto out = mask[rng_.uniform_index(static_cast<std::uint64_t>(k_))];
      std::int64_t in = 0;
      do {
        in = static_cast<std::int64_t>(rng_.uniform_index(static_cast<std::uint64_t>(inputs_)));
      } while (present[static_cast<std::size_t>(in)]);
      mask = swapped(mask, out, in);
    }
    return mask;
  }

  // The authors weight the optimiser's mask 5 and the best measured one 10
  // in the selector's loss once they are part of the batches.
  void remember(const std::vector<Mask>& masks, const Tensor& losses) {
    const float* loss = losses.data_ptr<float>();
    const std::size_t special = masks.size() / 2;
    for (std::size_t i = 0; i < masks.size(); ++i) {
      seen_masks_.push_back(masks[i]);
      seen_losses_.push_back(loss[i]);
      seen_weights_.push_back(!exploiting_       ? 1.0f
                              : i == special     ? 5.0f
                              : i == special + 1 ? 10.0f
                                                 : 1.0f);
    }
  }

  // One selector step (weighted mean absolute error, its own Adam) on the
  // masks and losses since the last one; then a new optimiser mask.
  void train_selector() {
    const auto best = std::min_element(seen_losses_.begin(), seen_losses_.end());
    measured_best_ = seen_masks_[static_cast<std::size_t>(best - seen_losses_.begin())];
    const auto count = static_cast<std::int64_t>(seen_losses_.size());
    const Tensor targets = torch::from_blob(seen_losses_.data(), {count}, torch::kFloat);
    const Tensor weights = torch::from_blob(seen_weights_.data(), {count}, torch::kFloat);
    selector_optimizer_.zero_grad();
    const Tensor predicted = selector_.forward(dense_masks(seen_masks_, inputs_));
    const Tensor loss = (weights * (predicted - targets).abs()).mean();
    loss.backward();
    // A selector step with an infinite gradient is skipped: the operator's
    // own divergence check reports a training that went wrong.
    (void)selector_optimizer_.step();
    seen_masks_.clear();
    seen_losses_.clear();
    seen_weights_.clear();
    best_mask_ = search_.run(options_.search_steps);
  }

  Operator& operator_;
  SelectorNet& selector_;
  const FirOptions& options_;
  NeuralTask task_;
  const MaskSpace& space_;
  std::int64_t inputs_;  // the positions masks range over (space_.size())
  std::int64_t k_;
  Rng rng_;
  MaskSearch search_;
  FusedAdam selector_optimizer_;
  bool exploiting_ = false;
  Mask best_mask_;                // the optimiser's latest result
  Mask measured_best_;            // the mask of lowest operator loss in the last selector round
  std::vector<Mask> step_masks_;  // the masks of the current step
  Tensor step_losses_;            // and their losses
  std::vector<Mask> seen_masks_;
  std::vector<float> seen_losses_;
  std::vector<float> seen_weights_;
};

class FirSelector final : public NeuralSelector<FirOptions> {
 public:
  FirSelector() : NeuralSelector(fir_option_table(), "fir") {}

  // The masks hold whole groups: every input of a group scores the group's
  // importance.
  bool selects_groups() const override { return true; }
  GroupScore group_score() const override { return GroupScore::Shared; }

 protected:
  NeuralFit train(const NeuralProblem& problem, int k, const FitCallbacks& callbacks) override {
    Rng init_rng(derive_seed(options_.seed, 0));
    const InputUnits units(problem);
    const MaskSpace space(units);
    Operator op(problem.inputs, problem.outputs, options_.hidden, init_rng);
    SelectorNet selector(space.size(), options_.selector_hidden, init_rng);
    FirModel model(op, selector, options_, problem.task, space, k);
    NeuralFit fit;
    fit.outcome = train_loop(model, problem.set, loop_settings(options_), callbacks);
    auto [mask, importance] = model.result();
    rank_chosen_first(importance, mask);
    fit.scores = space.column_scores(importance);
    fit.notes.push_back(fmt::format(
        "scores: the selector's importance -dSL/dm at the final mask, whose k {} are ranked "
        "first (raised by 1 + the spread of the importances)",
        units.grouped() ? "groups" : "columns"));
    return fit;
  }
};

}  // namespace

std::unique_ptr<Selector> make_fir_selector() { return std::make_unique<FirSelector>(); }

}  // namespace topkfs
