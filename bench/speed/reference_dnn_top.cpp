#include "reference_dnn_top.hpp"

#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>

#include <algorithm>
#include <tuple>

#include "neural/train/trainer.hpp"

namespace topkfs::bench {

ReferenceNetImpl::ReferenceNetImpl(std::int64_t inputs, std::int64_t outputs,
                                   const std::vector<int>& hidden) {
  w = register_parameter("w", torch::ones({inputs}));
  body = register_module("body", torch::nn::Sequential());
  std::int64_t width = inputs;
  for (int size : hidden) {
    body->push_back(torch::nn::Linear(width, size));
    body->push_back(torch::nn::ReLU());
    width = size;
  }
  body->push_back(torch::nn::Linear(width, outputs));
}

namespace {

// w^{max_k} as a constant 0/1 mask: no gradient flows through the selection.
torch::Tensor top_k_mask(const torch::Tensor& w, std::int64_t k) {
  torch::NoGradGuard no_grad;
  const torch::Tensor kept = std::get<1>(w.abs().topk(k));
  return torch::zeros_like(w).index_fill_(0, kept, 1.0);
}

}  // namespace

double train_reference(ReferenceNet& net, const TrainingSet& data,
                       const std::vector<std::int64_t>& rows, const ReferenceOptions& options,
                       const PhaseHook& lap) {
  const auto mark = [&lap](const char* phase) {
    if (lap) lap(phase);
  };
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(options.lr));
  const auto parameters = net->parameters();
  const std::size_t batch = static_cast<std::size_t>(options.batch);
  double loss_sum = 0.0;
  long steps = 0;
  for (std::size_t begin = 0; begin < rows.size(); begin += batch, ++steps) {
    const std::size_t end = std::min(rows.size(), begin + batch);
    const torch::Tensor x = gather_batch(data, rows, begin, end);
    const torch::Tensor index =
        torch::from_blob(const_cast<std::int64_t*>(rows.data() + begin),
                         {static_cast<std::int64_t>(end - begin)}, torch::kLong);
    const torch::Tensor y = data.targets.index_select(0, index);
    mark("gather");
    const torch::Tensor mask =
        options.lambda3 > 0 ? top_k_mask(net->w, options.k) : torch::Tensor();
    mark("mask");

    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net->body->forward(x * net->w), y);
    if (mask.defined()) {
      const torch::Tensor sub = net->body->forward(x * (net->w * mask));
      loss = loss + options.lambda3 * torch::nn::functional::cross_entropy(sub, y);
    }
    loss = loss + options.lambda2 * net->w.abs().sum() + options.lambda1 * net->w.pow(2).sum();
    loss_sum += loss.item<double>();
    mark("forward");
    loss.backward();
    mark("backward");
    if (options.clip > 0) torch::nn::utils::clip_grad_norm_(parameters, options.clip);
    mark("clip");
    optimizer.step();
    mark("step");
  }
  return steps > 0 ? loss_sum / static_cast<double>(steps) : 0.0;
}

}  // namespace topkfs::bench
