// dnn-top's objective (DESIGN.md §1) as a LoopModel: the lead model's loss,
// lambda3 times the sub-model's on the k inputs of largest |w| (the mask
// recomputed at every step), and the elastic-net penalties on w.
#include "elastic_penalty.hpp"
#include "top_k_mask.hpp"
#include "trainer.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

class DnnTopModel final : public LoopModel {
 public:
  DnnTopModel(TopKNetwork& network, const DnnTopOptions& options, std::int64_t k, NeuralTask task)
      : network_(network), options_(options), k_(k), task_(task) {}

  std::vector<Tensor> parameters() override { return network_.parameters(); }

  // Adam's weight decay applies to the body only; w is penalised by lambda1/2.
  std::vector<double> weight_decay() override {
    std::vector<double> decay;
    for (const auto& parameter : network_.parameters()) {
      decay.push_back(parameter.is_same(network_.w) ? 0.0 : options_.weight_decay);
    }
    return decay;
  }

  Tensor batch_loss(const Tensor& x, const Tensor& y, const StepInfo&) override {
    Tensor total = data_part(x, y);
    if (options_.lambda1 > 0 || options_.lambda2 > 0) {
      total = total + elastic_penalty(network_.w, options_.lambda1, options_.lambda2);
    }
    return total;
  }

  // The forward pass reads w and the body; the top-k set is recomputed from w.
  bool batch_loss_is_pure() const override { return true; }

  // The data part alone: the penalties say nothing about generalisation.
  Tensor validation_loss(const Tensor& x, const Tensor& y) override { return data_part(x, y); }

 private:
  // lead + lambda3 * sub on the current top-k set of |w|: one loss over the
  // networks' stacked rows, each row weighted 1/B or lambda3/B (the same sum
  // as two mean losses, in half the operations).
  Tensor data_part(const Tensor& x, const Tensor& y) {
    const ModelOutputs out = network_.forward(x, current_subset());
    if (!out.sub.defined()) return data_loss(out.lead, y, task_);
    return (data_loss_per_row(out.rows, torch::cat({y, y}), task_) * row_weights(x.size(0))).sum();
  }

  // 1/B for the lead's rows, lambda3/B for the sub-model's. Made afresh at
  // every call: batch_loss runs on two threads at once (batch_workers).
  Tensor row_weights(std::int64_t batch) const {
    Tensor weights = torch::full({2 * batch}, 1.0 / static_cast<double>(batch));
    weights.narrow(0, batch, batch).mul_(options_.lambda3);
    return weights;
  }

  // The sub-model's input set for this step, or an empty tensor (lead only).
  Tensor current_subset() const {
    if (!(options_.lambda3 > 0)) return torch::empty({0}, torch::kLong);
    const Tensor w = network_.w.detach();
    return torch::tensor(top_k_by_magnitude(w.data_ptr<float>(), w.numel(), k_), torch::kLong);
  }

  TopKNetwork& network_;
  const DnnTopOptions& options_;
  std::int64_t k_;
  NeuralTask task_;
};

}  // namespace

TrainingOutcome train_network(TopKNetwork& network, const TrainingSet& data,
                              const DnnTopOptions& options, std::int64_t k,
                              const FitCallbacks& callbacks, const GradientHook& hook,
                              int batch_workers) {
  DnnTopModel model(network, options, k, data.task);
  LoopSettings settings;
  settings.epochs = options.epochs;
  settings.batch = options.batch;
  settings.adam = {options.lr, options.beta1, options.beta2, 1e-8, options.clip};
  settings.patience = options.patience;
  settings.min_steps = options.min_steps;
  settings.seed = options.seed;
  settings.batch_workers = batch_workers;
  return train_loop(model, data, settings, callbacks, hook);
}

}  // namespace topkfs
