// dnn-top and dfs as Selectors: data to tensors, the network, the trainer, and
// the result (scores = |w|).
#include <fmt/format.h>

#include <torch/serialize/archive.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <numeric>

#include "network.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/scaling.hpp"
#include "topkfs/data/splits.hpp"
#include "topkfs/neural/dnn_top.hpp"
#include "trainer.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

NeuralTask task_of(const Dataset& data) {
  switch (data.target_kind) {
    case TargetKind::Classes:
      return data.num_classes() == 2 ? NeuralTask::Binary : NeuralTask::MultiClass;
    case TargetKind::Real: return NeuralTask::Regression;
    case TargetKind::None: break;
  }
  throw DataError(fmt::format("{}: supervised selection needs a target, and this data has none",
                              data.source));
}

std::int64_t output_count(const Dataset& data, NeuralTask task) {
  switch (task) {
    case NeuralTask::MultiClass: return data.num_classes();
    case NeuralTask::Binary: return 1;
    case NeuralTask::Regression: return data.num_outputs();
  }
  return 0;
}

// Targets as a tensor over all rows. Real targets are standardised with the
// training rows' statistics so that the loss scale, and so the meaning of the
// lambdas, does not depend on the target's unit.
Tensor target_tensor(const Dataset& data, NeuralTask task, const std::vector<std::int64_t>& train) {
  const auto n = data.rows();
  if (task == NeuralTask::MultiClass) {
    return torch::tensor(std::vector<std::int64_t>(data.labels.begin(), data.labels.end()),
                         torch::kLong);
  }
  if (task == NeuralTask::Binary) {
    Tensor y = torch::empty({n, 1});
    auto* out = y.data_ptr<float>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(data.labels[static_cast<std::size_t>(i)]);
    return y;
  }
  const auto q = data.targets.cols();
  Tensor y = torch::empty({n, q});
  auto* out = y.data_ptr<float>();
  for (Eigen::Index j = 0; j < q; ++j) {
    double sum = 0.0, sum_sq = 0.0;
    for (auto row : train) {
      sum += data.targets(row, j);
      sum_sq += data.targets(row, j) * data.targets(row, j);
    }
    const double mean = sum / static_cast<double>(train.size());
    const double var = std::max(0.0, sum_sq / static_cast<double>(train.size()) - mean * mean);
    const double scale = var > 0 ? std::sqrt(var) : 1.0;
    for (std::int64_t i = 0; i < n; ++i) out[i * q + j] = static_cast<float>((data.targets(i, j) - mean) / scale);
  }
  return y;
}

// Per-column offset and 1/scale for the minibatch gatherer, fitted on the
// training rows. "image" divides every pixel by the largest training value:
// per-pixel scaling would blow up nearly constant border pixels, whose noise
// then competes with real strokes for the top-k budget.
void scale_inputs(const Dataset& train, TrainingSet& set, const std::string& scaling) {
  const auto m = train.cols();
  if (scaling == "image") {
    float largest = 0.0f;
    for (auto row : set.train_rows) largest = std::max(largest, train.features.row(row).cwiseAbs().maxCoeff());
    set.offset = torch::zeros({m});
    set.inv_scale = torch::full({m}, largest > 0 ? 1.0f / largest : 1.0f);
    return;
  }
  const Scaler scaler = fit_scaler(train.features, set.train_rows, parse_scaling(scaling));
  if (scaler.kind == ScalingKind::None) return;
  const auto as_tensor = [m](const Eigen::VectorXd& vector) {
    return torch::from_blob(const_cast<double*>(vector.data()), {m}, torch::kDouble).to(torch::kFloat);
  };
  set.offset = as_tensor(scaler.offset);
  set.inv_scale = 1.0 / as_tensor(scaler.scale);
}

class DnnTopSelector final : public TableSelector<DnnTopOptions> {
 public:
  explicit DnnTopSelector(bool dfs) : TableSelector(dnn_top_option_table()), dfs_(dfs) {
    if (dfs_) options_.lambda3 = 0.0;
  }

  std::string name() const override { return dfs_ ? "dfs" : "dnn-top"; }

  void set_option(const std::string& option, const std::string& value) override {
    if (dfs_ && option == "lambda3" && std::strtod(value.c_str(), nullptr) != 0.0) {
      throw OptionError("dfs is dnn-top with lambda3 = 0; use --method dnn-top to set --lambda3");
    }
    TableSelector::set_option(option, value);
  }

  SelectionResult fit(const Dataset& train, const std::vector<std::int64_t>& rows, int k,
                      const FitCallbacks& callbacks) override {
    const auto start = std::chrono::steady_clock::now();
    options_.validate();
    const DnnTopOptions& options = options_;
    if (k < 1 || k > train.cols()) {
      throw OptionError(fmt::format("--k {} is out of range: {} has {} feature columns", k,
                                    train.source, train.cols()));
    }
    const NeuralTask task = task_of(train);

    std::optional<ImageShape> shape = train.image_shape;
    if (!options.image_shape.empty()) shape = parse_image_shape(options.image_shape, "--image-shape");
    if (options.body == "cnn") {
      if (!shape) {
        throw OptionError(fmt::format(
            "--body cnn needs an image shape: {} carries none; give --image-shape HxW",
            train.source));
      }
      if (shape->pixels() != train.cols() || shape->height < 4 || shape->width < 4) {
        throw OptionError(fmt::format("--image-shape {}x{}x{} does not fit {} columns",
                                      shape->height, shape->width, shape->channels, train.cols()));
      }
    }

    const int threads = configure_threads(
        options.threads, options.body == "cnn" ? ThreadUse::All : ThreadUse::BlasOnly);
    if (rows.size() < 2) {
      throw DataError(fmt::format("{}: {} training rows are too few to learn from", train.source,
                                  rows.size()));
    }
    TrainingSet set;
    set.features = &train.features;
    set.task = task;
    if (options.validation > 0) {
      const TrainValTest parts =
          train_validation_split(train, rows, options.validation, derive_seed(options.seed, 2));
      set.train_rows = parts.train;
      set.validation_rows = parts.validation;
    } else {
      set.train_rows = rows;
    }
    const std::string scaling_name =
        options.scaling == "auto" ? (shape ? "image" : "standard") : options.scaling;
    scale_inputs(train, set, scaling_name);
    set.targets = target_tensor(train, task, set.train_rows);

    Rng init_rng(derive_seed(options.seed, 0));
    const auto outputs = output_count(train, task);
    std::shared_ptr<TopKNetwork> network =
        options.body == "cnn" ? make_cnn(*shape, outputs, options.hidden, init_rng)
                              : make_mlp(train.cols(), outputs, options.hidden, init_rng);
    const TrainingOutcome outcome = train_network(*network, set, options, k, callbacks);
    network_ = network;

    SelectionResult result;
    result.method = name();
    result.k = k;
    const Tensor magnitude = network->w.detach().abs().to(torch::kDouble).contiguous();
    result.scores.assign(magnitude.data_ptr<double>(), magnitude.data_ptr<double>() + magnitude.numel());
    finish_selection(result, train.feature_names);
    result.history = outcome.history;
    result.options = options_json();
    result.options["scaling_used"] = scaling_name;
    result.options["threads_used"] = threads;
    result.options["task"] = task == NeuralTask::MultiClass ? "multiclass"
                             : task == NeuralTask::Binary   ? "binary"
                                                            : "regression";
    if (!set.validation_rows.empty()) {
      result.notes.push_back(fmt::format(
          "{} training rows, {} validation rows; weights of epoch {} (best validation loss){}",
          set.train_rows.size(), set.validation_rows.size(), outcome.best_epoch,
          outcome.stopped_early ? ", stopped early" : ""));
    }
    result.fit_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    model_metadata_ = nlohmann::json{{"method", name()},
                                     {"k", k},
                                     {"inputs", train.cols()},
                                     {"outputs", outputs},
                                     {"options", result.options},
                                     {"selected", result.selected},
                                     {"feature_names", train.feature_names}};
    return result;
  }

  // A libtorch archive of every parameter (w and the body) plus the metadata
  // needed to rebuild the network, as the string entry "topkfs_metadata".
  void save_model(const std::string& path) const override {
    if (!network_) {
      throw OptionError(fmt::format("--save-model {}: nothing is trained yet", path));
    }
    torch::serialize::OutputArchive archive;
    network_->save(archive);
    archive.write("topkfs_metadata", c10::IValue(model_metadata_.dump()));
    const std::string temporary = path + ".tmp";
    try {
      archive.save_to(temporary);
    } catch (const c10::Error& error) {
      std::remove(temporary.c_str());
      throw FileError(fmt::format("{}: cannot write the model: {}", path, error.what_without_backtrace()));
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      std::remove(temporary.c_str());
      throw FileError(fmt::format("{}: cannot write the model", path));
    }
  }

 private:
  bool dfs_;
  std::shared_ptr<TopKNetwork> network_;
  nlohmann::json model_metadata_;
};

}  // namespace

std::unique_ptr<Selector> make_dnn_top_selector(bool dfs) {
  return std::make_unique<DnnTopSelector>(dfs);
}

}  // namespace topkfs
