#include "trainer.hpp"

#include <fmt/format.h>
#include <torch/autograd.h>
#include <torch/nn/functional.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "parallel_step.hpp"
#include "worker_team.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

Tensor rows_tensor(const std::vector<std::int64_t>& rows, std::size_t begin, std::size_t end) {
  return torch::from_blob(const_cast<std::int64_t*>(rows.data() + begin),
                          {static_cast<std::int64_t>(end - begin)}, torch::kLong);
}

// The mean validation loss, in chunks of rows; a team's members take every
// size()-th chunk and their sums are added in member order.
double validation_loss(LoopModel& model, const TrainingSet& data, WorkerTeam* team) {
  const auto& rows = data.validation_rows;
  constexpr std::size_t kChunk = 2048;
  const int members = team ? team->size() : 1;
  std::vector<double> sums(static_cast<std::size_t>(members), 0.0);
  auto run_member = [&](int member) {
    torch::NoGradGuard no_grad;  // per thread
    for (std::size_t begin = kChunk * static_cast<std::size_t>(member); begin < rows.size();
         begin += kChunk * static_cast<std::size_t>(members)) {
      const std::size_t end = std::min(rows.size(), begin + kChunk);
      const Tensor x = gather_batch(data, rows, begin, end, model.input_order());
      const Tensor y = gather_targets(data, rows, begin, end);
      sums[static_cast<std::size_t>(member)] +=
          model.validation_loss(x, y).item<double>() * static_cast<double>(end - begin);
    }
  };
  if (team) {
    team->run(run_member);
  } else {
    run_member(0);
  }
  double sum = 0.0;
  for (const double part : sums) sum += part;
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

Tensor gather_targets(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                      std::size_t begin, std::size_t end) {
  return data.targets.index_select(0, rows_tensor(rows, begin, end));
}

void gather_batch_into(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                       std::size_t begin, std::size_t end, Tensor& out, const InputOrder* order) {
  const std::int64_t m = data.features->cols();
  TOPKFS_ASSERT(out.is_contiguous() && out.size(0) == static_cast<std::int64_t>(end - begin) &&
                out.size(1) == m);
  const auto swaps = order ? order->swaps() : std::vector<InputOrder::Swap>();
  const bool scaled = data.offset.defined();
  const float* offset = scaled ? data.offset.data_ptr<float>() : nullptr;
  const float* inv_scale = scaled ? data.inv_scale.data_ptr<float>() : nullptr;
  float* to = out.data_ptr<float>();
  // One pass per row: copy and scale, then the few places of the model's
  // input order rewritten from the source row, which is still in L1.
  const auto value = [&](const float* from, std::int64_t input) {
    return scaled ? (from[input] - offset[input]) * inv_scale[input] : from[input];
  };
  for (std::size_t i = begin; i < end; ++i, to += m) {
    const float* from = data.features->row(rows[i]).data();
    if (scaled) {
      for (std::int64_t j = 0; j < m; ++j) to[j] = (from[j] - offset[j]) * inv_scale[j];
    } else {
      std::memcpy(to, from, sizeof(float) * static_cast<std::size_t>(m));
    }
    for (const auto& swap : swaps) {
      to[swap.place] = value(from, swap.input);
      to[swap.input] = value(from, swap.place);
    }
  }
}

Tensor gather_batch(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                    std::size_t begin, std::size_t end, const InputOrder* order) {
  Tensor batch = torch::empty({static_cast<std::int64_t>(end - begin), data.features->cols()});
  gather_batch_into(data, rows, begin, end, batch, order);
  return batch;
}

TrainingOutcome train_loop(LoopModel& model, const TrainingSet& data, const LoopSettings& settings,
                           const FitCallbacks& callbacks, const GradientHook& hook) {
  const auto start = Clock::now();
  auto parameters = model.parameters();
  FusedAdam optimizer(parameters, model.weight_decay(), settings.adam);
  model.optimizer_ready(optimizer);

  Rng rng(derive_seed(settings.seed, 1));
  std::vector<std::int64_t> order = data.train_rows;
  const std::size_t batch = static_cast<std::size_t>(settings.batch);
  const long batches = static_cast<long>((order.size() + batch - 1) / batch);
  const double lr = settings.adam.lr;
  std::optional<ParallelStep> team_step;
  if (settings.batch_workers >= 2 && model.batch_loss_is_pure()) {
    team_step.emplace(model, data, parameters, optimizer, settings.batch_workers);
  }

  // Small data: enough epochs for min_steps steps, and the patience scaled by
  // the same factor so that early stopping waits as many steps as planned.
  int epochs = settings.epochs;
  int patience = settings.patience;
  if (static_cast<long>(epochs) * batches < settings.min_steps) {
    epochs = static_cast<int>((settings.min_steps + batches - 1) / batches);
    patience = static_cast<int>(
        std::ceil(static_cast<double>(patience) * epochs / std::max(1, settings.epochs)));
  }

  TrainingOutcome outcome;
  outcome.epochs_planned = epochs;
  double best_val = std::numeric_limits<double>::infinity();
  std::vector<Tensor> best_state;
  int epochs_without_improvement = 0;
  std::optional<double> last_val;

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    rng.shuffle(order);
    double loss_sum = 0.0;
    for (long b = 0; b < batches; ++b) {
      const StepInfo step{epoch, epochs, b + 1, batches};
      const std::size_t begin = static_cast<std::size_t>(b) * batch;
      const std::size_t end = std::min(order.size(), begin + batch);
      optimizer.zero_grad();
      double value = 0.0;
      if (team_step) {
        value = team_step->gradients(order, begin, end, step);
      } else {
        const Tensor x = gather_batch(data, order, begin, end, model.input_order());
        const Tensor loss =
            model.batch_loss(x, gather_targets(data, order, begin, end), step, /*seat=*/nullptr);
        value = loss.item<double>();
        if (std::isfinite(value)) loss.backward();
      }
      if (!std::isfinite(value)) diverged(step, fmt::format("the loss became {}", value), lr, "");
      if (hook) hook(parameters);
      // Clips the gradient norm first when settings.adam.clip > 0.
      const bool stepped = team_step ? team_step->apply(static_cast<bool>(hook)) : optimizer.step();
      if (!stepped) {
        diverged(step, "the gradient became infinite", lr, " or scaled inputs (--scaling standard)");
      }
      model.after_step(step);
      loss_sum += value;
      callbacks.report({epoch, epochs, b + 1, batches,
                        loss_sum / static_cast<double>(b + 1), last_val, seconds_since(start),
                        false});
    }

    EpochRecord record;
    record.epoch = epoch;
    record.loss = loss_sum / static_cast<double>(batches);
    if (!data.validation_rows.empty()) {
      record.val_loss = validation_loss(model, data, team_step ? &team_step->team() : nullptr);
      last_val = record.val_loss;
    }
    record.seconds = seconds_since(epoch_start);
    outcome.history.push_back(record);
    callbacks.report({epoch, epochs, batches, batches, record.loss, last_val,
                      seconds_since(start), true});

    if (record.val_loss) {
      if (*record.val_loss < best_val) {
        best_val = *record.val_loss;
        outcome.best_epoch = epoch;
        best_state = snapshot(model);
        epochs_without_improvement = 0;
      } else if (patience > 0 && static_cast<double>(epoch) / epochs >= model.schedule_end() &&
                 ++epochs_without_improvement >= patience) {
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
