#include "trainer.hpp"

#include <fmt/format.h>
#include <torch/nn/functional.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "fused_adam.hpp"
#include "top_k_mask.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using Clock = std::chrono::steady_clock;
using torch::Tensor;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The sub-model's input set for this step, or an empty tensor (lead only).
Tensor current_subset(TopKNetwork& network, std::int64_t k, bool use_sub) {
  if (!use_sub) return torch::empty({0}, torch::kLong);
  const Tensor w = network.w.detach();
  const auto indices = top_k_by_magnitude(w.data_ptr<float>(), w.numel(), k);
  return torch::tensor(indices, torch::kLong);
}

Tensor rows_tensor(const std::vector<std::int64_t>& rows, std::size_t begin, std::size_t end) {
  return torch::from_blob(const_cast<std::int64_t*>(rows.data() + begin),
                          {static_cast<std::int64_t>(end - begin)}, torch::kLong);
}

struct LossParts {
  Tensor total;  // what is minimised
  Tensor data;   // lead + lambda3 * sub, without the penalties on w
};

LossParts objective(TopKNetwork& network, const Tensor& x, const Tensor& y, const Tensor& subset,
                    const DnnTopOptions& options, NeuralTask task) {
  const ModelOutputs out = network.forward(x, subset);
  Tensor data = data_loss(out.lead, y, task);
  if (out.sub.defined()) data = data + options.lambda3 * data_loss(out.sub, y, task);
  Tensor total = data;
  if (options.lambda2 > 0) total = total + options.lambda2 * network.w.abs().sum();
  if (options.lambda1 > 0) total = total + options.lambda1 * network.w.pow(2).sum();
  return {total, data};
}

double validation_loss(TopKNetwork& network, const TrainingSet& data, const Tensor& subset,
                       const DnnTopOptions& options) {
  torch::NoGradGuard no_grad;
  const auto& rows = data.validation_rows;
  constexpr std::size_t kChunk = 2048;
  double sum = 0.0;
  for (std::size_t begin = 0; begin < rows.size(); begin += kChunk) {
    const std::size_t end = std::min(rows.size(), begin + kChunk);
    const Tensor x = gather_batch(data, rows, begin, end);
    const Tensor y = data.targets.index_select(0, rows_tensor(rows, begin, end));
    const LossParts loss = objective(network, x, y, subset, options, data.task);
    sum += loss.data.item<double>() * static_cast<double>(end - begin);
  }
  return sum / static_cast<double>(rows.size());
}

std::vector<Tensor> snapshot(TopKNetwork& network) {
  std::vector<Tensor> copy;
  for (const auto& parameter : network.parameters()) copy.push_back(parameter.detach().clone());
  return copy;
}

void restore(TopKNetwork& network, const std::vector<Tensor>& copy) {
  torch::NoGradGuard no_grad;
  auto parameters = network.parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(copy[i]);
}

}  // namespace

Tensor data_loss(const Tensor& output, const Tensor& targets, NeuralTask task) {
  switch (task) {
    case NeuralTask::MultiClass: return torch::nn::functional::cross_entropy(output, targets);
    case NeuralTask::Binary:
      return torch::nn::functional::binary_cross_entropy_with_logits(output, targets);
    case NeuralTask::Regression: return torch::nn::functional::mse_loss(output, targets);
  }
  TOPKFS_ASSERT(false);
  return {};
}

Tensor gather_batch(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                    std::size_t begin, std::size_t end) {
  const auto m = data.features->cols();
  Tensor batch = torch::empty({static_cast<std::int64_t>(end - begin), m});
  float* out = batch.data_ptr<float>();
  for (std::size_t i = begin; i < end; ++i) {
    std::memcpy(out + (i - begin) * static_cast<std::size_t>(m), data.features->row(rows[i]).data(),
                sizeof(float) * static_cast<std::size_t>(m));
  }
  if (data.offset.defined()) batch.sub_(data.offset).mul_(data.inv_scale);
  return batch;
}

TrainingOutcome train_network(TopKNetwork& network, const TrainingSet& data,
                              const DnnTopOptions& options, std::int64_t k,
                              const FitCallbacks& callbacks, const GradientHook& hook) {
  const auto start = Clock::now();
  const bool use_sub = options.lambda3 > 0;
  // Adam's weight decay applies to the body only; w is penalised by lambda1/2.
  auto parameters = network.parameters();
  std::vector<double> decay;
  for (const auto& parameter : parameters) {
    decay.push_back(parameter.is_same(network.w) ? 0.0 : options.weight_decay);
  }
  FusedAdam optimizer(parameters, decay,
                      {options.lr, options.beta1, options.beta2, 1e-8, options.clip});

  Rng rng(derive_seed(options.seed, 1));
  std::vector<std::int64_t> order = data.train_rows;
  const std::size_t batch = static_cast<std::size_t>(options.batch);
  const long batches = static_cast<long>((order.size() + batch - 1) / batch);

  TrainingOutcome outcome;
  double best_val = std::numeric_limits<double>::infinity();
  std::vector<Tensor> best_parameters;
  int epochs_without_improvement = 0;
  std::optional<double> last_val;

  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    rng.shuffle(order);
    double loss_sum = 0.0;
    for (long b = 0; b < batches; ++b) {
      const std::size_t begin = static_cast<std::size_t>(b) * batch;
      const std::size_t end = std::min(order.size(), begin + batch);
      const Tensor x = gather_batch(data, order, begin, end);
      const Tensor y = data.targets.index_select(0, rows_tensor(order, begin, end));
      // The mask is recomputed at every step from the current w.
      const Tensor subset = current_subset(network, k, use_sub);
      optimizer.zero_grad();
      const LossParts loss = objective(network, x, y, subset, options, data.task);
      const double value = loss.total.item<double>();
      if (!std::isfinite(value)) {
        throw TrainingError(fmt::format(
            "epoch {}, batch {}: the loss became {}; training diverged. Try a lower learning "
            "rate (--lr {} now, e.g. --lr {})",
            epoch, b + 1, value, options.lr, options.lr / 10));
      }
      loss.total.backward();
      if (hook) hook(parameters);
      // step() clips the gradient norm first when options.clip > 0.
      if (!optimizer.step()) {
        throw TrainingError(fmt::format(
            "epoch {}, batch {}: the gradient became infinite; training diverged. Try a lower "
            "learning rate (--lr {} now, e.g. --lr {}) or scaled inputs (--scaling standard)",
            epoch, b + 1, options.lr, options.lr / 10));
      }
      loss_sum += value;
      callbacks.report({epoch, options.epochs, b + 1, batches, loss_sum / static_cast<double>(b + 1),
                        last_val, seconds_since(start), false});
    }

    EpochRecord record;
    record.epoch = epoch;
    record.loss = loss_sum / static_cast<double>(batches);
    if (!data.validation_rows.empty()) {
      const Tensor subset = current_subset(network, k, use_sub);
      record.val_loss = validation_loss(network, data, subset, options);
      last_val = record.val_loss;
    }
    record.seconds = seconds_since(epoch_start);
    outcome.history.push_back(record);
    callbacks.report({epoch, options.epochs, batches, batches, record.loss, last_val,
                      seconds_since(start), true});

    if (record.val_loss) {
      if (*record.val_loss < best_val) {
        best_val = *record.val_loss;
        outcome.best_epoch = epoch;
        best_parameters = snapshot(network);
        epochs_without_improvement = 0;
      } else if (options.patience > 0 && ++epochs_without_improvement >= options.patience) {
        outcome.stopped_early = true;
        break;
      }
    } else {
      outcome.best_epoch = epoch;
    }
  }
  if (!best_parameters.empty()) restore(network, best_parameters);
  return outcome;
}

}  // namespace topkfs
