#include "trainer.hpp"

#include <fmt/format.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/nn/functional.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>

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

// The loss of rows order[begin, end) weighted by their share of the whole
// minibatch, and its gradients (not accumulated into .grad).
struct PartialStep {
  double loss = 0.0;
  std::vector<Tensor> gradients;
};

PartialStep partial_step(LoopModel& model, const TrainingSet& data,
                         const std::vector<std::int64_t>& order, std::size_t begin, std::size_t end,
                         double share, const std::vector<Tensor>& parameters, const StepInfo& step) {
  const Tensor x = gather_batch(data, order, begin, end);
  const Tensor y = data.targets.index_select(0, rows_tensor(order, begin, end));
  const Tensor loss = model.batch_loss(x, y, step) * share;
  PartialStep out;
  out.loss = loss.item<double>();
  if (!std::isfinite(out.loss)) return out;
  out.gradients = torch::autograd::grad({loss}, parameters, {}, /*retain_graph=*/false,
                                        /*create_graph=*/false, /*allow_unused=*/true);
  return out;
}

// One minibatch on `workers` threads: the calling thread takes the first
// part, one new thread each of the others; each runs its GEMMs on one core.
// The penalties in each part's loss are weighted by the part's share, so they
// count once; the gradients are summed in part order, so a seed gives one
// result for a given number of workers.
double split_step(LoopModel& model, const TrainingSet& data, const std::vector<std::int64_t>& order,
                  std::size_t begin, std::size_t end, int workers,
                  std::vector<Tensor>& parameters, const StepInfo& step) {
  const std::size_t parts = std::min<std::size_t>(static_cast<std::size_t>(workers), end - begin);
  const double total = static_cast<double>(end - begin);
  std::vector<PartialStep> results(parts);
  std::vector<std::exception_ptr> failures(parts);
  auto run_part = [&](std::size_t p) {
    const std::size_t lo = begin + (end - begin) * p / parts;
    const std::size_t hi = begin + (end - begin) * (p + 1) / parts;
    try {
      results[p] = partial_step(model, data, order, lo, hi, (hi - lo) / total, parameters, step);
    } catch (...) {
      failures[p] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t p = 1; p < parts; ++p) {
    threads.emplace_back([&, p] {
      // OpenMP's thread count is per thread: a new thread starts at every core.
      at::set_num_threads(1);
      run_part(p);
    });
  }
  run_part(0);
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  double loss = 0.0;
  bool finite = true;
  for (const auto& result : results) {
    loss += result.loss;
    finite = finite && !result.gradients.empty();
  }
  if (!finite) return loss;  // not finite: the caller stops training
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    Tensor sum;
    for (const auto& result : results) {
      const Tensor& g = result.gradients[i];
      if (g.defined()) sum = sum.defined() ? sum + g : g;
    }
    if (sum.defined()) parameters[i].mutable_grad() = sum;
  }
  return loss;
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
  const bool parallel = settings.batch_workers >= 2 && model.batch_loss_is_pure();

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
      if (parallel && end - begin >= 2) {
        value = split_step(model, data, order, begin, end, settings.batch_workers, parameters, step);
        if (!std::isfinite(value)) diverged(step, fmt::format("the loss became {}", value), lr, "");
      } else {
        const Tensor x = gather_batch(data, order, begin, end);
        const Tensor y = data.targets.index_select(0, rows_tensor(order, begin, end));
        const Tensor loss = model.batch_loss(x, y, step);
        value = loss.item<double>();
        if (!std::isfinite(value)) diverged(step, fmt::format("the loss became {}", value), lr, "");
        loss.backward();
      }
      if (hook) hook(parameters);
      // step() clips the gradient norm first when settings.adam.clip > 0.
      if (!optimizer.step()) {
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
      record.val_loss = validation_loss(model, data);
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
      } else if (patience > 0 && ++epochs_without_improvement >= patience) {
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
