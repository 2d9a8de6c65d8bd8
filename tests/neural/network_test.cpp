// The network's hand-written pieces against plain libtorch autograd: the fused
// first layer (GatedLinear, custom backward), the top-k mask, and the rule that
// the sub-model's gradient reaches only the kept entries of w. Also checks
// that libtorch runs on OpenBLAS (the reference BLAS is ~15x slower).
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/nn/functional.h>
#include <torch/types.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "neural/model/network.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using torch::Tensor;
namespace F = torch::nn::functional;

Tensor random_tensor(std::vector<std::int64_t> sizes, Rng& rng) {
  Tensor out = torch::empty(sizes, torch::kDouble);
  double* data = out.data_ptr<double>();
  for (std::int64_t i = 0; i < out.numel(); ++i) data[i] = rng.normal();
  return out;
}

Tensor random_labels(std::int64_t n, std::int64_t classes, Rng& rng) {
  Tensor out = torch::empty({n}, torch::kLong);
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<std::int64_t>(rng.uniform_index(static_cast<std::uint64_t>(classes)));
  }
  return out;
}

std::map<std::string, Tensor> parameters_by_name(torch::nn::Module& module) {
  std::map<std::string, Tensor> out;
  for (const auto& item : module.named_parameters()) out[item.key()] = item.value();
  return out;
}

// Relative max-norm distance, so that the tolerance does not depend on the
// scale of a gradient.
double relative_distance(const Tensor& a, const Tensor& b) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-300);
  return (a - b).abs().max().item<double>() / scale;
}

// An MLP with a non-trivial w (the init at 1 would hide a w that is applied
// twice or not at all). The fused layer works in float only, as training does.
std::shared_ptr<TopKNetwork> gated_mlp(std::int64_t inputs, std::int64_t outputs,
                                       const std::vector<int>& hidden, Rng& rng) {
  auto network = make_mlp(inputs, outputs, hidden, rng);
  torch::NoGradGuard no_grad;
  network->w.copy_(random_tensor({inputs}, rng));
  return network;
}

// The same function as the MLP, written the plain way: x * w (or
// x * (w * mask)) into an ordinary linear layer, then the body. It runs in
// double precision on the float network's parameters, so it gives the exact
// gradients that the float ones are measured against.
struct ReferenceMlp {
  std::map<std::string, Tensor> p;  // double copies of the network's parameters
  std::size_t dense_layers = 0;

  explicit ReferenceMlp(torch::nn::Module& network) {
    for (const auto& [name, value] : parameters_by_name(network)) {
      p[name] = value.detach().to(torch::kDouble).requires_grad_(true);
      if (name.rfind("dense", 0) == 0 && name.find(".weight") != std::string::npos) ++dense_layers;
    }
  }

  Tensor body(Tensor h) {
    for (std::size_t i = 1; i <= dense_layers; ++i) {
      const std::string layer = "dense" + std::to_string(i);
      h = F::linear(torch::relu(h), p[layer + ".weight"], p[layer + ".bias"]);
    }
    return h;
  }

  Tensor lead(const Tensor& x) {
    return body(F::linear(x * p["w"], p["first_weight"], p["first_bias"]));
  }

  Tensor sub(const Tensor& x, const Tensor& mask) {
    return body(F::linear(x * (p["w"] * mask), p["first_weight"], p["first_bias"]));
  }
};

Tensor mask_of(const Tensor& subset, std::int64_t m) {
  return torch::zeros({m}, torch::kDouble).index_fill_(0, subset, 1.0);
}

void expect_same_gradients(torch::nn::Module& network, ReferenceMlp& reference) {
  const auto ours = parameters_by_name(network);
  ASSERT_EQ(ours.size(), reference.p.size());
  for (const auto& [name, value] : ours) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(value.grad().defined());
    ASSERT_TRUE(reference.p[name].grad().defined());
    EXPECT_LT(relative_distance(value.grad().to(torch::kDouble), reference.p[name].grad()), 1e-5);
  }
}

// Float inputs for the network; the reference gets the same values in double.
Tensor as_float(const Tensor& t) { return t.to(torch::kFloat); }
Tensor as_double(const Tensor& t) { return t.to(torch::kDouble); }

// A small gated MLP (13 inputs, hidden 7 and 5, 4 classes), its
// double-precision reference, and 9 rows of inputs and labels.
struct GatedProblem {
  static constexpr std::int64_t n = 9, m = 13, classes = 4;
  Rng rng;
  std::shared_ptr<TopKNetwork> network;
  ReferenceMlp reference;
  Tensor x;
  Tensor y;

  explicit GatedProblem(std::uint64_t seed)
      : rng(seed),
        network(gated_mlp(m, classes, {7, 5}, rng)),
        reference(*network),
        x(as_float(random_tensor({n, m}, rng))),
        y(random_labels(n, classes, rng)) {}
};

// A scattered subset, and the leading columns that dnn-top's training keeps
// its top k in (input_order.hpp), where the lead's product continues the
// sub-model's.
class GatedLinearSubsetTest : public ::testing::TestWithParam<std::vector<std::int64_t>> {};

TEST_P(GatedLinearSubsetTest, GradientsMatchPlainAutograd) {
  GatedProblem p(11);
  const Tensor subset = torch::tensor(GetParam(), torch::kLong);
  const double lambda3 = 1.7;

  const ModelOutputs out = p.network->forward(p.x, subset);
  ASSERT_TRUE(out.sub.defined());
  (F::cross_entropy(out.lead, p.y) + lambda3 * F::cross_entropy(out.sub, p.y)).backward();

  const Tensor lead = p.reference.lead(as_double(p.x));
  const Tensor sub = p.reference.sub(as_double(p.x), mask_of(subset, GatedProblem::m));
  EXPECT_LT(relative_distance(as_double(out.lead), lead), 1e-5);
  EXPECT_LT(relative_distance(as_double(out.sub), sub), 1e-5);
  (F::cross_entropy(lead, p.y) + lambda3 * F::cross_entropy(sub, p.y)).backward();
  expect_same_gradients(*p.network, p.reference);
}

INSTANTIATE_TEST_SUITE_P(Subsets, GatedLinearSubsetTest,
                         ::testing::Values(std::vector<std::int64_t>{1, 4, 5, 10, 12},
                                           std::vector<std::int64_t>{0, 1, 2, 3, 4}));

// Several sub-models in one pass (forward_subsets, dnn-top's --sub-k-min):
// the lead's rows, then each sub-model's, with gradients summed over all of
// them as the plain network computes them; nested, scattered and leading
// subsets together.
TEST(GatedLinearTest, SeveralSubModelsInOnePassMatchPlainAutograd) {
  GatedProblem p(12);
  const std::int64_t n = GatedProblem::n;
  const std::vector<Tensor> subsets = {torch::tensor({4, 10}, torch::kLong),
                                       torch::tensor({0, 1, 2, 3, 4}, torch::kLong),
                                       torch::tensor({1, 4, 5, 10, 12, 7, 8}, torch::kLong)};
  const std::vector<double> weights = {0.5, 1.3, 2.1};
  // Rows of sub-model s (s = 0: the lead).
  auto block = [n](const Tensor& rows, std::size_t s) {
    return rows.narrow(0, static_cast<std::int64_t>(s) * n, n);
  };

  const Tensor rows = p.network->forward_subsets(p.x, subsets);
  ASSERT_TRUE(rows.defined());
  ASSERT_EQ(rows.size(0), 4 * n);
  Tensor loss = F::cross_entropy(block(rows, 0), p.y);
  for (std::size_t s = 0; s < subsets.size(); ++s) {
    loss = loss + weights[s] * F::cross_entropy(block(rows, s + 1), p.y);
  }
  loss.backward();

  const Tensor lead = p.reference.lead(as_double(p.x));
  EXPECT_LT(relative_distance(as_double(block(rows, 0)), lead), 1e-5);
  Tensor expected = F::cross_entropy(lead, p.y);
  for (std::size_t s = 0; s < subsets.size(); ++s) {
    const Tensor sub = p.reference.sub(as_double(p.x), mask_of(subsets[s], GatedProblem::m));
    EXPECT_LT(relative_distance(as_double(block(rows, s + 1)), sub), 1e-5) << "sub-model " << s;
    expected = expected + weights[s] * F::cross_entropy(sub, p.y);
  }
  expected.backward();
  expect_same_gradients(*p.network, p.reference);
}

TEST(GatedLinearTest, GradientsMatchPlainAutogradWithoutSubset) {
  Rng rng(12);
  const std::int64_t n = 8, m = 11, outputs = 2;
  auto network = gated_mlp(m, outputs, {6}, rng);
  ReferenceMlp reference(*network);
  const Tensor x = as_float(random_tensor({n, m}, rng));
  const Tensor y = as_float(random_tensor({n, outputs}, rng));

  const ModelOutputs out = network->forward(x, torch::empty({0}, torch::kLong));
  EXPECT_FALSE(out.sub.defined());
  F::mse_loss(out.lead, y).backward();

  const Tensor lead = reference.lead(as_double(x));
  EXPECT_LT(relative_distance(as_double(out.lead), lead), 1e-5);
  F::mse_loss(lead, as_double(y)).backward();
  expect_same_gradients(*network, reference);
}

// No hidden layer: the fused layer is the output layer itself.
TEST(GatedLinearTest, GradientsMatchWithoutHiddenLayers) {
  Rng rng(13);
  const std::int64_t n = 6, m = 9;
  auto network = gated_mlp(m, 1, {}, rng);
  ReferenceMlp reference(*network);
  const Tensor x = as_float(random_tensor({n, m}, rng));
  const Tensor y = as_float(random_tensor({n, 1}, rng).sigmoid());
  const Tensor subset = torch::tensor(std::vector<std::int64_t>{0, 8}, torch::kLong);

  const ModelOutputs out = network->forward(x, subset);
  (F::binary_cross_entropy_with_logits(out.lead, y) +
   0.5 * F::binary_cross_entropy_with_logits(out.sub, y))
      .backward();
  const Tensor lead = reference.lead(as_double(x));
  const Tensor sub = reference.sub(as_double(x), mask_of(subset, m));
  (F::binary_cross_entropy_with_logits(lead, as_double(y)) +
   0.5 * F::binary_cross_entropy_with_logits(sub, as_double(y)))
      .backward();
  expect_same_gradients(*network, reference);
}

// Gradient of the sub-model's loss alone: zero outside the kept set, for w
// and for the first layer's weight columns.
void expect_sub_gradient_confined(TopKNetwork& network, const Tensor& x, const Tensor& y,
                                  const std::set<std::int64_t>& kept) {
  const Tensor subset =
      torch::tensor(std::vector<std::int64_t>(kept.begin(), kept.end()), torch::kLong);
  const ModelOutputs out = network.forward(x, subset);
  F::cross_entropy(out.sub, y).backward();
  const Tensor grad = network.w.grad().to(torch::kDouble).contiguous();
  ASSERT_EQ(grad.numel(), network.w.numel());
  for (std::int64_t j = 0; j < grad.numel(); ++j) {
    const double g = grad[j].item<double>();
    if (kept.count(j)) {
      EXPECT_NE(g, 0.0) << "kept input " << j << " got no gradient from the sub-model";
    } else {
      EXPECT_EQ(g, 0.0) << "dropped input " << j << " got gradient from the sub-model";
    }
  }
}

TEST(SubModelGradientTest, MlpGradientReachesOnlyKeptWeights) {
  Rng rng(21);
  const std::int64_t n = 10, m = 12, classes = 3;
  auto network = make_mlp(m, classes, {8, 4}, rng);
  const Tensor x = random_tensor({n, m}, rng).to(torch::kFloat);
  const Tensor y = random_labels(n, classes, rng);
  const std::set<std::int64_t> kept = {2, 3, 7, 11};
  expect_sub_gradient_confined(*network, x, y, kept);

  const auto params = parameters_by_name(*network);
  const Tensor first = params.at("first_weight").grad();
  for (std::int64_t j = 0; j < m; ++j) {
    const double column = first.select(1, j).abs().sum().item<double>();
    if (kept.count(j)) {
      EXPECT_GT(column, 0.0) << "column " << j;
    } else {
      EXPECT_EQ(column, 0.0) << "column " << j;
    }
  }
}

TEST(SubModelGradientTest, CnnGradientReachesOnlyKeptPixels) {
  Rng rng(22);
  const ImageShape shape{8, 8, 1};
  const std::int64_t n = 6, classes = 3;
  auto network = make_cnn(shape, classes, {10}, rng);
  const Tensor x = random_tensor({n, shape.pixels()}, rng).to(torch::kFloat);
  const Tensor y = random_labels(n, classes, rng);
  expect_sub_gradient_confined(*network, x, y, {0, 9, 27, 36, 63});
}

TEST(SubModelGradientTest, LeadAndSubModelShareTheBody) {
  // With the full set kept the sub-model is the lead model.
  Rng rng(23);
  const std::int64_t n = 5, m = 7;
  auto network = make_mlp(m, 2, {4}, rng);
  const Tensor x = random_tensor({n, m}, rng).to(torch::kFloat);
  const ModelOutputs out = network->forward(x, torch::arange(m, torch::kLong));
  EXPECT_TRUE(torch::allclose(out.lead, out.sub, 1e-5, 1e-6));
}

// /proc/self/maps lists every mapped file; the BLAS that libtorch loaded is
// among them once a matrix product has run.
std::vector<std::string> mapped_blas_libraries() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> found;
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (lower.find("blas") != std::string::npos) found.insert(path);
  }
  return {found.begin(), found.end()};
}

TEST(BlasTest, LibtorchUsesOpenBlas) {
  const Tensor a = torch::ones({256, 256});
  const Tensor product = torch::mm(a, a);
  ASSERT_FLOAT_EQ(product[17][42].item<float>(), 256.0f);
  const auto libraries = mapped_blas_libraries();
  const bool openblas = std::any_of(
      libraries.begin(), libraries.end(),
      [](const std::string& path) { return path.find("openblas") != std::string::npos; });
  std::string listing;
  for (const auto& path : libraries) listing += "\n  " + path;
  EXPECT_TRUE(openblas)
      << "libtorch is not running on OpenBLAS; mapped BLAS libraries:"
      << (listing.empty() ? std::string("\n  (none)") : listing)
      << "\nInstall libopenblas0-pthread (scripts/setup.sh does): the reference BLAS in "
         "/usr/lib/x86_64-linux-gnu/blas/ is about 15x slower for training.";
}

}  // namespace
}  // namespace topkfs
