#include "parallel_step.hpp"

#include <torch/autograd.h>

#include <algorithm>
#include <cmath>

#include "neural/ops/kernels.hpp"
#include "neural/ops/step_blocks.hpp"

namespace topkfs {

ParallelStep::ParallelStep(LoopModel& model, const TrainingSet& data,
                           std::vector<torch::Tensor> parameters, FusedAdam& optimizer, int workers)
    : model_(model),
      data_(data),
      parameters_(std::move(parameters)),
      optimizer_(optimizer),
      team_(workers),
      first_layer_(workers),
      sources_(parameters_.size()),
      chunk_norms_(optimizer_.chunk_count(), 0.0) {
  for (int member = 0; member < workers; ++member)
    shares_.push_back(optimizer_.slice(member, workers));
  for (const auto& parameter : parameters_) summed_.push_back(torch::empty_like(parameter));
}

void ParallelStep::compute_part(int member, const std::vector<std::int64_t>& order,
                                std::size_t begin, std::size_t end, const StepInfo& step) {
  const int first = first_layer_.first_block(member);
  const int last = first_layer_.first_block(member + 1);
  if (first == last) return;  // more members than blocks
  try {
    // All of the member's rows first: the first layer's products read every
    // member's rows at the member's first forward call.
    torch::Tensor rows = first_layer_.block_rows(first, last);
    const auto row = [&](int block) {
      return begin + static_cast<std::size_t>(first_layer_.block_row(block));
    };
    gather_batch_into(data_, order, row(first), row(last), rows, model_.input_order());
    for (int block = first; block < last; ++block) {
      const FirstLayerSeat seat{&first_layer_, member, block};
      part_loss_and_gradients(parts_[static_cast<std::size_t>(block)],
                              first_layer_.block_rows(block, block + 1), order, row(block),
                              row(block + 1), begin, end, step, seat);
    }
  } catch (...) {
    // A member that waited for a failed one stops quietly: the failure that
    // WorkerTeam::run reports is the cause, not the abandoned wait.
    if (!first_layer_.barrier().abort()) return;
    throw;
  }
}

void ParallelStep::part_loss_and_gradients(Part& part, const torch::Tensor& x,
                                           const std::vector<std::int64_t>& order, std::size_t lo,
                                           std::size_t hi, std::size_t begin, std::size_t end,
                                           const StepInfo& step, const FirstLayerSeat& seat) {
  part = Part();
  const torch::Tensor y = gather_targets(data_, order, lo, hi);
  // Weighted by the block's share of the rows, so that the blocks' losses
  // (and the penalties inside each) add up to the whole minibatch's.
  const double share = static_cast<double>(hi - lo) / static_cast<double>(end - begin);
  StepInfo part_step = step;
  part_step.weights = gather_weights(data_, order, lo, hi);
  const torch::Tensor loss = model_.batch_loss(x, y, part_step, &seat) * share;
  part.loss = loss.item<double>();
  // The backward pass may meet the other members inside the first layer, so
  // it is taken whatever the loss; one that is not finite ends the training
  // after this step anyway.
  part.gradients = torch::autograd::grad({loss}, parameters_, {}, /*retain_graph=*/false,
                                         /*create_graph=*/false, /*allow_unused=*/true);
  for (auto& gradient : part.gradients) {
    if (gradient.defined()) gradient = gradient.contiguous();
  }
}

void ParallelStep::collect_sources(int blocks) {
  const bool layer = first_layer_.used();
  const std::vector<torch::Tensor> gate_parts =
      layer ? first_layer_.gate_parts() : std::vector<torch::Tensor>();
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    std::vector<const float*>& sources = sources_[t];
    sources.clear();
    const torch::Tensor* only = nullptr;
    const auto add = [&](const torch::Tensor& gradient) {
      sources.push_back(gradient.data_ptr<float>());
      only = &gradient;
    };
    for (int block = 0; block < blocks; ++block) {
      const Part& part = parts_[static_cast<std::size_t>(block)];
      if (!part.gradients.empty() && part.gradients[t].defined()) add(part.gradients[t]);
    }
    const void* data = parameters_[t].data_ptr();
    if (layer && data == first_layer_.weight_data()) add(first_layer_.weight_gradient());
    if (layer && data == first_layer_.gate_data()) {
      for (const auto& gate_part : gate_parts) add(gate_part);
    }
    // A parameter gets a .grad when something reaches it: the one source
    // itself, or the buffer that sum_parts() adds them into.
    if (sources.empty()) {
      parameters_[t].mutable_grad().reset();
    } else {
      parameters_[t].mutable_grad() = sources.size() == 1 ? *only : summed_[t];
    }
  }
}

void ParallelStep::sum_parts(int member) {
  for (const auto& run : shares_[static_cast<std::size_t>(member)]) {
    const std::vector<const float*>& sources = sources_[run.tensor];
    double& sum_sq = chunk_norms_[run.chunk];
    sum_sq = 0.0;
    if (sources.empty()) continue;
    const std::int64_t n = run.end - run.begin;
    if (sources.size() == 1) {  // .grad is that source itself
      sum_sq = kernels::squared_sum(sources[0] + run.begin, n);
      continue;
    }
    float* out = parameters_[run.tensor].grad().data_ptr<float>() + run.begin;
    if (sources.size() == 2) {  // the sum and its norm in one pass
      sum_sq = kernels::add_and_square(sources[0] + run.begin, sources[1] + run.begin, out, n);
      continue;
    }
    std::copy(sources[0] + run.begin, sources[0] + run.begin + n, out);
    for (std::size_t p = 1; p < sources.size(); ++p) {
      kernels::accumulate(out, sources[p] + run.begin, n);
    }
    sum_sq = kernels::squared_sum(out, n);
  }
}

double ParallelStep::gradients(const std::vector<std::int64_t>& order, std::size_t begin,
                               std::size_t end, const StepInfo& step) {
  first_layer_.begin_step(static_cast<std::int64_t>(end - begin), data_.features->column_count());
  if (parts_.size() < static_cast<std::size_t>(first_layer_.blocks())) {
    parts_.resize(static_cast<std::size_t>(first_layer_.blocks()));
  }
  team_.run([&](int member) { compute_part(member, order, begin, end, step); });
  const int blocks = first_layer_.blocks();
  double loss = 0.0;
  bool finite = true;
  for (int block = 0; block < blocks; ++block) {
    const double part = parts_[static_cast<std::size_t>(block)].loss;
    loss += part;
    finite = finite && std::isfinite(part);
  }
  if (!finite) return loss;
  collect_sources(blocks);
  team_.run([&](int member) { sum_parts(member); });
  return loss;
}

bool ParallelStep::apply(bool gradients_changed) {
  if (gradients_changed) {
    team_.run([&](int member) {
      optimizer_.chunk_norms(shares_[static_cast<std::size_t>(member)], chunk_norms_);
    });
  }
  if (!optimizer_.begin_step(FusedAdam::squared_norm(chunk_norms_))) return false;
  team_.run([&](int member) { optimizer_.update(shares_[static_cast<std::size_t>(member)]); });
  return true;
}

}  // namespace topkfs
