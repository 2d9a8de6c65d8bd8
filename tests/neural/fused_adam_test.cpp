// FusedAdam (src/neural/ops/fused_adam.hpp) is libtorch's Adam with L2 weight
// decay and clip_grad_norm_, in one pass: the same gradients must give the
// same parameters as torch::optim::Adam step for step, whole or taken in
// parts by a team (slice, squared_gradient_norm, begin_step, update).
#include <gtest/gtest.h>
#include <torch/types.h>
// clip_grad.h uses Tensor without including its declaration: after types.h.
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>

#include <limits>
#include <memory>
#include <vector>

#include "neural/ops/fused_adam.hpp"

namespace topkfs {
namespace {

constexpr int kSteps = 25;
constexpr double kDecay = 0.01;

// Parameters shaped like a small network's: w (no decay), a weight matrix
// and a bias (decayed). Seeded, so both optimizers start alike.
std::vector<torch::Tensor> make_parameters() {
  torch::manual_seed(3);
  return {torch::rand({6}) + 0.5, torch::randn({4, 6}), torch::randn({4})};
}

std::vector<torch::Tensor> copies(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> out;
  for (const auto& p : parameters) out.push_back(p.clone().set_requires_grad(false));
  return out;
}

// The gradients of step `step`: seeded and of a size that varies by step, so
// that clipping acts on some steps and not on others.
std::vector<torch::Tensor> gradients_of_step(const std::vector<torch::Tensor>& parameters,
                                             int step) {
  torch::manual_seed(100 + step);
  const double scale = step % 3 == 0 ? 3.0 : 0.1;
  std::vector<torch::Tensor> out;
  for (const auto& p : parameters) out.push_back(torch::randn(p.sizes()) * scale);
  return out;
}

// Gives each parameter its own copy of its gradient, as a backward pass would.
void set_gradients(std::vector<torch::Tensor>& parameters,
                   const std::vector<torch::Tensor>& gradients) {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    parameters[i].mutable_grad() = gradients[i].clone();
  }
}

// torch::optim::Adam with the same settings: w in a group without decay.
struct TorchReference {
  std::vector<torch::Tensor> parameters;
  std::unique_ptr<torch::optim::Adam> optimizer;
  double clip;

  TorchReference(std::vector<torch::Tensor> start, const AdamSettings& settings)
      : parameters(std::move(start)), clip(settings.clip) {
    auto options = [&](double decay) {
      return std::make_unique<torch::optim::AdamOptions>(
          torch::optim::AdamOptions(settings.lr)
              .betas({settings.beta1, settings.beta2})
              .eps(settings.eps)
              .weight_decay(decay));
    };
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<torch::Tensor>{parameters[0]}, options(0.0));
    groups.emplace_back(std::vector<torch::Tensor>{parameters[1], parameters[2]}, options(kDecay));
    optimizer =
        std::make_unique<torch::optim::Adam>(groups, torch::optim::AdamOptions(settings.lr));
  }

  void step(const std::vector<torch::Tensor>& gradients) {
    set_gradients(parameters, gradients);
    if (clip > 0) torch::nn::utils::clip_grad_norm_(parameters, clip);
    optimizer->step();
  }
};

void expect_same(const std::vector<torch::Tensor>& fused,
                 const std::vector<torch::Tensor>& reference, int step) {
  for (std::size_t i = 0; i < fused.size(); ++i) {
    EXPECT_TRUE(torch::allclose(fused[i], reference[i], 1e-5, 1e-6))
        << "step " << step << ", parameter " << i << ": largest difference "
        << (fused[i] - reference[i]).abs().max().item<double>();
  }
}

// The parameter is the clip bound (0 = off).
class FusedAdamTest : public ::testing::TestWithParam<double> {
 protected:
  AdamSettings settings() const {
    AdamSettings out;
    out.lr = 0.01;
    out.clip = GetParam();
    return out;
  }
};

TEST_P(FusedAdamTest, MatchesTorchAdamStepForStep) {
  const auto start = make_parameters();
  std::vector<torch::Tensor> fused_parameters = copies(start);
  FusedAdam fused(fused_parameters, {0.0, kDecay, kDecay}, settings());
  TorchReference reference(copies(start), settings());
  for (int step = 1; step <= kSteps; ++step) {
    const auto gradients = gradients_of_step(start, step);
    set_gradients(fused_parameters, gradients);
    ASSERT_TRUE(fused.step());
    reference.step(gradients);
    expect_same(fused_parameters, reference.parameters, step);
    fused.zero_grad();
  }
}

// Bit for bit, for two and three parts: the clip factor comes from the
// chunks' squared sums added in chunk order, which no cut into parts changes.
TEST_P(FusedAdamTest, AStepTakenInPartsEqualsTheWholeStep) {
  const auto start = make_parameters();
  std::vector<torch::Tensor> whole_parameters = copies(start);
  std::vector<torch::Tensor> parts_parameters = copies(start);
  FusedAdam whole(whole_parameters, {0.0, kDecay, kDecay}, settings());
  FusedAdam parts(parts_parameters, {0.0, kDecay, kDecay}, settings());
  for (int step = 1; step <= kSteps; ++step) {
    const int count = 2 + step % 2;  // two parts, then three
    const auto gradients = gradients_of_step(start, step);
    set_gradients(whole_parameters, gradients);
    set_gradients(parts_parameters, gradients);
    ASSERT_TRUE(whole.step());
    std::vector<double> by_chunk(parts.chunk_count(), -1.0);
    for (int part = 0; part < count; ++part) parts.chunk_norms(parts.slice(part, count), by_chunk);
    ASSERT_TRUE(parts.begin_step(FusedAdam::squared_norm(by_chunk)));
    for (int part = 0; part < count; ++part) parts.update(parts.slice(part, count));
    for (std::size_t i = 0; i < whole_parameters.size(); ++i) {
      EXPECT_TRUE(torch::equal(parts_parameters[i], whole_parameters[i]))
          << "step " << step << ", parameter " << i;
    }
  }
}

TEST(FusedAdam, NonFiniteGradientNormChangesNothing) {
  AdamSettings settings;
  settings.clip = 1.0;
  const auto start = make_parameters();
  std::vector<torch::Tensor> parameters = copies(start);
  FusedAdam fused(parameters, {0.0, kDecay, kDecay}, settings);
  auto gradients = gradients_of_step(start, 1);
  gradients[1][0][0] = std::numeric_limits<float>::infinity();
  set_gradients(parameters, gradients);
  EXPECT_FALSE(fused.step());
  for (std::size_t i = 0; i < parameters.size(); ++i)
    EXPECT_TRUE(torch::equal(parameters[i], start[i]));
}

INSTANTIATE_TEST_SUITE_P(Clip, FusedAdamTest, ::testing::Values(0.0, 1.0),
                         [](const auto& info) { return info.param > 0 ? "Clipped" : "Unclipped"; });

}  // namespace
}  // namespace topkfs
