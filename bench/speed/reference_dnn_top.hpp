#pragma once
// The baseline that dnn_epoch_bench measures topkfs's trainer against: DNN^top
// (and DFS) written plainly in libtorch autograd, the way the paper describes
// it. torch::nn::Linear layers, w a parameter, lead = body(x * w) and
// sub = body(x * (w * mask)) with the mask a constant 0/1 tensor of the top-k
// |w| recomputed at every step: two full forward passes, autograd backward
// (which also forms the input gradient of the first layer), torch::optim::Adam.
// No fused layer, no gathered columns, no stacked batch: nothing of what the
// library does to be fast, and nothing that would make the baseline slow.
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace topkfs {
struct TrainingSet;
}

namespace topkfs::bench {

struct ReferenceOptions {
  std::vector<int> hidden = {256, 128};
  double lr = 1e-3;
  double lambda1 = 1e-4;  // lambda1 * ||w||_2^2
  double lambda2 = 1e-4;  // lambda2 * ||w||_1
  double lambda3 = 1.0;   // 0: DFS, the lead model alone
  double clip = 5.0;      // gradient-norm clipping as in the trainer; 0 = off
  int batch = 128;
  std::int64_t k = 50;
};

class ReferenceNetImpl : public torch::nn::Module {
 public:
  ReferenceNetImpl(std::int64_t inputs, std::int64_t outputs, const std::vector<int>& hidden);

  torch::Tensor w;  // the one-to-one layer, initialised at 1
  torch::nn::Sequential body;
};
TORCH_MODULE(ReferenceNet);

// For --breakdown: called at the end of each phase of a step with its name
// ("gather", "mask", "forward", "backward", "clip", "step").
using PhaseHook = std::function<void(const char* phase)>;

// One pass over `rows` (in the given order) in minibatches of options.batch:
// batches are gathered with topkfs::gather_batch, as the trainer does, so that
// both sides pay the same for the data. A fresh Adam per call, as
// topkfs::train_network creates one per call. Returns the mean training loss.
double train_reference(ReferenceNet& net, const TrainingSet& data,
                       const std::vector<std::int64_t>& rows, const ReferenceOptions& options,
                       const PhaseHook& lap = {});

}  // namespace topkfs::bench
