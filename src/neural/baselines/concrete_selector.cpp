// concrete: the concrete selector layer of Abid, Balin & Zou (ICML 2019),
// supervised variant. k selector nodes, each a logits vector over the m
// inputs; in training node i outputs x . softmax((logits_i + g_i) / T) with
// fresh Gumbel noise g per step and a temperature T annealed exponentially
// per step; at evaluation it outputs x[argmax logits_i]. An MLP predicts the
// target from the k node outputs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "network.hpp"
#include "neural_selector.hpp"
#include "random_tensors.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/neural/baselines.hpp"
#include "training_option_table.hpp"

namespace topkfs {

ConcreteOptions::ConcreteOptions() {
  epochs = 30;
  lr = 1e-2;
  patience = 0;
}

void ConcreteOptions::validate() const {
  validate_training();
  if (!(start_temp > 0)) {
    throw OptionError(fmt::format("--start-temp must be positive, got {}", start_temp));
  }
  if (!(end_temp > 0 && end_temp <= start_temp)) {
    throw OptionError(fmt::format(
        "--end-temp must be positive and at most --start-temp ({}), got {}", start_temp, end_temp));
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
  ConcreteNetwork(std::int64_t inputs, std::int64_t k, std::int64_t outputs,
                  const std::vector<int>& hidden, Rng& rng) {
    // Glorot-normal logits, as the authors' layer: small, so that every input
    // starts nearly equally likely.
    const double stddev = std::sqrt(2.0 / static_cast<double>(inputs + k));
    logits = register_parameter("logits", normal_tensor(rng, {k, inputs}) * stddev);
    body = MlpLayers::create(*this, k, outputs, hidden, rng);
  }

  Tensor logits;  // k x m
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
    const Tensor selection = torch::softmax(noisy, 1);  // k x m, rows sum to 1
    return data_loss(network_.body.forward(x.mm(selection.t())), y, task_, step.weights);
  }

  // The discrete selection, as the method is used after training.
  Tensor validation_loss(const Tensor& x, const Tensor& y, const Tensor& weights) override {
    return data_loss(network_.body.forward(x.index_select(1, network_.logits.argmax(1))), y, task_,
                     weights);
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
NodeChoices choose_columns(const Tensor& probabilities, const std::vector<std::string>& names) {
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
                                        names[static_cast<std::size_t>(first)],
                                        names[static_cast<std::size_t>(choice)]));
  }
  return choices;
}

class ConcreteSelector final : public NeuralSelector<ConcreteOptions> {
 public:
  ConcreteSelector() : NeuralSelector(concrete_option_table(), "concrete") {}

 protected:
  NeuralFit train(const NeuralProblem& problem, int k, const FitCallbacks& callbacks) override {
    Rng init_rng(derive_seed(options_.seed, 0));
    ConcreteNetwork network(problem.inputs, k, problem.outputs, options_.hidden, init_rng);
    ConcreteModel model(network, options_, problem.task);
    NeuralFit fit;
    fit.outcome = train_loop(model, problem.set, loop_settings(options_), callbacks);
    describe_selection(network, problem, k, fit);
    return fit;
  }

 private:
  // Scores: the largest selection probability of each column over the
  // nodes, with the chosen columns (choose_columns) ranked first.
  static void describe_selection(ConcreteNetwork& network, const NeuralProblem& problem, int k,
                                 NeuralFit& fit) {
    torch::NoGradGuard no_grad;
    const Tensor probabilities =
        torch::softmax(network.logits.detach(), 1).to(torch::kDouble).contiguous();
    const Tensor best = std::get<0>(probabilities.max(0)).contiguous();
    fit.scores.assign(best.data_ptr<double>(), best.data_ptr<double>() + best.numel());
    const NodeChoices choices = choose_columns(probabilities, problem.data->feature_names);
    rank_chosen_first(fit.scores, choices.selected);
    if (!choices.moves.empty()) {
      constexpr std::size_t kListed = 10;
      const std::size_t listed = std::min(kListed, choices.moves.size());
      fit.warnings.push_back(fmt::format(
          "{} of the {} concrete nodes chose a column another node had chosen; the selection was "
          "filled up to k = {} with each such node's most probable column not yet selected: {}{}",
          choices.moves.size(), k, k,
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
