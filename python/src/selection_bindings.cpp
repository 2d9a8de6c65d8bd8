// The registry from Python: the methods and their options, a fit on NumPy
// arrays (what TopKSelector.fit calls) and a selection on a file (what
// `topkfs select` does). The GIL is released while a method trains.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <utility>

#include "bindings.hpp"
#include "topkfs/core/epoch_lines.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/progress_text.hpp"
#include "topkfs/data/feature_groups.hpp"
#include "topkfs/data/sample_weights.hpp"
#include "topkfs/evaluation/auto_selection.hpp"
#include "topkfs/io/result_json.hpp"
#include "topkfs/io/target_encoding.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/select/file_selection.hpp"
#include "topkfs/select/run_selection.hpp"

namespace topkfs::python {
namespace {

using Clock = std::chrono::steady_clock;

// A C-contiguous array of T, converted by pybind11 when it is not one.
template <typename T>
using Dense = py::array_t<T, py::array::c_style | py::array::forcecast>;

std::string python_names(const Selector& selector) {
  std::string out;
  for (const auto& info : selector.describe_options()) {
    out += (out.empty() ? "" : ", ") + python_keyword(info.name);
  }
  return out;
}

// `options` maps the registry's option names (dashes) to their text.
std::unique_ptr<Selector> configured_selector(const std::string& method, const py::dict& options) {
  auto selector = make_selector(method);
  for (const auto& [key, value] : options) {
    const auto name = key.cast<std::string>();
    if (!selector->has_option(name)) {
      throw OptionError(fmt::format("option '{}' does not apply to method {}; it takes: {}",
                                    python_keyword(name), method, python_names(*selector)));
    }
    selector->set_option(name, value.cast<std::string>());
  }
  return selector;
}

// What the library reports while a method trains. It runs without the GIL;
// it takes the GIL briefly (at most every 0.1 s, and at the end of each epoch)
// to let Ctrl-C stop the fit and, when verbose, to print the epoch's line.
class PythonReporter {
 public:
  explicit PythonReporter(bool verbose) : verbose_(verbose) {}

  FitCallbacks callbacks() {
    FitCallbacks out;
    out.progress = [this](const Progress& progress) { on_progress(progress); };
    out.log = [this](LogLevel level, const std::string& message) {
      const std::lock_guard<std::mutex> lock(mutex_);
      log_.emplace_back(level == LogLevel::Warning ? "warning" : "info", for_python(message));
    };
    return out;
  }

  py::list log() const {
    py::list out;
    for (const auto& [level, message] : log_) out.append(py::make_tuple(level, message));
    return out;
  }

 private:
  void on_progress(const Progress& progress) {
    const auto now = Clock::now();
    if (!progress.epoch_done && now - last_check_ < std::chrono::milliseconds(100)) return;
    last_check_ = now;
    py::gil_scoped_acquire gil;
    // Sets KeyboardInterrupt on Ctrl-C; the exception unwinds the trainer.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (verbose_ && lines_.keep(progress)) {
      std::string line = progress_line(progress);
      if (progress.val_loss) line += fmt::format("  validation {:.4f}", *progress.val_loss);
      line += fmt::format("  {:.1f} s\n", progress.elapsed_seconds);
      py::module_::import("sys").attr("stderr").attr("write")(line);
    }
  }

  bool verbose_;
  EpochLineSchedule lines_;  // not every epoch's line: quick epochs would flood
  Clock::time_point last_check_ = Clock::now();
  std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> log_;
};

// The result as Python reads it, with what the library logged meanwhile.
py::dict result_dict(const SelectionResult& result, const PythonReporter& reporter) {
  py::dict out = to_python(to_json(result));
  out["log"] = reporter.log();
  return out;
}

py::dict run(const Dataset& data, Selector& selector, int k, const SelectionSplitOptions& split,
             bool verbose, const CheckpointSettings& checkpoint = {}) {
  PythonReporter reporter(verbose);
  FitCallbacks callbacks = reporter.callbacks();
  callbacks.checkpoint = checkpoint;
  SelectionResult result;
  {
    py::gil_scoped_release release;
    result = run_selection(data, selector, k, split, callbacks);
  }
  return result_dict(result, reporter);
}

// The methods `method` stands for, with `choosing`'s candidates
// (candidate_names: refused without method="auto").
std::vector<std::string> python_candidate_names(const std::string& method,
                                                const py::dict& choosing) {
  std::vector<std::string> requested;
  if (choosing.contains("candidates"))
    requested = choosing["candidates"].cast<std::vector<std::string>>();
  return candidate_names(method, requested);
}

// k="auto" or method="auto" on every row of `data`: `choosing` holds k_max,
// k_folds, k_rule, seed and candidates; `options` go to the candidates that
// have them.
py::dict run_automatic(const Dataset& data, const std::string& method, int k,
                       const py::dict& options, const py::dict& choosing, bool verbose) {
  std::vector<std::pair<std::string, std::string>> given;
  for (const auto& [key, value] : options) {
    given.emplace_back(key.cast<std::string>(), value.cast<std::string>());
  }
  const std::vector<SelectorFactory> candidates =
      candidate_factories(python_candidate_names(method, choosing), given);
  AutoOptions automatic;
  automatic.auto_k = k == 0;
  automatic.k = k;
  if (choosing.contains("k_max")) automatic.k_max = choosing["k_max"].cast<int>();
  if (choosing.contains("k_folds")) automatic.folds = choosing["k_folds"].cast<int>();
  if (choosing.contains("k_rule"))
    automatic.rule = parse_k_rule(choosing["k_rule"].cast<std::string>());
  if (choosing.contains("seed")) automatic.seed = choosing["seed"].cast<std::uint64_t>();
  if (automatic.folds < 0) throw OptionError("k_folds must not be negative");
  if (!automatic.auto_k) check_k(k, data.group_count(), "X");
  PythonReporter reporter(verbose);
  const FitCallbacks callbacks = reporter.callbacks();
  SelectionResult result;
  {
    py::gil_scoped_release release;
    std::vector<std::int64_t> rows(static_cast<std::size_t>(data.rows()));
    std::iota(rows.begin(), rows.end(), 0);
    result = run_auto_selection(data, candidates, rows, automatic, callbacks);
    SelectionSplitOptions every_row;
    every_row.rows = SelectionRows::All;
    describe_selection(result, data, rows.size(), every_row,
                       fmt::format("learned from all {} rows", data.rows()));
  }
  return result_dict(result, reporter);
}

// Keeps X alive while the library holds its buffer. The fit runs with the GIL
// released and the last holder may be another thread, so the reference is
// dropped under the GIL (gil_scoped_acquire is a no-op where it is held).
std::shared_ptr<const void> keep_alive(const py::array& X) {
  auto* held = new py::object(X);
  return std::shared_ptr<const void>(held, [](const void* object) {
    py::gil_scoped_acquire gil;
    delete static_cast<const py::object*>(object);
  });
}

// The layout of FeatureMatrix: native float32, C-contiguous, aligned.
bool borrowable(const py::array& X) {
  return py::isinstance<py::array_t<float, py::array::c_style>>(X) &&
         reinterpret_cast<std::uintptr_t>(X.data()) % alignof(float) == 0;
}

// X as the Dataset's features: borrowed where X already has the matrix's
// layout (no copy; the library only reads it), else converted by one
// numpy.copyto (a cast for float64 or integers, a gather for strided or
// Fortran-ordered X).
void read_features(const py::array& X, Dataset& data) {
  if (X.ndim() != 2) {
    throw DataError(
        fmt::format("X must be 2-D (samples x features), got {} dimension(s)", X.ndim()));
  }
  const auto rows = static_cast<py::ssize_t>(X.shape(0));
  const auto cols = static_cast<py::ssize_t>(X.shape(1));
  if (rows == 0 || cols == 0) {
    throw DataError(fmt::format(
        "X has shape ({}, {}); it needs at least one sample and one feature", rows, cols));
  }
  if (borrowable(X)) {
    data.features =
        FeatureMatrix::borrow(static_cast<const float*>(X.data()), rows, cols, keep_alive(X));
  } else {
    data.features.resize(rows, cols);
    const auto item = static_cast<py::ssize_t>(sizeof(float));
    // A base object makes the array a view of the matrix (a null base would
    // copy); the matrix outlives the view, so the capsule frees nothing.
    const py::capsule no_owner(data.features.data(), [](void*) {});
    py::array_t<float> view({rows, cols}, {cols * item, item}, data.features.data(), no_owner);
    py::module_::import("numpy").attr("copyto")(view, X, py::arg("casting") = "unsafe");
  }
  if (data.features.allFinite()) return;
  // NaN is a missing cell, imputed by the selection (data/table_encoding.hpp).
  for (Eigen::Index i = 0; i < data.features.rows(); ++i) {
    for (Eigen::Index j = 0; j < data.features.cols(); ++j) {
      const float value = data.features(i, j);
      if (std::isinf(value)) {
        throw DataError(fmt::format(
            "X[{}, {}] is {} as float32: topkfs computes in float32, so values must be finite "
            "and within +-3.4e38 (NaN is a missing value); rescale that column",
            i, j, value));
      }
    }
  }
}

// The categorical columns of X (a DataFrame's text and category columns):
// the Python layer gives each one's levels and codes it 0..L-1, NaN where
// missing; the codes are checked here.
void set_column_levels(Dataset& data, const std::vector<std::vector<std::string>>& levels) {
  if (levels.empty()) return;
  if (static_cast<std::int64_t>(levels.size()) != data.cols()) {
    throw DataError(fmt::format("column_levels holds {} entries for the {} columns of X",
                                levels.size(), data.cols()));
  }
  data.column_levels = levels;
  for (std::int64_t j = 0; j < data.cols(); ++j) {
    const auto count = static_cast<float>(levels[static_cast<std::size_t>(j)].size());
    if (count == 0) continue;
    for (std::int64_t i = 0; i < data.rows(); ++i) {
      const float code = data.features(i, j);
      if (!std::isnan(code) && (code < 0 || code >= count || code != std::floor(code))) {
        throw DataError(
            fmt::format("X[{}, {}]: level code {} outside 0..{}", i, j, code, count - 1));
      }
    }
  }
  if (!data.has_categorical()) data.column_levels.clear();
}

void set_classes(Dataset& data, const Dense<std::int32_t>& labels,
                 const std::vector<std::string>& class_names) {
  if (labels.ndim() != 1 || labels.shape(0) != data.rows()) {
    throw DataError(fmt::format("y has {} labels for {} samples of X", labels.size(), data.rows()));
  }
  data.target_kind = TargetKind::Classes;
  data.labels.assign(labels.data(), labels.data() + labels.size());
  data.class_names = class_names;
  data.target_names = {"y"};
  for (auto label : data.labels) {
    if (label < 0 || label >= data.num_classes()) {
      throw DataError(fmt::format("y: class code {} outside 0..{}", label, data.num_classes() - 1));
    }
  }
  check_classes(data, "y");
}

void set_targets(Dataset& data, const Dense<double>& targets) {
  if (targets.ndim() != 2 || targets.shape(0) != data.rows() || targets.shape(1) < 1) {
    throw DataError(fmt::format("y must have one row per sample of X ({}), got {} rows",
                                data.rows(), targets.ndim() >= 1 ? targets.shape(0) : 0));
  }
  const auto q = targets.shape(1);
  data.target_kind = TargetKind::Real;
  data.targets.resize(targets.shape(0), q);
  std::copy(targets.data(), targets.data() + targets.size(), data.targets.data());
  data.target_names.clear();
  for (py::ssize_t j = 0; j < q; ++j) {
    data.target_names.push_back(q == 1 ? "y" : fmt::format("y{}", j));
  }
}

// TopKSelector.fit: the Python layer has validated X and encoded y
// (class codes 0..C-1 with their names, or real values n x q).
// sample_weight (float64, one per row, or None) and class_weight
// ("balanced", {class name: weight}, or None), as the Python face checked
// their shapes; the values are checked here (data/sample_weights.hpp).
void set_weights(Dataset& data, const py::object& sample_weight, const py::object& class_weight) {
  if (!sample_weight.is_none()) {
    const auto weights = sample_weight.cast<std::vector<double>>();
    apply_sample_weights(data, weights, "sample_weight");
  }
  if (class_weight.is_none()) return;
  if (py::isinstance<py::str>(class_weight)) {
    data.class_weight.balanced = class_weight.cast<std::string>() == "balanced";
    return;
  }
  data.class_weight.per_class.assign(data.class_names.size(), 1.0);
  for (const auto& [name, value] : class_weight.cast<std::map<std::string, double>>()) {
    const auto at = std::find(data.class_names.begin(), data.class_names.end(), name);
    TOPKFS_ASSERT(at != data.class_names.end());
    if (!std::isfinite(value) || value < 0) {
      throw DataError(
          fmt::format("class_weight: class '{}' weighs {}; a class weight is a finite number >= 0",
                      name, value));
    }
    data.class_weight.per_class[static_cast<std::size_t>(at - data.class_names.begin())] = value;
  }
}

py::dict fit_arrays(const py::array& X, const std::string& method, int k, const py::dict& options,
                    const py::object& labels, const std::vector<std::string>& class_names,
                    const py::object& targets, const std::vector<std::string>& feature_names,
                    const std::vector<std::vector<std::string>>& column_levels,
                    const std::vector<std::optional<std::string>>& group_labels, bool verbose,
                    const std::string& checkpoint, int checkpoint_every, bool resume,
                    const py::dict& choosing, const py::object& sample_weight,
                    const py::object& class_weight) {
  // k = 0: k="auto"; method "auto": --method auto (evaluation/auto_selection.hpp).
  const bool automatic = method == "auto" || k == 0;
  std::unique_ptr<Selector> selector;
  CheckpointSettings checkpointing;
  if (automatic && !checkpoint.empty()) {
    throw OptionError(
        "checkpoint is for one method with a fixed k; k='auto' and method='auto' fit several");
  }
  if (!automatic) {
    python_candidate_names(method, choosing);  // candidates without method="auto" are refused
    selector = configured_selector(method, options);
  }
  if (!checkpoint.empty()) {
    checkpointing = checkpoint_settings(*selector, k, checkpoint, checkpoint_every, resume);
  }
  Dataset data;
  data.source = "X";
  data.format = "numpy";
  read_features(X, data);
  set_column_levels(data, column_levels);
  if (!labels.is_none()) {
    set_classes(data, labels.cast<Dense<std::int32_t>>(), class_names);
  } else if (!targets.is_none()) {
    set_targets(data, targets.cast<Dense<double>>());
  } else {
    throw DataError("supervised selection needs y");
  }
  data.feature_names = feature_names;
  name_unnamed_features(data);
  if (!group_labels.empty()) apply_feature_groups(data, groups_from_labels(group_labels, data));
  set_weights(data, sample_weight, class_weight);
  data.validate();
  if (automatic) return run_automatic(data, method, k, options, choosing, verbose);
  SelectionSplitOptions every_row;
  every_row.rows = SelectionRows::All;
  return run(data, *selector, k, every_row, verbose, checkpointing);
}

// `topkfs select PATH --method M --k K [options] [reader flags] --split S
// [--checkpoint FILE --checkpoint-every N --resume]`: the library's pipeline
// from a file (select/file_selection.hpp) that the command runs, HDF5 read
// by row blocks for the methods that read by rows, k in the command's forms.
py::dict select_file(const std::string& path, const std::string& method, const std::string& k,
                     const py::dict& options, const py::dict& reader_options,
                     const std::string& split, double test_size, std::uint64_t split_seed,
                     bool verbose, const std::string& checkpoint, int checkpoint_every,
                     bool resume) {
  auto selector = configured_selector(method, options);
  FileSelectionRequest request;
  request.path = path;
  request.read = read_options_from(path, reader_options, ReadPurpose::Select);
  request.image_shape = image_shape_option(reader_options);
  request.selector = selector.get();
  request.k = k;
  request.split.rows = parse_selection_rows(split);
  request.split.test_size = test_size;
  request.split.seed = split_seed;
  request.checkpoint = checkpoint;
  request.checkpoint_every = checkpoint_every;
  request.resume = resume;
  PythonReporter reporter(verbose);
  request.callbacks = reporter.callbacks();
  FileSelection selection;
  {
    // Reading a large file takes seconds, fitting longer: other Python
    // threads run meanwhile (the reporter takes the GIL when it needs it).
    py::gil_scoped_release release;
    selection = select_from_file(request);
  }
  return result_dict(selection.result, reporter);
}

py::list methods() {
  py::list out;
  for (const auto& method : registered_methods()) {
    const auto selector = method.make();
    const nlohmann::json values = selector->options_json();
    py::list options;
    for (const auto& info : selector->describe_options()) {
      py::dict option;
      option["name"] = info.name;
      option["help"] = for_python(info.help);
      option["default"] = values.contains(info.name) ? to_python(values.at(info.name)) : py::none();
      option["default_text"] = info.default_text;
      option["is_flag"] = info.is_flag;
      option["choices"] = info.choices;
      options.append(option);
    }
    py::dict entry;
    entry["name"] = method.name;
    entry["summary"] = method.summary;
    entry["options"] = options;
    out.append(entry);
  }
  return out;
}

}  // namespace

void bind_selection(py::module_& module) {
  module.def("methods", &methods, "Every registered method with its options and defaults.");
  module.def(
      "fit_arrays", &fit_arrays, py::arg("X"), py::arg("method"), py::arg("k"), py::arg("options"),
      py::arg("labels"), py::arg("class_names"), py::arg("targets"), py::arg("feature_names"),
      py::arg("column_levels") = std::vector<std::vector<std::string>>{},
      py::arg("group_labels") = std::vector<std::optional<std::string>>{},
      py::arg("verbose") = false, py::arg("checkpoint") = "", py::arg("checkpoint_every") = 1,
      py::arg("resume") = false, py::arg("choosing") = py::dict(),
      py::arg("sample_weight") = py::none(), py::arg("class_weight") = py::none(),
      "Fits a method on arrays (TopKSelector.fit); returns the result as a dict. With a "
      "checkpoint path, the training state is written there (and resumed from it with "
      "resume).");
  module.def("select_file", &select_file, py::arg("path"), py::arg("method"), py::arg("k"),
             py::arg("options"), py::arg("reader_options"), py::arg("split") = "auto",
             py::arg("test_size") = 0.2, py::arg("split_seed") = 0, py::arg("verbose") = false,
             py::arg("checkpoint") = "", py::arg("checkpoint_every") = 1, py::arg("resume") = false,
             "Runs a selection on a data file as `topkfs select` does (k as its text: 12 or "
             "10%); returns the result. With a checkpoint path, the training state is written "
             "there (and resumed from it with resume).");
}

}  // namespace topkfs::python
