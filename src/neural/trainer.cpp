#include "trainer.hpp"

#include <fmt/format.h>
#include <torch/nn/functional.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using Clock = std::chrono::steady_clock;
using torch::Tensor;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Tensor rows_tensor(const std::vector<std::int64_t>& rows, std::size_t begin, std::size_t end) {
  return torch::from_blob(const_cast<std::int64_t*>(rows.data() + begin),
                          {static_cast<std::int64_t>(end - begin)}, torch::kLong);
}

double validation_loss(LoopModel& model, const TrainingSet& data) {
  torch::NoGradGuard no_grad;
  const auto& rows = data.validation_rows;
  constexpr std::size_t kChunk = 2048;
  double sum = 0.0;
  for (std::size_t begin = 0; begin < rows.size(); begin += kChunk) {
    const std::size_t end = std::min(rows.size(), begin + kChunk);
    const Tensor x = gather_batch(data, rows, begin, end);
    const Tensor y = data.targets.index_select(0, rows_tensor(rows, begin, end));
    sum += model.validation_loss(x, y).item<double>() * static_cast<double>(end - begin);
  }
  return sum / static_cast<double>(rows.size());
}

std::vector<Tensor> snapshot(LoopModel& model) {
  std::vector<Tensor> copy;
  for (const auto& tensor : model.state()) copy.push_back(tensor.detach().clone());
  return copy;
}

void restore(LoopModel& model, const std::vector<Tensor>& copy) {
  torch::NoGradGuard no_grad;
  auto state = model.state();
  for (std::size_t i = 0; i < state.size(); ++i) state[i].copy_(copy[i]);
}

[[noreturn]] void diverged(const StepInfo& step, const std::string& what, double lr,
                           const char* extra) {
  throw TrainingError(fmt::format(
      "epoch {}, batch {}: {}; training diverged. Try a lower learning rate (--lr {} now, e.g. "
      "--lr {}){}",
      step.epoch, step.batch, what, lr, lr / 10, extra));
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

Tensor data_loss_per_row(const Tensor& output, const Tensor& targets, NeuralTask task) {
  namespace F = torch::nn::functional;
  switch (task) {
    case NeuralTask::MultiClass:
      return F::cross_entropy(output, targets, F::CrossEntropyFuncOptions().reduction(torch::kNone));
    case NeuralTask::Binary:
      return F::binary_cross_entropy_with_logits(
                 output, targets, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone))
          .mean(1);
    case NeuralTask::Regression:
      return F::mse_loss(output, targets, F::MSELossFuncOptions().reduction(torch::kNone)).mean(1);
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

TrainingOutcome train_loop(LoopModel& model, const TrainingSet& data, const LoopSettings& settings,
                           const FitCallbacks& callbacks, const GradientHook& hook) {
  const auto start = Clock::now();
  auto parameters = model.parameters();
  FusedAdam optimizer(parameters, model.weight_decay(), settings.adam);

  Rng rng(derive_seed(settings.seed, 1));
  std::vector<std::int64_t> order = data.train_rows;
  const std::size_t batch = static_cast<std::size_t>(settings.batch);
  const long batches = static_cast<long>((order.size() + batch - 1) / batch);
  const double lr = settings.adam.lr;

  TrainingOutcome outcome;
  double best_val = std::numeric_limits<double>::infinity();
  std::vector<Tensor> best_state;
  int epochs_without_improvement = 0;
  std::optional<double> last_val;

  for (int epoch = 1; epoch <= settings.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    rng.shuffle(order);
    double loss_sum = 0.0;
    for (long b = 0; b < batches; ++b) {
      const StepInfo step{epoch, settings.epochs, b + 1, batches};
      const std::size_t begin = static_cast<std::size_t>(b) * batch;
      const std::size_t end = std::min(order.size(), begin + batch);
      const Tensor x = gather_batch(data, order, begin, end);
      const Tensor y = data.targets.index_select(0, rows_tensor(order, begin, end));
      optimizer.zero_grad();
      const Tensor loss = model.batch_loss(x, y, step);
      const double value = loss.item<double>();
      if (!std::isfinite(value)) diverged(step, fmt::format("the loss became {}", value), lr, "");
      loss.backward();
      if (hook) hook(parameters);
      // step() clips the gradient norm first when settings.adam.clip > 0.
      if (!optimizer.step()) {
        diverged(step, "the gradient became infinite", lr, " or scaled inputs (--scaling standard)");
      }
      model.after_step(step);
      loss_sum += value;
      callbacks.report({epoch, settings.epochs, b + 1, batches,
                        loss_sum / static_cast<double>(b + 1), last_val, seconds_since(start),
                        false});
    }

    EpochRecord record;
    record.epoch = epoch;
    record.loss = loss_sum / static_cast<double>(batches);
    if (!data.validation_rows.empty()) {
      record.val_loss = validation_loss(model, data);
      last_val = record.val_loss;
    }
    record.seconds = seconds_since(epoch_start);
    outcome.history.push_back(record);
    callbacks.report({epoch, settings.epochs, batches, batches, record.loss, last_val,
                      seconds_since(start), true});

    if (record.val_loss) {
      if (*record.val_loss < best_val) {
        best_val = *record.val_loss;
        outcome.best_epoch = epoch;
        best_state = snapshot(model);
        epochs_without_improvement = 0;
      } else if (settings.patience > 0 && ++epochs_without_improvement >= settings.patience) {
        outcome.stopped_early = true;
        break;
      }
    } else {
      outcome.best_epoch = epoch;
    }
  }
  if (!best_state.empty()) restore(model, best_state);
  return outcome;
}

}  // namespace topkfs
