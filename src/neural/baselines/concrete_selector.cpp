// concrete: the concrete selector layer of Abid, Balin & Zou (ICML 2019),
// supervised variant. k selector nodes, each a logits vector over the m
// inputs; in training node i outputs x . softmax((logits_i + g_i) / T) with
// fresh Gumbel noise g per step and a temperature T annealed exponentially
// per step; at evaluation it outputs x[argmax logits_i]. An MLP predicts the
// target from the k node outputs. With column groups each node chooses among
// the groups and outputs the chosen group's inputs (a slot as wide as the
// widest group, zeros past a group's width), so k counts groups.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "input_units.hpp"
#include "neural/model/network.hpp"
#include "neural/ops/random_tensors.hpp"
#include "neural/train/neural_selector.hpp"
#include "neural/train/training_option_table.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/neural/baselines.hpp"

namespace topkfs {

ConcreteOptions::ConcreteOptions() {
  epochs = 30;
  lr = 1e-2;
  patience = 0;
}

void ConcreteOptions::validate() const {
  validate_training();
  if (!(start_temp > 0)) {
    throw OptionError(
        fmt::format("{} must be positive, got {}", option_ref("start-temp"), start_temp));
  }
  if (!(end_temp > 0 && end_temp <= start_temp)) {
    throw OptionError(fmt::format("{} must be positive and at most {} ({}), got {}",
                                  option_ref("end-temp"), option_ref("start-temp"), start_temp,
                                  end_temp));
  }
}

const OptionTable<ConcreteOptions>& concrete_option_table() {
  static const OptionTable<ConcreteOptions> table = [] {
    OptionTable<ConcreteOptions> t;
    add_training_options(t, "Hidden layer sizes of the MLP after the k selector nodes");
    t.add("start-temp", &ConcreteOptions::start_temp,
          "Temperature of the Gumbel-softmax at the first step (high: every input mixed in)")
        .add("end-temp", &ConcreteOptions::end_temp,
             "Temperature at the last planned step (low: each node nearly one-hot); annealed "
             "exponentially per step");
    return t;
  }();
  return table;
}

namespace {

using torch::Tensor;

class ConcreteNetwork : public torch::nn::Module {
 public:
  ConcreteNetwork(const InputUnits& units, std::int64_t k, std::int64_t outputs,
                  const std::vector<int>& hidden, Rng& rng)
      : units(units), unusable(units.logit_mask()) {
    // Glorot-normal logits, as the authors' layer: small, so that every input
    // starts nearly equally likely.
    const double stddev = std::sqrt(2.0 / static_cast<double>(units.count() + k));
    logits = register_parameter("logits", normal_tensor(rng, {k, units.count()}) * stddev);
    body = MlpLayers::create(*this, k * units.width(), outputs, hidden, rng);
  }

  // The node outputs for selection weights (k x units, rows summing to 1).
  Tensor select(const Tensor& x, const Tensor& selection) const {
    if (!units.grouped()) return x.mm(selection.t());
    // (B x width x units) (units x k) -> B x width x k, then node by node.
    const Tensor mixed = units.slots(x).transpose(1, 2).matmul(selection.t());
    return mixed.transpose(1, 2).reshape({x.size(0), -1});
  }

  // The node outputs at each node's most probable unit.
  Tensor select_argmax(const Tensor& x) const {
    const Tensor chosen = (logits + unusable).argmax(1);
    if (!units.grouped()) return x.index_select(1, chosen);
    return units.slots(x).index_select(1, chosen).reshape({x.size(0), -1});
  }

  const InputUnits& units;
  Tensor unusable;  // per unit, -inf for a group without inputs
  Tensor logits;    // k x units
  MlpLayers body;
};

class ConcreteModel final : public LoopModel {
 public:
  ConcreteModel(ConcreteNetwork& network, const ConcreteOptions& options, NeuralTask task)
      : network_(network), options_(options), task_(task), noise_(derive_seed(options.seed, 3)) {}

  std::vector<Tensor> parameters() override { return network_.parameters(); }

  Tensor batch_loss(const Tensor& x, const Tensor& y, const StepInfo& step,
                    const FirstLayerSeat*) override {
    const double temperature =
        options_.start_temp * std::pow(options_.end_temp / options_.start_temp, step.progress());
    const Tensor noisy =
        (network_.logits + gumbel_tensor(noise_, network_.logits.sizes())) / temperature;
    const Tensor selection = torch::softmax(noisy + network_.unusable, 1);  // rows sum to 1
    return data_loss(network_.body.forward(network_.select(x, selection)), y, task_, step.weights);
  }

  // The discrete selection, as the method is used after training.
  Tensor validation_loss(const Tensor& x, const Tensor& y, const Tensor& weights) override {
    return data_loss(network_.body.forward(network_.select_argmax(x)), y, task_, weights);
  }

 private:
  ConcreteNetwork& network_;
  const ConcreteOptions& options_;
  NeuralTask task_;
  Rng noise_;
};

// Probabilities p (k x m, row-major): node i's most probable column is p's
// argmax in row i, or, among the columns not yet taken, when another node
// took that one already.
std::int64_t most_probable(const double* p, std::int64_t m, int node,
                           const std::vector<bool>& taken) {
  std::int64_t choice = -1;
  for (std::int64_t j = 0; j < m; ++j) {
    if (taken[static_cast<std::size_t>(j)]) continue;
    if (choice < 0 || p[node * m + j] > p[node * m + choice]) choice = j;
  }
  return choice;
}

struct NodeChoices {
  std::vector<std::int64_t> selected;  // k distinct columns
  std::vector<std::string> moves;      // one line per node that had to move
};

// Every node's argmax is selected. A node whose argmax another node took
// already takes its most probable column not yet selected instead (such
// nodes in the order of their confidence).
NodeChoices choose_columns(const Tensor& probabilities, const InputUnits& units) {
  const int k = static_cast<int>(probabilities.size(0));
  const std::int64_t m = probabilities.size(1);
  const double* p = probabilities.data_ptr<double>();
  const std::vector<bool> none(static_cast<std::size_t>(m), false);
  std::vector<bool> taken = none;
  NodeChoices choices;
  std::vector<int> repeating;
  for (int node = 0; node < k; ++node) {
    const std::int64_t choice = most_probable(p, m, node, none);
    if (taken[static_cast<std::size_t>(choice)]) {
      repeating.push_back(node);
    } else {
      taken[static_cast<std::size_t>(choice)] = true;
      choices.selected.push_back(choice);
    }
  }
  const auto confidence = [&](int node) {
    return *std::max_element(p + node * m, p + (node + 1) * m);
  };
  std::stable_sort(repeating.begin(), repeating.end(),
                   [&](int a, int b) { return confidence(a) > confidence(b); });
  for (int node : repeating) {
    const std::int64_t first = most_probable(p, m, node, none);
    const std::int64_t choice = most_probable(p, m, node, taken);
    taken[static_cast<std::size_t>(choice)] = true;
    choices.selected.push_back(choice);
    choices.moves.push_back(fmt::format("node {} chose '{}' again and took '{}'", node + 1,
                                        units.name(first), units.name(choice)));
  }
  return choices;
}

class ConcreteSelector final : public NeuralSelector<ConcreteOptions> {
 public:
  ConcreteSelector() : NeuralSelector(concrete_option_table(), "concrete") {}

  // Each node chooses a group: every input of a group scores the group's
  // largest selection probability.
  bool selects_groups() const override { return true; }
  GroupScore group_score() const override { return GroupScore::Shared; }

 protected:
  NeuralFit train(const NeuralProblem& problem, int k, const FitCallbacks& callbacks) override {
    Rng init_rng(derive_seed(options_.seed, 0));
    const InputUnits units(problem);
    ConcreteNetwork network(units, k, problem.outputs, options_.hidden, init_rng);
    ConcreteModel model(network, options_, problem.task);
    NeuralFit fit;
    fit.outcome = train_loop(model, problem.set, loop_settings(options_), callbacks);
    describe_selection(network, k, fit);
    return fit;
  }

 private:
  // Scores: the largest selection probability of each unit (column or
  // group) over the nodes, with the chosen units (choose_columns) ranked
  // first; a group's inputs score the group's.
  static void describe_selection(ConcreteNetwork& network, int k, NeuralFit& fit) {
    torch::NoGradGuard no_grad;
    const Tensor probabilities = torch::softmax(network.logits.detach() + network.unusable, 1)
                                     .to(torch::kDouble)
                                     .contiguous();
    const Tensor best = std::get<0>(probabilities.max(0)).contiguous();
    std::vector<double> scores(best.data_ptr<double>(), best.data_ptr<double>() + best.numel());
    const NodeChoices choices = choose_columns(probabilities, network.units);
    rank_chosen_first(scores, choices.selected);
    fit.scores = network.units.per_input(scores);
    if (!choices.moves.empty()) {
      constexpr std::size_t kListed = 10;
      const std::size_t listed = std::min(kListed, choices.moves.size());
      fit.warnings.push_back(fmt::format(
          "{} of the {} concrete nodes chose a {} another node had chosen; the selection was "
          "filled up to k = {} with each such node's most probable one not yet selected: {}{}",
          choices.moves.size(), k, network.units.grouped() ? "group" : "column", k,
          fmt::join(choices.moves.begin(), choices.moves.begin() + static_cast<long>(listed), "; "),
          listed < choices.moves.size()
              ? fmt::format("; and {} more", choices.moves.size() - listed)
              : ""));
    }
    const double mean_max = std::get<0>(probabilities.max(1)).mean().item<double>();
    fit.notes.push_back(fmt::format(
        "mean over the nodes of their largest selection probability: {:.4f} (1 = every node "
        "one-hot)",
        mean_max));
  }
};

}  // namespace

std::unique_ptr<Selector> make_concrete_selector() { return std::make_unique<ConcreteSelector>(); }

}  // namespace topkfs
