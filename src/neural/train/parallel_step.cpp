#include "parallel_step.hpp"

#include <torch/autograd.h>

#include <algorithm>
#include <cmath>

#include "neural/ops/kernels.hpp"

namespace topkfs {

ParallelStep::ParallelStep(LoopModel& model, const TrainingSet& data,
                           std::vector<torch::Tensor> parameters, FusedAdam& optimizer, int workers)
    : model_(model),
      data_(data),
      parameters_(std::move(parameters)),
      optimizer_(optimizer),
      team_(workers),
      first_layer_(workers),
      parts_(static_cast<std::size_t>(workers)),
      squared_norms_(static_cast<std::size_t>(workers), 0.0) {
  for (int member = 0; member < workers; ++member)
    shares_.push_back(optimizer_.slice(member, workers));
  for (const auto& parameter : parameters_) summed_.push_back(torch::empty_like(parameter));
}

void ParallelStep::compute_part(int member, const std::vector<std::int64_t>& order,
                                std::size_t begin, std::size_t end, const StepInfo& step) {
  Part& part = parts_[static_cast<std::size_t>(member)];
  part = Part();
  const int members = static_cast<int>(parts_.size());
  const auto rows = static_cast<std::int64_t>(end - begin);
  const std::size_t lo = begin + static_cast<std::size_t>(row_share_begin(member, members, rows));
  const std::size_t hi =
      begin + static_cast<std::size_t>(row_share_begin(member + 1, members, rows));
  if (!lockstep_) {
    if (lo == hi) return;  // fewer rows than members
    const torch::Tensor x = gather_batch(data_, order, lo, hi, model_.input_order());
    part_loss_and_gradients(part, x, order, lo, hi, begin, end, step, /*seat=*/nullptr);
    return;
  }
  try {
    torch::Tensor x = first_layer_.member_rows(member);
    gather_batch_into(data_, order, lo, hi, x, model_.input_order());
    const FirstLayerSeat seat{&first_layer_, member};
    part_loss_and_gradients(part, x, order, lo, hi, begin, end, step, &seat);
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
                                           const StepInfo& step, const FirstLayerSeat* seat) {
  const torch::Tensor y = gather_targets(data_, order, lo, hi);
  // Weighted by the part's share of the rows, so that the parts' losses (and
  // the penalties inside each) add up to the whole minibatch's.
  const double share = static_cast<double>(hi - lo) / static_cast<double>(end - begin);
  StepInfo part_step = step;
  part_step.weights = gather_weights(data_, order, lo, hi);
  const torch::Tensor loss = model_.batch_loss(x, y, part_step, seat) * share;
  part.loss = loss.item<double>();
  // In lockstep (with a seat) the backward pass meets the other members
  // inside the first layer, so every member takes it; a loss that is not
  // finite ends the training after this step anyway, whatever its gradients.
  if (!seat && !std::isfinite(part.loss)) return;
  part.gradients = torch::autograd::grad({loss}, parameters_, {}, /*retain_graph=*/false,
                                         /*create_graph=*/false, /*allow_unused=*/true);
  for (auto& gradient : part.gradients) {
    if (gradient.defined()) gradient = gradient.contiguous();
  }
}

void ParallelStep::sum_parts(int member) {
  double sum_sq = 0.0;
  std::vector<const float*> sources;
  for (const auto& run : shares_[static_cast<std::size_t>(member)]) {
    const torch::Tensor& grad = parameters_[run.tensor].grad();
    if (!grad.defined()) continue;
    const std::int64_t n = run.end - run.begin;
    sources.clear();
    for (const auto& part : parts_) {
      if (part.gradients.empty() || !part.gradients[run.tensor].defined()) continue;
      sources.push_back(part.gradients[run.tensor].data_ptr<float>() + run.begin);
    }
    if (sources.size() == 1) {  // .grad is that part's gradient itself
      sum_sq += kernels::squared_sum(sources[0], n);
      continue;
    }
    float* out = grad.data_ptr<float>() + run.begin;
    if (sources.size() == 2) {  // two workers: the sum and its norm in one pass
      sum_sq += kernels::add_and_square(sources[0], sources[1], out, n);
      continue;
    }
    std::copy(sources[0], sources[0] + n, out);
    for (std::size_t p = 1; p < sources.size(); ++p) kernels::accumulate(out, sources[p], n);
    sum_sq += kernels::squared_sum(out, n);
  }
  squared_norms_[static_cast<std::size_t>(member)] = sum_sq;
}

double ParallelStep::gradients(const std::vector<std::int64_t>& order, std::size_t begin,
                               std::size_t end, const StepInfo& step) {
  lockstep_ = end - begin >= parts_.size();
  if (lockstep_) {
    first_layer_.begin_step(static_cast<std::int64_t>(end - begin), data_.features->column_count());
  }
  team_.run([&](int member) { compute_part(member, order, begin, end, step); });
  double loss = 0.0;
  bool finite = true;
  for (const auto& part : parts_) {
    loss += part.loss;
    finite = finite && std::isfinite(part.loss);
  }
  if (!finite) return loss;
  // A parameter gets a .grad when some part's loss reaches it: the one
  // part's gradient itself, or the buffer that sum_parts() adds them into.
  for (std::size_t t = 0; t < parameters_.size(); ++t) {
    std::vector<const torch::Tensor*> reached;
    for (const auto& part : parts_) {
      if (!part.gradients.empty() && part.gradients[t].defined()) {
        reached.push_back(&part.gradients[t]);
      }
    }
    if (reached.empty()) {
      parameters_[t].mutable_grad().reset();
    } else {
      parameters_[t].mutable_grad() = reached.size() == 1 ? *reached.front() : summed_[t];
    }
  }
  team_.run([&](int member) { sum_parts(member); });
  return loss;
}

bool ParallelStep::apply(bool gradients_changed) {
  if (gradients_changed) {
    team_.run([&](int member) {
      squared_norms_[static_cast<std::size_t>(member)] =
          optimizer_.squared_gradient_norm(shares_[static_cast<std::size_t>(member)]);
    });
  }
  double squared_norm = 0.0;
  for (const double part : squared_norms_) squared_norm += part;
  if (!optimizer_.begin_step(squared_norm)) return false;
  team_.run([&](int member) { optimizer_.update(shares_[static_cast<std::size_t>(member)]); });
  return true;
}

}  // namespace topkfs
