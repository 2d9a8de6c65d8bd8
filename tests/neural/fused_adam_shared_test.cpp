// FusedAdam's shared second moment (dnn-top's --w-step shared): one second
// moment for all elements of a parameter, so that the elements step in
// proportion to their gradients.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "neural/ops/fused_adam.hpp"

namespace topkfs {
namespace {

torch::Tensor with_gradient(const std::vector<float>& values, const std::vector<float>& gradient) {
  torch::Tensor p = torch::tensor(values);
  p.mutable_grad() = torch::tensor(gradient);
  return p;
}

// Step 1 of Adam with bias correction: m^ = g and v^ = the mean of g^2, so
// every step is -lr g_i / (rms(g) + eps).
TEST(FusedAdamShared, FirstStepIsProportionalToTheGradient) {
  const std::vector<float> gradient = {0.5f, -0.1f, 0.02f, 0.0f};
  torch::Tensor p = with_gradient({1, 1, 1, 1}, gradient);
  AdamSettings settings;
  settings.lr = 1e-2;
  FusedAdam adam({p}, {0.0}, settings);
  adam.share_second_moment(p);
  ASSERT_TRUE(adam.step());
  double mean_square = 0.0;
  for (float g : gradient) mean_square += g * g / 4.0;
  for (std::size_t i = 0; i < gradient.size(); ++i) {
    const double expected =
        1.0 - settings.lr * gradient[i] / (std::sqrt(mean_square) + settings.eps);
    EXPECT_NEAR(p[static_cast<std::int64_t>(i)].item<float>(), expected, 1e-6) << i;
  }
}

// The per-element rule moves each element by about lr whatever its gradient;
// the shared one keeps the ratio of the gradients, and its second moments
// stay equal across elements step after step.
TEST(FusedAdamShared, KeepsTheRatioOfStepsAndOneSecondMoment) {
  AdamSettings settings;
  torch::Tensor own = with_gradient({0, 0}, {1.0f, 0.01f});
  torch::Tensor shared = with_gradient({0, 0}, {1.0f, 0.01f});
  FusedAdam per_element({own}, {0.0}, settings);
  FusedAdam one_moment({shared}, {0.0}, settings);
  one_moment.share_second_moment(shared);
  for (int step = 0; step < 5; ++step) {
    ASSERT_TRUE(per_element.step());
    ASSERT_TRUE(one_moment.step());
  }
  EXPECT_NEAR(own[0].item<float>() / own[1].item<float>(), 1.0, 1e-3);
  EXPECT_NEAR(shared[0].item<float>() / shared[1].item<float>(), 100.0, 1e-3);
  const torch::Tensor v = one_moment.moments_of(shared)[1];
  EXPECT_EQ(v[0].item<float>(), v[1].item<float>());
}

// dnn-top's --w-lr: one parameter steps with its own learning rate, the
// others with the settings'; its steps are those of an optimizer that has
// that rate for everything.
TEST(FusedAdamOwnRate, OneParameterStepsWithItsOwnLearningRate) {
  AdamSettings settings;
  settings.lr = 1e-3;
  AdamSettings slow = settings;
  slow.lr = 3e-4;
  torch::Tensor w = with_gradient({1, 1, 1}, {0.3f, -0.2f, 0.01f});
  torch::Tensor body = with_gradient({1, 1}, {0.5f, -0.5f});
  torch::Tensor w_alone = with_gradient({1, 1, 1}, {0.3f, -0.2f, 0.01f});
  torch::Tensor body_alone = with_gradient({1, 1}, {0.5f, -0.5f});
  FusedAdam both({w, body}, {0.0, 0.0}, settings);
  both.set_learning_rate(w, slow.lr);
  FusedAdam w_reference({w_alone}, {0.0}, slow);
  FusedAdam body_reference({body_alone}, {0.0}, settings);
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE(both.step());
    ASSERT_TRUE(w_reference.step());
    ASSERT_TRUE(body_reference.step());
  }
  EXPECT_TRUE(torch::allclose(w, w_alone, 0.0, 1e-7));
  EXPECT_TRUE(torch::allclose(body, body_alone, 0.0, 1e-7));
  EXPECT_NEAR(1.0 - w[0].item<float>(), 3 * slow.lr, 1e-5);
}

}  // namespace
}  // namespace topkfs
