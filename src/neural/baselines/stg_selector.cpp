// stg: stochastic gates (Yamada, Lindenbaum, Negahban & Kluger, ICML 2020).
// Each input d has a gate z_d = clamp(mu_d + eps_d, 0, 1), eps_d ~ N(0, sigma^2)
// in training and 0 at evaluation, in front of an MLP. The objective adds
// lambda * mean_d P(z_d > 0) = lambda / m * sum_d Phi(mu_d / sigma) to the
// data loss: the paper's sum with its weight divided by m, as the authors'
// code has it, so that one lambda means the same for 50 columns and for 784.
// The ranking is by mu. With column groups there is one gate per group,
// open or closed for the group's inputs together, and k counts groups.
#include <fmt/format.h>

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

StgOptions::StgOptions() {}

void StgOptions::validate() const {
  validate_training();
  if (!(sigma > 0))
    throw OptionError(fmt::format("{} must be positive, got {}", option_ref("sigma"), sigma));
  if (!(lambda >= 0))
    throw OptionError(fmt::format("{} must not be negative, got {}", option_ref("lambda"), lambda));
}

const OptionTable<StgOptions>& stg_option_table() {
  static const OptionTable<StgOptions> table = [] {
    OptionTable<StgOptions> t;
    add_training_options(t, "Hidden layer sizes of the MLP after the gates");
    t.add("sigma", &StgOptions::sigma,
          "Standard deviation of the Gaussian noise on the gates in training (the paper's 0.5)")
        .add("lambda", &StgOptions::lambda,
             "Weight of the fraction of open gates, mean_d P(gate d open) = mean_d Phi(mu_d / "
             "sigma) (the paper's sum divided by the number of columns)");
    return t;
  }();
  return table;
}

namespace {

using torch::Tensor;

class StgNetwork : public torch::nn::Module {
 public:
  StgNetwork(const InputUnits& units, std::int64_t outputs, const std::vector<int>& hidden,
             Rng& rng)
      : units_(units) {
    // 0.5: every gate half open, as the paper starts.
    mu = register_parameter("mu", torch::full({units.count()}, 0.5f));
    body = MlpLayers::create(*this, units.inputs(), outputs, hidden, rng);
  }

  // The gated first layer reads the gates (one per unit) directly (no x * z
  // product formed).
  Tensor forward(const Tensor& x, const Tensor& gates) {
    const Tensor none = torch::empty({0}, torch::kLong);
    return body.finish(
        gated_linear(x, units_.per_input(gates), body.first_weight, body.first_bias, none)[0]);
  }

  Tensor mu;
  MlpLayers body;

 private:
  const InputUnits& units_;
};

class StgModel final : public LoopModel {
 public:
  StgModel(StgNetwork& network, const StgOptions& options, NeuralTask task)
      : network_(network), options_(options), task_(task), noise_(derive_seed(options.seed, 3)) {}

  std::vector<Tensor> parameters() override { return network_.parameters(); }

  // One noise vector per minibatch, shared by its rows, as the authors' code.
  Tensor batch_loss(const Tensor& x, const Tensor& y, const StepInfo& step,
                    const FirstLayerSeat*) override {
    const Tensor noise = normal_tensor(noise_, network_.mu.sizes()) * options_.sigma;
    return objective(torch::clamp(network_.mu + noise, 0.0, 1.0), x, y, step.weights);
  }

  // With the deterministic gates, and with the penalty: closing gates is
  // the point, and the data loss alone would call every closed gate a
  // step back (and restore an early, dense epoch).
  Tensor validation_loss(const Tensor& x, const Tensor& y, const Tensor& weights) override {
    return objective(torch::clamp(network_.mu, 0.0, 1.0), x, y, weights);
  }

 private:
  Tensor objective(const Tensor& gates, const Tensor& x, const Tensor& y, const Tensor& weights) {
    const Tensor loss = data_loss(network_.forward(x, gates), y, task_, weights);
    if (!(options_.lambda > 0)) return loss;
    // Phi(mu / sigma) = (1 + erf(mu / (sigma sqrt 2))) / 2
    const Tensor open = 0.5 * (1.0 + torch::erf(network_.mu / (options_.sigma * std::sqrt(2.0))));
    return loss + options_.lambda * open.mean();
  }

  StgNetwork& network_;
  const StgOptions& options_;
  NeuralTask task_;
  Rng noise_;
};

class StgSelector final : public NeuralSelector<StgOptions> {
 public:
  StgSelector() : NeuralSelector(stg_option_table(), "stg") {}

  // The gates are trained without k; k only cuts the ranking by mu.
  bool ranking_depends_on_k() const override { return false; }
  // One gate per group: every input of a group scores the group's mu.
  bool selects_groups() const override { return true; }
  GroupScore group_score() const override { return GroupScore::Shared; }

 protected:
  NeuralFit train(const NeuralProblem& problem, int k, const FitCallbacks& callbacks) override {
    Rng init_rng(derive_seed(options_.seed, 0));
    const InputUnits units(problem);
    StgNetwork network(units, problem.outputs, options_.hidden, init_rng);
    StgModel model(network, options_, problem.task);
    NeuralFit fit;
    fit.outcome = train_loop(model, problem.set, loop_settings(options_), callbacks);
    const Tensor mu = network.mu.detach().to(torch::kDouble).contiguous();
    fit.scores = units.per_input(
        std::vector<double>(mu.data_ptr<double>(), mu.data_ptr<double>() + mu.numel()));
    const auto open = (mu > 0).sum().item<std::int64_t>();
    fit.notes.push_back(
        fmt::format("{} of {} gates{} open at the end (mu > 0); the {} of largest mu are selected",
                    open, mu.numel(), units.grouped() ? " (one per group)" : "", k));
    return fit;
  }
};

}  // namespace

std::unique_ptr<Selector> make_stg_selector() { return std::make_unique<StgSelector>(); }

}  // namespace topkfs
