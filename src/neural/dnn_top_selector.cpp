// dnn-top and dfs as Selectors: data to tensors, the network, the trainer, and
// the result (scores = |w|).
#include <fmt/format.h>

#include <torch/serialize/archive.h>

#include <cstdlib>
#include <optional>

#include "network.hpp"
#include "neural_problem.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/neural/dnn_top.hpp"
#include "trainer.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

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
    const auto start = NeuralClock::now();
    options_.validate();
    const DnnTopOptions& options = options_;
    check_k(train, k);

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

    // MLP: a team of threads takes each step together, each on its part of
    // the minibatch with single-threaded GEMMs (ParallelStep); measured
    // faster than giving the threads to OpenBLAS (docs/algorithms.md). The
    // CNN's convolutions are parallel inside libtorch.
    const bool cnn = options.body == "cnn";
    const NeuralProblem problem = prepare_problem(train, rows, options, shape.has_value(),
                                                  cnn ? ThreadUse::All : ThreadUse::Team);
    Rng init_rng(derive_seed(options.seed, 0));
    std::shared_ptr<TopKNetwork> network =
        options.body == "cnn" ? make_cnn(*shape, problem.outputs, options.hidden, init_rng)
                              : make_mlp(train.cols(), problem.outputs, options.hidden, init_rng);
    const TrainingOutcome outcome = train_network(*network, problem.set, options, k, callbacks, {},
                                                  cnn ? 1 : problem.threads_used);
    network_ = network;

    const Tensor magnitude = network->w.detach().abs().to(torch::kDouble).contiguous();
    SelectionResult result = neural_result(
        name(), k,
        std::vector<double>(magnitude.data_ptr<double>(),
                            magnitude.data_ptr<double>() + magnitude.numel()),
        train, problem, outcome, options_json(), start);
    model_metadata_ = nlohmann::json{{"method", name()},
                                     {"k", k},
                                     {"inputs", train.cols()},
                                     {"outputs", problem.outputs},
                                     {"options", result.options},
                                     {"selected", result.selected},
                                     {"feature_names", train.feature_names}};
    return result;
  }

  // A libtorch archive of every parameter (w and the body) plus the metadata
  // needed to rebuild the network, as the string entry "topkfs_metadata".
  // Without the top-k term (DFS) training never looks at k: the selection
  // for any k is the first k of the ranking by |w|.
  bool ranking_depends_on_k() const override { return options_.lambda3 != 0.0; }

  void save_model(const std::string& path) const override {
    if (!network_) {
      throw OptionError(fmt::format("--save-model {}: nothing is trained yet", path));
    }
    torch::serialize::OutputArchive archive;
    network_->save(archive);
    archive.write("topkfs_metadata", c10::IValue(model_metadata_.dump()));
    write_file_atomically(path, [&](std::ostream& out) {
      try {
        archive.save_to(out);
      } catch (const c10::Error& error) {
        throw FileError(
            fmt::format("{}: cannot write the model: {}", path, error.what_without_backtrace()));
      }
    });
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
