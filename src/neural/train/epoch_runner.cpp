#include "epoch_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "topkfs/core/cpu_share.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

[[noreturn]] void diverged(const StepInfo& step, const std::string& what, double lr,
                           const std::string& extra) {
  throw TrainingError(fmt::format(
      "epoch {}, batch {}: {}; training diverged. Try a lower learning rate ({} now, e.g. {}){}",
      step.epoch, step.batch, what, option_ref("lr", lr), option_ref("lr", lr / 10), extra));
}

}  // namespace

EpochRunner::EpochRunner(LoopModel& model, const TrainingSet& data, const LoopSettings& settings,
                         const FitCallbacks& callbacks, const GradientObserver& observer,
                         Clock::time_point start)
    : model_(model),
      data_(data),
      callbacks_(callbacks),
      observer_(observer),
      start_(start),
      lr_(settings.adam.lr),
      parameters_(model.parameters()),
      optimizer_(parameters_, model.weight_decay(), settings.adam),
      rng_(derive_seed(settings.seed, 1)),
      order_(data.train_rows),
      // Every rank walks the same global order, a step's window of it at a
      // time, and computes the rows of its shard in the window.
      batch_(static_cast<std::size_t>(minibatch_rows(
          settings.batch, settings.global_batch, callbacks.ranks ? callbacks.ranks->size() : 1))),
      batches_(static_cast<long>((order_.size() + batch_ - 1) / batch_)) {
  // The model learns of the optimizer before the team slices it.
  model_.optimizer_ready(optimizer_);
  // One thread takes the team's steps too, as a team of one: the same row
  // blocks, products and sums, so the same result (parallel_step.hpp).
  if (model_.batch_loss_is_pure()) {
    team_step_.emplace(model_, data_, parameters_, optimizer_, std::max(1, settings.batch_workers));
  }
  // One rank alone sums nothing: it takes the one-process steps, exactly.
  if (callbacks.ranks && callbacks.ranks->size() > 1) {
    data_parallel_.emplace(*callbacks.ranks, data.features->row_count(),
                           data.features->storage() == RowStorage::InMemory);
    make_buckets();
  } else {
    window_ = data.features->reading_window();
    // The source's read-ahead thread needs a core the team leaves free: on
    // a full machine it only takes turns with the team's threads (USPS
    // streamed on 2 cores, 2 threads: 1.3x slower with it), and the team's
    // members share the read-ahead as they gather their rows instead.
    read_ahead_ = std::max(1, settings.batch_workers) < usable_cores() ? ReadAhead::OnSpareCore
                                                                       : ReadAhead::ByReaders;
  }
}

void EpochRunner::make_buckets() {
  // The team's first layer finishes its weights' gradient by unit blocks:
  // buckets of them are summed over the ranks as soon as they are final.
  const Tensor weight = team_step_ ? model_.team_layer_weight() : Tensor();
  int early = -1;
  for (std::size_t i = 0; weight.defined() && i < parameters_.size(); ++i) {
    if (parameters_[i].is_same(weight)) early = static_cast<int>(i);
  }
  GradientBuckets& buckets = data_parallel_->make_buckets(
      parameters_, early,
      early >= 0 ? TeamFirstLayer::unit_block_rows(weight.size(0)) : std::vector<std::int64_t>(),
      kBucketBytes);
  if (buckets.count() > 1) {
    team_step_->first_layer().on_weight_rows_ready(
        [&buckets](int block, const float* rows) { buckets.rows_ready(block, rows); });
  }
}

void EpochRunner::resume(const std::string& shuffle_state, std::vector<std::int64_t> order) {
  std::vector<std::int64_t> sorted = order;
  std::vector<std::int64_t> rows = data_.train_rows;
  std::sort(sorted.begin(), sorted.end());
  std::sort(rows.begin(), rows.end());
  if (sorted != rows) throw DataError("the checkpoint's row order is not of these training rows");
  rng_.set_state(shuffle_state);
  order_ = std::move(order);
}

double EpochRunner::run(int epoch, int epochs, const std::optional<double>& last_val) {
  rng_.shuffle(order_);
  order_by_windows(order_, window_);
  if (window_.block_rows > 0) data_.features->plan_pass(order_, read_ahead_);
  double loss_sum = 0.0;
  for (long b = 0; b < batches_; ++b) {
    StepInfo info;  // the minibatch's weights are gathered with its rows
    info.epoch = epoch;
    info.epochs = epochs;
    info.batch = b + 1;
    info.batches = batches_;
    const std::size_t begin = static_cast<std::size_t>(b) * batch_;
    const std::size_t end = std::min(order_.size(), begin + batch_);
    loss_sum += step(info, begin, end);
    Progress progress{epoch,
                      epochs,
                      b + 1,
                      batches_,
                      loss_sum / static_cast<double>(b + 1),
                      last_val,
                      seconds_since(start_),
                      false};
    if (data_parallel_) progress.sum_wait_ms = data_parallel_->sum_wait_ms();
    callbacks_.report(progress);
  }
  return loss_sum / static_cast<double>(batches_);
}

double EpochRunner::loss_and_gradients(const std::vector<std::int64_t>& rows, std::size_t begin,
                                       std::size_t end, const StepInfo& info) {
  if (team_step_) return team_step_->gradients(rows, begin, end, info);
  const Tensor x = gather_batch(data_, rows, begin, end, model_.input_order());
  StepInfo weighted = info;
  weighted.weights = gather_weights(data_, rows, begin, end);
  const Tensor loss =
      model_.batch_loss(x, gather_targets(data_, rows, begin, end), weighted, /*seat=*/nullptr);
  const double value = loss.item<double>();
  if (std::isfinite(value)) loss.backward();
  return value;
}

double EpochRunner::step(const StepInfo& info, std::size_t begin, std::size_t end) {
  optimizer_.zero_grad();
  double value = 0.0;
  if (data_parallel_) {
    // This rank's rows of the global minibatch; the sum over the ranks
    // weights each rank's mean by its share of the rows.
    data_parallel_->local_rows(order_, begin, end, local_);
    const double share = static_cast<double>(local_.size()) / static_cast<double>(end - begin);
    data_parallel_->begin_step(share);
    if (!local_.empty()) {
      value = loss_and_gradients(local_, 0, local_.size(), info);
    } else if (!model_.batch_loss_is_pure()) {
      // A model that draws noise or keeps state per call takes the call
      // anyway, on no rows, so that its state stays the same on every rank.
      torch::NoGradGuard no_grad;
      const Tensor none = gather_batch(data_, local_, 0, 0, model_.input_order());
      StepInfo weighted = info;
      weighted.weights = gather_weights(data_, local_, 0, 0);
      model_.batch_loss(none, gather_targets(data_, local_, 0, 0), weighted, nullptr);
    }
    value = data_parallel_->sum_step(parameters_, value, model_.step_statistics());
  } else {
    value = loss_and_gradients(order_, begin, end, info);
  }
  if (!std::isfinite(value)) diverged(info, fmt::format("the loss became {}", value), lr_, "");
  if (observer_) observer_(parameters_);
  // Clips the gradient norm first when settings.adam.clip > 0.
  const bool changed = data_parallel_.has_value();
  const bool stepped = team_step_ ? team_step_->apply(changed) : optimizer_.step();
  if (!stepped) {
    diverged(info, "the gradient became infinite", lr_,
             fmt::format(" or scaled inputs ({})", option_ref("scaling", "standard")));
  }
  model_.after_step(info);
  return value;
}

}  // namespace topkfs
