// The hand-written data loss (stacked_loss.hpp) against libtorch's own
// losses (data_loss_per_row) weighted as the trainer weighted them before:
// values and gradients for the three tasks, one and two stacks of rows, and
// logits large enough to overflow a naive exp.
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>

#include <cmath>
#include <ostream>
#include <string>

#include "neural/ops/stacked_loss.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

Tensor random_floats(std::int64_t rows, std::int64_t cols, double spread, Rng& rng) {
  Tensor out = torch::empty({rows, cols});
  float* data = out.data_ptr<float>();
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    data[i] = static_cast<float>(spread * rng.normal());
  }
  return out;
}

// The targets of `task` for `batch` rows of `width` outputs.
Tensor random_targets(NeuralTask task, std::int64_t batch, std::int64_t width, Rng& rng) {
  if (task == NeuralTask::MultiClass) {
    Tensor labels = torch::empty({batch}, torch::kLong);
    for (std::int64_t i = 0; i < batch; ++i) {
      labels[i] = static_cast<std::int64_t>(rng.uniform_index(static_cast<std::uint64_t>(width)));
    }
    return labels;
  }
  if (task == NeuralTask::Binary)
    return (random_floats(batch, width, 1.0, rng) > 0).to(torch::kFloat);
  return random_floats(batch, width, 1.0, rng);
}

struct Case {
  NeuralTask task;
  std::int64_t width;
  bool stacked;   // 2B rows (lead, then sub-model) or B
  double spread;  // of the outputs: 60 puts exp() far out of float range
};

std::string name_of(const Case& c) {
  const std::string task = c.task == NeuralTask::MultiClass ? "Classes"
                           : c.task == NeuralTask::Binary   ? "Binary"
                                                            : "Regression";
  return task + std::to_string(c.width) + (c.stacked ? "Stacked" : "Lead") +
         (c.spread > 10 ? "Extreme" : "");
}

void PrintTo(const Case& c, std::ostream* out) { *out << name_of(c); }

class StackedLossTest : public testing::TestWithParam<Case> {};

TEST_P(StackedLossTest, ValueAndGradientMatchLibtorch) {
  const Case c = GetParam();
  Rng rng(17);
  const std::int64_t batch = 33;
  const std::int64_t rows = c.stacked ? 2 * batch : batch;
  const double second_weight = 0.7;
  const Tensor targets = random_targets(c.task, batch, c.width, rng);
  const Tensor values = random_floats(rows, c.width, c.spread, rng);

  const Tensor ours_in = values.clone().requires_grad_(true);
  const Tensor ours = stacked_data_loss(ours_in, targets, c.task, second_weight);
  const Tensor upstream = torch::tensor(1.3f);
  ours.backward(upstream);

  // In double, so that the reference is the more exact of the two.
  const Tensor theirs_in = values.to(torch::kDouble).requires_grad_(true);
  const Tensor all_targets = c.stacked ? torch::cat({targets, targets}) : targets;
  // libtorch's per-row losses (data_loss_per_row), as the trainer used them.
  const Tensor per_row = data_loss_per_row(
      theirs_in, c.task == NeuralTask::MultiClass ? all_targets : all_targets.to(torch::kDouble),
      c.task);
  Tensor weights = torch::full({rows}, 1.0 / static_cast<double>(batch), torch::kDouble);
  if (c.stacked) weights.narrow(0, batch, batch).mul_(second_weight);
  const Tensor theirs = (per_row * weights).sum();
  theirs.backward(upstream.to(torch::kDouble));

  const double expected = theirs.item<double>();
  EXPECT_NEAR(ours.item<double>(), expected, 1e-5 * std::max(1.0, std::abs(expected)));
  EXPECT_EQ(ours.scalar_type(), torch::kFloat);
  const Tensor gradient_error = (ours_in.grad().to(torch::kDouble) - theirs_in.grad()).abs().max();
  const double scale = theirs_in.grad().abs().max().item<double>();
  EXPECT_LE(gradient_error.item<double>(), 1e-5 * std::max(scale, 1e-3))
      << "largest gradient " << scale;
}

INSTANTIATE_TEST_SUITE_P(Tasks, StackedLossTest,
                         testing::Values(Case{NeuralTask::MultiClass, 10, true, 3.0},
                                         Case{NeuralTask::MultiClass, 10, false, 3.0},
                                         Case{NeuralTask::MultiClass, 4, true, 60.0},
                                         Case{NeuralTask::Binary, 1, true, 3.0},
                                         Case{NeuralTask::Binary, 3, false, 60.0},
                                         Case{NeuralTask::Regression, 1, true, 3.0},
                                         Case{NeuralTask::Regression, 5, false, 3.0}),
                         [](const testing::TestParamInfo<Case>& info) {
                           return name_of(info.param);
                         });

// A diverging network's outputs give an infinite or NaN loss, which the
// trainer reports as divergence, rather than a finite number.
TEST(StackedLossTest, NonFiniteOutputsGiveANonFiniteLoss) {
  const Tensor labels = torch::tensor({0, 1}, torch::kLong);
  const Tensor huge = torch::tensor({{3e38f, -3e38f}, {0.0f, 1.0f}});
  EXPECT_FALSE(std::isfinite(
      stacked_data_loss(huge, torch::zeros({2, 2}), NeuralTask::Regression, 1.0).item<float>()));
  const Tensor nan = torch::tensor({{NAN, 0.0f}, {0.0f, 1.0f}});
  EXPECT_TRUE(
      std::isnan(stacked_data_loss(nan, labels, NeuralTask::MultiClass, 1.0).item<float>()));
}

}  // namespace
}  // namespace topkfs
