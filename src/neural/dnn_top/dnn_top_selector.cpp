// dnn-top and dfs as Selectors: data to tensors, the network, the trainer, and
// the result (scores = |w|).
#include <fmt/format.h>

#include <torch/serialize/archive.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

#include "neural/dnn_top/dnn_top_objective.hpp"
#include "neural/dnn_top/wide_data_rule.hpp"
#include "neural/dnn_top/wide_screen.hpp"
#include "neural/model/network.hpp"
#include "neural/ops/step_blocks.hpp"
#include "neural/train/neural_problem.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/splits.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

class DnnTopSelector final : public TableSelector<DnnTopOptions> {
 public:
  explicit DnnTopSelector(bool dfs)
      : TableSelector(dfs ? dfs_option_table() : dnn_top_option_table()), dfs_(dfs) {
    if (dfs_) options_ = dfs_default_options();
  }

  std::string name() const override { return dfs_ ? "dfs" : "dnn-top"; }

  void set_option(const std::string& option, const std::string& value) override {
    if (dfs_ && option == "lambda3" && std::strtod(value.c_str(), nullptr) != 0.0) {
      throw OptionError(fmt::format("dfs is dnn-top with lambda3 = 0; use {} to set {}",
                                    option_ref("method", "dnn-top"), option_ref("lambda3")));
    }
    TableSelector::set_option(option, value);
    given_.insert(option);
  }

  SelectionResult fit(const Dataset& train, const std::vector<std::int64_t>& rows, int k,
                      const FitCallbacks& callbacks) override {
    const auto start = NeuralClock::now();
    options_.validate();
    check_k(train, k);
    const std::optional<ImageShape> shape = checked_image_shape(train);
    // The options this fit trains with: the given ones, with the wide-data
    // budget where the rule applies; the result reports these.
    DnnTopOptions options = options_;
    options.sub_k_min = sub_k_min();
    const auto training_rows = static_cast<std::int64_t>(rows.size());
    std::int64_t keep =
        screen_size(options, training_rows, train.cols(), k, !train.column_group.empty());
    std::string screen_skipped;
    if (keep > 0 && callbacks.ranks != nullptr && callbacks.ranks->size() > 1) {
      // Each rank holds a shard of the rows, so each would screen other columns.
      if (options.screen.mode != ScreenSize::Mode::Auto) {
        throw OptionError(fmt::format(
            "{} is not available under {}: each process holds only its share of the rows; use {}",
            option_ref("screen"), option_ref("nproc"), option_ref("screen", "off")));
      }
      keep = 0;
      screen_skipped =
          fmt::format("not screened: under {} each process holds only its share of the rows",
                      option_ref("nproc"));
    }
    const std::string wide_note =
        apply_wide_data_rule(options, given_, training_rows, train.cols());
    SelectionResult result;
    if (keep > 0) {
      ScreenedData screened = screen_columns(train, rows, keep);
      std::vector<std::int64_t> all_rows(static_cast<std::size_t>(training_rows));
      for (std::int64_t i = 0; i < training_rows; ++i) all_rows[static_cast<std::size_t>(i)] = i;
      result = fit_columns(screened.data, all_rows, k, std::nullopt, options, callbacks, start);
      widen_to_columns(result, screened, train);
      // The saved network's inputs are the screened columns.
      model_metadata_["selected"] = result.selected;
      model_metadata_["input_columns"] = screened.columns;
      result.notes.insert(result.notes.begin(), screen_note(screened, train.cols()));
    } else {
      result = fit_columns(train, rows, k, shape, options, callbacks, start);
      if (!screen_skipped.empty()) result.notes.insert(result.notes.begin(), screen_skipped);
    }
    if (!wide_note.empty()) result.notes.insert(result.notes.begin(), wide_note);
    return result;
  }

  // The columns a run's top k holds: its k largest magnitudes, or with
  // column groups every column of its k groups of largest norm.
  static std::vector<std::int64_t> top_k_columns(const Dataset& train,
                                                 const std::vector<double>& magnitude, int k) {
    if (train.column_group.empty()) {
      const std::vector<std::int64_t> ranking = rank_by_score(magnitude);
      return {ranking.begin(), ranking.begin() + k};
    }
    std::vector<double> norms(train.group_names.size(), 0.0);
    for (std::size_t j = 0; j < magnitude.size(); ++j) {
      norms[static_cast<std::size_t>(train.column_group[j])] += magnitude[j] * magnitude[j];
    }
    const std::vector<std::int64_t> groups = rank_by_score(norms);
    std::vector<char> kept(norms.size(), 0);
    for (int i = 0; i < k && i < static_cast<int>(groups.size()); ++i) {
      kept[static_cast<std::size_t>(groups[static_cast<std::size_t>(i)])] = 1;
    }
    std::vector<std::int64_t> columns;
    for (std::size_t j = 0; j < magnitude.size(); ++j) {
      if (kept[static_cast<std::size_t>(train.column_group[j])])
        columns.push_back(static_cast<std::int64_t>(j));
    }
    return columns;
  }

  // A libtorch archive of every parameter (w and the body) plus the metadata
  // needed to rebuild the network, as the string entry "topkfs_metadata".
  // Without the top-k term (DFS) training never looks at k, so the selection
  // for any k is the first k of the ranking by |w|; but restarts vote with
  // each run's top k.
  // With --sub-k-min (or --every-k auto and several k to serve) one
  // training serves every k of its range in the same way.
  bool ranking_depends_on_k() const override {
    if (options_.restarts > 1) return true;
    return options_.lambda3 != 0.0 && sub_k_min() == 0;
  }

  void serve_ks(int smallest, int largest) override {
    served_smallest_ = smallest < largest ? smallest : 0;
  }
  bool resumable() const override { return options_.restarts == 1; }
  // The sub-model's mask keeps whole groups (dnn_top_objective.cpp); dfs
  // has no mask, so its k columns are its ranking's, summed into groups.
  bool selects_groups() const override { return !dfs_; }
  bool streams_rows() const override { return true; }
  bool data_parallel() const override { return true; }

  void save_model(const std::string& path) const override {
    if (!network_) {
      throw OptionError(fmt::format("{}: nothing is trained yet", option_ref("save-model", path)));
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
  // The smallest k of one training for every k: --sub-k-min when given,
  // else with --every-k auto the smallest k to serve, else 0 (off). Not
  // for restarts (each votes with its own top k) nor without the top-k term.
  int sub_k_min() const {
    if (options_.sub_k_min > 0 || options_.every_k != EveryK::Auto || options_.restarts > 1 ||
        options_.lambda3 == 0.0) {
      return options_.sub_k_min;
    }
    return served_smallest_;
  }

  // One fit (or the restarts of a stability fit) on every column of `data`.
  SelectionResult fit_columns(const Dataset& data, const std::vector<std::int64_t>& rows, int k,
                              const std::optional<ImageShape>& shape, const DnnTopOptions& options,
                              const FitCallbacks& callbacks, NeuralClock::time_point start) {
    if (options.restarts == 1 && options.subsample == 1.0) {
      FitOnce once = fit_once(data, rows, k, shape, options, callbacks);
      SelectionResult result = neural_result(name(), k, once.magnitude, data, once.problem,
                                             once.outcome, table_.to_json(options), start);
      keep_model(once, data, k, result);
      return result;
    }
    return fit_restarts(data, rows, k, shape, options, callbacks, start);
  }

  // A result on the screened columns as one on every column of `train`:
  // the columns left out score 0, and equal scores (those, or a |w| of 0)
  // are ranked by their marginal dependence, which ranks every kept column
  // above every column left out.
  static void widen_to_columns(SelectionResult& result, const ScreenedData& screened,
                               const Dataset& train) {
    const auto m = static_cast<std::size_t>(train.cols());
    auto widen = [&](const std::vector<double>& narrow) {
      std::vector<double> wide(m, 0.0);
      for (std::size_t j = 0; j < screened.columns.size(); ++j) {
        wide[static_cast<std::size_t>(screened.columns[j])] = narrow[j];
      }
      return wide;
    };
    result.scores = widen(result.scores);
    if (!result.frequency.empty()) result.frequency = widen(result.frequency);
    finish_selection(result, train.feature_names, screened.dependence);
  }

  struct FitOnce {
    std::shared_ptr<TopKNetwork> network;
    NeuralProblem problem;
    TrainingOutcome outcome;
    std::vector<double> magnitude;  // |w| per input
  };

  // The image shape a CNN body needs, checked against the data; the data's
  // own when the options give none.
  std::optional<ImageShape> checked_image_shape(const Dataset& train) const {
    std::optional<ImageShape> shape = train.image_shape;
    if (!options_.image_shape.empty()) {
      shape = parse_image_shape(options_.image_shape, option_ref("image-shape"));
    }
    if (options_.body != DnnTopBody::Cnn) return shape;
    if (!shape) {
      throw OptionError(fmt::format("{} needs an image shape: {} carries none; give {}",
                                    option_ref("body", "cnn"), train.source,
                                    option_ref("image-shape", "HxW")));
    }
    if (shape->pixels() != train.cols()) {
      throw OptionError(fmt::format(
          "{} ({} values) does not fit {} columns",
          option_ref("image-shape",
                     fmt::format("{}x{}x{}", shape->height, shape->width, shape->channels)),
          shape->pixels(), train.cols()));
    }
    // The CNN body's two 2x2 poolings need images of at least 4x4.
    if (shape->height < 4 || shape->width < 4) {
      throw OptionError(fmt::format(
          "{} takes images of at least 4x4 pixels (its two 2x2 poolings), not {}x{}; use {} for "
          "smaller ones",
          option_ref("body", "cnn"), shape->height, shape->width, option_ref("body", "mlp")));
    }
    return shape;
  }

  // One training run with `options` (its seed) on `rows`.
  static FitOnce fit_once(const Dataset& train, const std::vector<std::int64_t>& rows, int k,
                          const std::optional<ImageShape>& shape, const DnnTopOptions& options,
                          const FitCallbacks& callbacks) {
    // A team of threads takes each step together, each on its row blocks of
    // the minibatch with single-threaded kernels (ParallelStep), which
    // measured faster than giving the threads to OpenBLAS (docs/algorithms.md)
    // and, unlike OpenBLAS's or libtorch's threads, gives the same result
    // for any count. The MLP's first layer is split by units among them.
    const bool cnn = options.body == DnnTopBody::Cnn;
    FitOnce once;
    once.problem =
        prepare_problem(train, rows, options, shape.has_value(), ThreadUse::Team, callbacks.ranks);
    // A member without a row block of the minibatch would only wait.
    once.problem.threads_used =
        std::min(once.problem.threads_used,
                 row_blocks(options.rank_rows(callbacks.ranks ? callbacks.ranks->size() : 1)));
    Rng init_rng(derive_seed(options.seed, 0));
    once.network = cnn ? make_cnn(*shape, once.problem.outputs, options.hidden, init_rng)
                       : make_mlp(train.cols(), once.problem.outputs, options.hidden, init_rng);
    once.outcome = train_network(*once.network, once.problem.set, options, k, callbacks, {},
                                 once.problem.threads_used);
    const Tensor magnitude =
        input_ranking_magnitude(*once.network, options).to(torch::kDouble).contiguous();
    once.magnitude.assign(magnitude.data_ptr<double>(),
                          magnitude.data_ptr<double>() + magnitude.numel());
    return once;
  }

  // Stability selection over restarts (docs/algorithms.md): each run's top k
  // is a vote; the score of a feature is its vote count plus half its mean
  // relative |w| (|w| / max |w| of the run, below 1), so that the votes
  // decide and the magnitudes only break ties.
  // The rows a restart draws are what the validation split keeps, each part
  // at least one row.
  static void check_subsample(std::size_t rows, double subsample) {
    const auto n = static_cast<std::int64_t>(rows);
    const std::int64_t left_out = held_out_count(n, 1.0 - subsample);
    if (n - left_out >= 1 && left_out >= 1) return;
    throw OptionError(
        fmt::format("{}: each restart would draw {} of the {} training rows and leave {} out; give "
                    "a fraction that draws at least one row and leaves one out (e.g. 0.8)",
                    option_ref("subsample", subsample), n - left_out, rows, left_out));
  }

  SelectionResult fit_restarts(const Dataset& train, const std::vector<std::int64_t>& rows, int k,
                               const std::optional<ImageShape>& shape, const DnnTopOptions& options,
                               const FitCallbacks& callbacks, NeuralClock::time_point start) {
    const int restarts = options.restarts;
    const auto m = static_cast<std::size_t>(train.cols());
    std::vector<double> votes(m, 0.0);
    std::vector<double> relative_magnitude(m, 0.0);
    FitOnce last;
    for (int r = 0; r < restarts; ++r) {
      DnnTopOptions run = options;
      run.seed = options.seed + static_cast<std::uint64_t>(r);
      run.restarts = 1;
      std::vector<std::int64_t> drawn = rows;
      if (options.subsample < 1.0) {
        check_subsample(rows.size(), options.subsample);
        drawn =
            train_validation_split(train, rows, 1.0 - options.subsample, derive_seed(run.seed, 7))
                .train;
      }
      callbacks.info(fmt::format("restart {}/{}: seed {}, {} training rows", r + 1, restarts,
                                 run.seed, drawn.size()));
      last = fit_once(train, drawn, k, shape, run, restart_callbacks(callbacks, r, restarts));
      const double largest = *std::max_element(last.magnitude.begin(), last.magnitude.end());
      for (std::size_t j = 0; j < m; ++j) {
        relative_magnitude[j] += largest > 0 ? last.magnitude[j] / largest : 0.0;
      }
      for (auto column : top_k_columns(train, last.magnitude, k)) {
        votes[static_cast<std::size_t>(column)] += 1.0;
      }
    }
    std::vector<double> scores(m);
    std::vector<double> frequency(m);
    for (std::size_t j = 0; j < m; ++j) {
      frequency[j] = votes[j] / restarts;
      scores[j] = votes[j] + 0.5 * relative_magnitude[j] / restarts;
    }
    SelectionResult result = neural_result(name(), k, std::move(scores), train, last.problem,
                                           last.outcome, table_.to_json(options), start);
    result.frequency = std::move(frequency);
    result.notes.push_back(fmt::format(
        "stability selection: {} fits (seeds {}..{}){}; the history and the saved model are the "
        "last fit's",
        restarts, options.seed, options.seed + static_cast<std::uint64_t>(restarts) - 1,
        options.subsample < 1.0
            ? fmt::format(", each on {:g}% of the training rows", 100 * options.subsample)
            : std::string()));
    keep_model(last, train, k, result);
    return result;
  }

  // Progress across restarts: epochs counted over all of them.
  static FitCallbacks restart_callbacks(const FitCallbacks& callbacks, int restart, int restarts) {
    FitCallbacks scoped = callbacks;
    if (callbacks.progress) {
      scoped.progress = [outer = callbacks.progress, restart, restarts](const Progress& p) {
        Progress total = p;
        total.epoch = restart * p.epochs + p.epoch;
        total.epochs = restarts * p.epochs;
        outer(total);
      };
    }
    return scoped;
  }

  void keep_model(const FitOnce& fit, const Dataset& train, int k, const SelectionResult& result) {
    network_ = fit.network;
    model_metadata_ = nlohmann::json{{"method", name()},
                                     {"k", k},
                                     {"inputs", train.cols()},
                                     {"outputs", fit.problem.outputs},
                                     {"options", result.options},
                                     {"selected", result.selected},
                                     {"feature_names", train.feature_names}};
  }

  bool dfs_;
  // The options set through set_option: the wide-data rule keeps these.
  std::set<std::string> given_;
  int served_smallest_ = 0;  // serve_ks's smallest k when it has several, else 0
  std::shared_ptr<TopKNetwork> network_;
  nlohmann::json model_metadata_;
};

}  // namespace

std::unique_ptr<Selector> make_dnn_top_selector(bool dfs) {
  return std::make_unique<DnnTopSelector>(dfs);
}

}  // namespace topkfs
