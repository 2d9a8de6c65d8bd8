// The evaluation grid: for each run (seed) the rows to learn from and to test
// on, for each method one fit per k (or one fit whose ranking serves every k),
// and the protocol's score of each selection.
#include "topkfs/evaluation/evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/thread_settings.hpp"
#include "topkfs/core/utc_timestamp.hpp"
#include "topkfs/data/feature_groups.hpp"
#include "topkfs/data/table_encoding.hpp"
#include "topkfs/evaluation/auto_selection.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/scoring/detection.hpp"
#include "topkfs/scoring/downstream.hpp"
#include "topkfs/scoring/metrics.hpp"
#include "topkfs/select/group_selection.hpp"
#include "topkfs/select/run_selection.hpp"
#include "topkfs/version.hpp"

namespace topkfs {
namespace {

constexpr const char* kAutoMethod = "auto";

bool is_auto(const std::string& method) { return method == kAutoMethod; }

// The names whose options `method` takes: --method auto's candidates, or itself.
std::vector<std::string> option_owners(const std::string& method,
                                       const EvaluationOptions& options) {
  return candidate_names(method,
                         is_auto(method) ? options.auto_candidates : std::vector<std::string>{});
}

// --method auto's candidates for one run: the user's options that one of
// them has (the others are for the other listed methods), then the run's seed.
std::vector<SelectorFactory> auto_candidates(const EvaluationOptions& options, std::uint64_t seed) {
  std::vector<std::pair<std::string, std::string>> given;
  const std::vector<std::string> candidates = option_owners(kAutoMethod, options);
  for (const auto& [name, value] : options.method_options) {
    if (std::any_of(candidates.begin(), candidates.end(), [&, &option = name](const auto& method) {
          return make_selector(method)->has_option(option);
        })) {
      given.emplace_back(name, value);
    }
  }
  given.emplace_back("seed", std::to_string(options.model_seed.value_or(seed)));
  return candidate_factories(candidates, given);
}

// The downstream model of run seed `seed`: the protocol's scores and
// --method auto's validation use the same.
DownstreamOptions downstream_options(const EvaluationOptions& options, std::uint64_t seed) {
  DownstreamOptions downstream;
  downstream.trees = options.downstream_trees;
  downstream.seed = seed;
  downstream.threads = options.threads;
  return downstream;
}

// A fresh selector for one run: the user's options, then the run's seed.
std::unique_ptr<Selector> make_configured(const std::string& method,
                                          const EvaluationOptions& options, std::uint64_t seed) {
  auto selector = make_selector(method);
  for (const auto& [name, value] : options.method_options) {
    if (selector->has_option(name)) selector->set_option(name, value);
  }
  const std::uint64_t method_seed = options.model_seed.value_or(seed);
  if (selector->has_option("seed")) selector->set_option("seed", std::to_string(method_seed));
  selector->check_options();
  return selector;
}

// Every given method option must belong to at least one listed method.
void check_method_options(const EvaluationOptions& options) {
  for (const auto& [name, value] : options.method_options) {
    bool used = false;
    for (const auto& method : options.methods) {
      for (const auto& owner : option_owners(method, options))
        used = used || make_selector(owner)->has_option(name);
    }
    if (!used) {
      throw OptionError(fmt::format("{} does not apply to any of the methods {}", option_ref(name),
                                    fmt::join(options.methods, ", ")));
    }
  }
}

// The rows one run learns from and tests on, and the data it selects from.
struct RunData {
  const Dataset* data = nullptr;
  std::vector<std::int64_t> train;
  std::vector<std::int64_t> test;
  std::unique_ptr<DetectionData> detection;  // detection protocol only
  // A table with categorical columns or missing cells: encoded as learned
  // from this run's training rows (data/table_encoding.hpp), and its columns
  // grouped (table_for_methods); selections are then of groups, as also when
  // the data has groups of its own (--groups).
  std::optional<TableEncoding> encoding;
  std::unique_ptr<Dataset> encoded;
  std::optional<FeatureGroups> groups;

  const Dataset& for_methods() const { return encoded ? *encoded : *data; }
  bool grouped() const { return encoding || groups; }
  // The columns of for_methods() that hold the selected groups or columns.
  std::vector<std::int64_t> method_columns(const std::vector<std::int64_t>& selected) const {
    const auto columns = groups ? groups->columns_of(selected) : selected;
    return encoding ? encoding->encoded_columns_of(columns) : columns;
  }
};

std::vector<std::int64_t> all_rows(std::int64_t n) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
  return rows;
}

RunData prepare_run(const Dataset& data, Protocol protocol, const EvaluationOptions& options,
                    std::uint64_t seed) {
  RunData run;
  if (protocol == Protocol::Detection) {
    if (!data.column_group.empty() || needs_encoding(data)) {
      throw OptionError(
          fmt::format("{} appends noise copies of numeric columns; {} has groups, categorical "
                      "columns or missing cells, which it does not take",
                      option_ref("protocol", "detection"), data.source));
    }
    run.detection = std::make_unique<DetectionData>(make_detection_data(data, seed));
    run.data = &run.detection->data;
    run.train = all_rows(data.rows());
    return run;
  }
  // Stability compares selections across different training sets: always random splits.
  const SplitMode mode = protocol == Protocol::Stability ? SplitMode::Random : options.split;
  Split split = resolve_split(data, mode, options.test_size, seed);
  run.data = &data;
  run.train = std::move(split.train);
  run.test = std::move(split.test);
  if (needs_encoding(data)) {
    run.encoding = learn_encoding(data, run.train);
    run.encoded = std::make_unique<Dataset>(table_for_methods(data, run.encoding));
  }
  if (!data.column_group.empty()) run.groups = feature_groups_of(data);
  return run;
}

std::string split_note(const Dataset& data, Protocol protocol, const EvaluationOptions& options,
                       const RunData& first) {
  if (protocol == Protocol::Detection) {
    return fmt::format("selection from all {} rows with {} noise columns appended (seeded per run)",
                       data.rows(), data.cols());
  }
  if (protocol == Protocol::Stability) {
    return fmt::format("a random{} split per run (test size {}): selections from {} training rows",
                       data.target_kind == TargetKind::Classes ? " stratified" : "",
                       options.test_size, first.train.size());
  }
  const bool predefined = protocol != Protocol::Stability &&
                          options.split == SplitMode::Predefined && data.predefined_split;
  return fmt::format("{}: learned from {} training rows, scored on {} test rows",
                     predefined
                         ? "the data's predefined split"
                         : fmt::format("a random{} split per run (test size {})",
                                       data.target_kind == TargetKind::Classes ? " stratified" : "",
                                       options.test_size),
                     first.train.size(), first.test.size());
}

struct Scored {
  double score = std::nan("");
  std::optional<double> rmse;
};

Scored score_selection(Protocol protocol, const RunData& run,
                       const std::vector<std::int64_t>& selected, const EvaluationOptions& options,
                       std::uint64_t seed) {
  Scored scored;
  if (protocol == Protocol::Detection) {
    scored.score = detection_f1(*run.detection, selected);
  } else if (protocol == Protocol::Accuracy || protocol == Protocol::Mae) {
    const DownstreamOptions downstream = downstream_options(options, seed);
    const DownstreamScore s = score_downstream(run.for_methods(), run.train, run.test,
                                               run.method_columns(selected), downstream);
    if (protocol == Protocol::Accuracy) {
      scored.score = s.accuracy;
    } else {
      scored.score = s.mae;
      scored.rmse = s.rmse;
    }
  }
  return scored;
}

class GridRunner {
 public:
  GridRunner(const Dataset& data, const EvaluationOptions& options, Protocol protocol,
             const EvaluationCallbacks& callbacks, EvaluationReport& report)
      : data_(data),
        options_(options),
        protocol_(protocol),
        callbacks_(callbacks),
        report_(report) {}

  std::string scaling_of(const std::string& method) const {
    const auto it = scaling_.find(method);
    return it == scaling_.end() ? std::string() : it->second;
  }

  void run_all() {
    const int seeds = options_.seed_count();
    total_fits_ = 0;
    for (const auto& method : options_.methods) {
      const auto ks = static_cast<int>(report_.ks.size());
      const auto chosen =
          static_cast<int>(std::count(report_.ks.begin(), report_.ks.end(), kAutoK));
      const bool per_k =
          is_auto(method) || configured_for_fixed_ks(method, options_.seed)->ranking_depends_on_k();
      // A chosen k is one step (its validation fits inside); the fixed k
      // share one fit when the ranking ignores k.
      total_fits_ += seeds * (per_k ? ks : chosen + (ks > chosen ? 1 : 0));
    }
    for (int s = 0; s < seeds; ++s) {
      const std::uint64_t seed = options_.seed + static_cast<std::uint64_t>(s);
      const RunData run = prepare_run(data_, protocol_, options_, seed);
      if (s == 0) report_.split_note = split_note(data_, protocol_, options_, run);
      for (const auto& method : options_.methods) run_method(method, s, seed, run);
    }
  }

 private:
  void announce(const std::string& method, int k, int run) {
    if (!callbacks_.step) return;
    callbacks_.step({fits_done_, total_fits_, method, k, run, seconds_since(start_)});
  }

  SelectionResult fit(Selector& selector, const RunData& run, int k) {
    SelectionResult result =
        run.grouped() ? fit_groups(selector, run.for_methods(), run.train, k, callbacks_.fit)
                      : fit_on_rows(selector, *run.data, run.train, k, callbacks_.fit);
    note_scaling(selector.name(), result);
    for (const auto& warning : result.warnings) {
      callbacks_.fit.warn(fmt::format("{} k={}: {}", selector.name(), k, warning));
    }
    ++fits_done_;
    return result;
  }

  // The scaling a method's fits used, for its summary (the same in every fit
  // of a report: the data and the options are).
  void note_scaling(const std::string& method, const SelectionResult& result) {
    const auto used = result.options.find("scaling_used");
    if (used != result.options.end() && used->is_string())
      scaling_[method] = used->get<std::string>();
  }

  void record(const std::string& method, int k, int s, std::uint64_t seed, const RunData& run,
              std::vector<std::int64_t> selected, double fit_seconds, bool shared) {
    EvaluationRun entry;
    entry.method = method;
    entry.k = k;
    entry.run = s;
    entry.seed = seed;
    entry.fit_seconds = fit_seconds;
    entry.shared_fit = shared;
    const auto start = Clock::now();
    const Scored scored = score_selection(protocol_, run, selected, options_, seed);
    entry.score_seconds = seconds_since(start);
    entry.score = scored.score;
    entry.rmse = scored.rmse;
    entry.selected =
        run.detection ? unshuffled_columns(*run.detection, selected) : std::move(selected);
    report_.runs.push_back(std::move(entry));
  }

  // A selection chosen on this run's training rows by validation fits
  // (run_auto_selection, which also encodes a mixed table per fit): the
  // method among `candidates` (--method auto) and, for k == kAutoK, k.
  void choose_and_record(const std::string& method, const std::vector<SelectorFactory>& candidates,
                         int k, int s, std::uint64_t seed, const RunData& run) {
    AutoOptions automatic;
    automatic.auto_k = k == kAutoK;
    automatic.k = k;
    automatic.k_max = options_.k_max;
    automatic.folds = options_.k_folds;
    automatic.rule = options_.k_rule;
    automatic.seed = options_.model_seed.value_or(seed);
    automatic.downstream = downstream_options(options_, seed);
    announce(method, k, s);
    const auto start = Clock::now();
    SelectionResult result =
        run_auto_selection(*run.data, candidates, run.train, automatic, callbacks_.fit);
    ++fits_done_;
    for (const auto& warning : result.warnings) {
      callbacks_.fit.warn(fmt::format("{} k={}: {}", method, k_label(k), warning));
    }
    record(method, k, s, seed, run, std::move(result.selected), seconds_since(start), false);
    if (is_auto(method)) report_.runs.back().chosen_method = result.method;
    report_.runs.back().automatic = std::move(result.automatic);
    if (k == kAutoK) report_.runs.back().chosen_k = result.k;
  }

  void run_method(const std::string& method, int s, std::uint64_t seed, const RunData& run) {
    if (is_auto(method)) {
      const std::vector<SelectorFactory> candidates = auto_candidates(options_, seed);
      for (const int k : report_.ks) choose_and_record(method, candidates, k, s, seed, run);
      return;
    }
    std::vector<int> fixed;
    for (const int k : report_.ks) {
      if (k == kAutoK) {
        const std::vector<SelectorFactory> self = {
            [&, seed] { return make_configured(method, options_, seed); }};
        choose_and_record(method, self, k, s, seed, run);
      } else {
        fixed.push_back(k);
      }
    }
    if (fixed.empty()) return;
    auto selector = configured_for_fixed_ks(method, seed);
    if (!selector->ranking_depends_on_k()) {
      const int largest = *std::max_element(fixed.begin(), fixed.end());
      announce(method, -1, s);
      const auto start = Clock::now();
      const SelectionResult result = fit(*selector, run, largest);
      const double seconds = seconds_since(start);
      for (const int k : fixed) {
        std::vector<std::int64_t> prefix(result.ranking.begin(), result.ranking.begin() + k);
        record(method, k, s, seed, run, std::move(prefix), seconds, true);
      }
      return;
    }
    for (const int k : fixed) {
      announce(method, k, s);
      const auto start = Clock::now();
      SelectionResult result = fit(*selector, run, k);
      record(method, k, s, seed, run, std::move(result.selected), seconds_since(start), false);
    }
  }

  // The method configured for the report's fixed k, each of which its fits
  // serve (Selector::serve_ks).
  std::unique_ptr<Selector> configured_for_fixed_ks(const std::string& method,
                                                    std::uint64_t seed) const {
    auto selector = make_configured(method, options_, seed);
    std::vector<int> fixed;
    for (const int k : report_.ks) {
      if (k != kAutoK) fixed.push_back(k);
    }
    if (!fixed.empty()) {
      selector->serve_ks(*std::min_element(fixed.begin(), fixed.end()),
                         *std::max_element(fixed.begin(), fixed.end()));
    }
    return selector;
  }

  const Dataset& data_;
  const EvaluationOptions& options_;
  Protocol protocol_;
  const EvaluationCallbacks& callbacks_;
  EvaluationReport& report_;
  std::map<std::string, std::string> scaling_;  // method -> its fits' scaling_used
  int fits_done_ = 0;
  int total_fits_ = 0;
  Clock::time_point start_ = Clock::now();
};

std::vector<std::vector<std::int64_t>> selections_of(const EvaluationReport& report,
                                                     const std::string& method, int k) {
  std::vector<std::vector<std::int64_t>> sets;
  for (const auto& run : report.runs) {
    if (run.method == method && run.k == k) sets.push_back(run.selected);
  }
  return sets;
}

std::vector<double> frequencies(const std::vector<std::vector<std::int64_t>>& sets,
                                std::int64_t m) {
  std::vector<double> share(static_cast<std::size_t>(m), 0.0);
  for (const auto& set : sets) {
    for (const auto column : set) share[static_cast<std::size_t>(column)] += 1.0 / sets.size();
  }
  return share;
}

}  // namespace

MethodSummary summarise_method(const EvaluationReport& report, const std::string& method,
                               std::int64_t columns) {
  MethodSummary summary;
  summary.method = method;
  std::vector<double> all_scores;
  std::set<std::pair<int, int>> counted_fits;  // (run, k or 0 for a shared fit)
  std::vector<double> jaccards, kunchevas;
  for (const int k : report.ks) {
    std::vector<double> scores;
    for (const auto& run : report.runs) {
      if (run.method != method || run.k != k) continue;
      scores.push_back(run.score);
      all_scores.push_back(run.score);
      if (counted_fits.insert({run.run, run.shared_fit ? 0 : k}).second) {
        summary.fit_seconds += run.fit_seconds;
      }
    }
    summary.per_k.push_back(summarise(scores));
    if (report.protocol == Protocol::Stability) {
      const auto sets = selections_of(report, method, k);
      summary.stability_per_k.push_back(
          {mean_pairwise_jaccard(sets), mean_pairwise_kuncheva(sets, columns)});
      jaccards.push_back(summary.stability_per_k.back().jaccard);
      kunchevas.push_back(summary.stability_per_k.back().kuncheva);
    }
  }
  summary.over_k = summarise(all_scores);
  if (report.protocol == Protocol::Stability) {
    summary.stability_over_k = {summarise(jaccards).mean, summarise(kunchevas).mean};
    const int largest = *std::max_element(report.ks.begin(), report.ks.end());
    summary.selection_frequency = frequencies(selections_of(report, method, largest), columns);
  }
  return summary;
}

namespace {

void describe_metric(EvaluationReport& report) {
  switch (report.protocol) {
    case Protocol::Accuracy: report.metric = "accuracy %"; break;
    case Protocol::Mae:
      report.metric = "MAE";
      report.higher_is_better = false;
      break;
    case Protocol::Detection: report.metric = "F1 %"; break;
    default: report.metric = "Kuncheva index"; break;
  }
}

}  // namespace

EvaluationReport evaluate_methods(const Dataset& data, const EvaluationOptions& options,
                                  const EvaluationCallbacks& callbacks) {
  const auto start = Clock::now();
  // The fits and the downstream models set the thread counts; put back after.
  const ThreadSettingsScope thread_settings;
  options.validate();
  EvaluationReport report;
  report.topkfs_version = kVersion;
  report.started_utc = utc_timestamp(std::chrono::system_clock::now());
  report.data = {data.source, data.rows(), data.cols(), to_string(data.target_kind)};
  report.protocol = resolve_protocol(options.protocol, data);
  describe_metric(report);
  report.seeds = options.seed_count();
  check_method_options(options);
  for (const auto& method : options.methods) {
    if (is_auto(method)) {
      auto_candidates(options, options.seed);  // bad option values fail here
    } else {
      make_configured(method, options, options.seed);
    }
  }

  if (report.protocol == Protocol::Detection) {
    report.ks = {static_cast<int>(data.cols())};
    report.notes.push_back(
        fmt::format("detection: k = {} (the number of original columns) whatever {} says",
                    data.cols(), option_ref("k")));
  } else {
    report.ks = options.ks;
    std::sort(report.ks.begin(), report.ks.end());
    report.ks.erase(std::unique(report.ks.begin(), report.ks.end()), report.ks.end());
    if (report.ks.back() > data.cols()) {
      throw OptionError(fmt::format("{} is more than the {} columns of {}",
                                    option_ref("k", report.ks.back()), data.cols(), data.source));
    }
  }
  if (options.split == SplitMode::Predefined && !data.predefined_split &&
      report.protocol != Protocol::Detection) {
    report.notes.push_back("the data has no predefined split: each run uses a random split");
  }
  EvaluationOptions run_options = options;
  if (report.protocol == Protocol::Stability && !options.model_seed && !options.vary_model_seed) {
    run_options.model_seed = options.seed;
  }
  if (run_options.model_seed) {
    report.notes.push_back(fmt::format(
        "every run's method has seed {}{}: only the split changes", *run_options.model_seed,
        options.model_seed
            ? fmt::format(" ({})", option_ref("model-seed"))
            : fmt::format(" (stability; {} changes it too)", option_ref("vary-model-seed"))));
  } else if (report.protocol == Protocol::Stability) {
    report.notes.push_back(fmt::format("the split and the method's seed change together ({})",
                                       option_ref("vary-model-seed")));
  }

  GridRunner runner(data, run_options, report.protocol, callbacks, report);
  runner.run_all();
  // What the selections index: groups where the data has them (--groups).
  const std::int64_t columns =
      report.protocol == Protocol::Detection ? 2 * data.cols() : data.group_count();
  for (const auto& method : options.methods) {
    report.methods.push_back(summarise_method(report, method, columns));
    report.methods.back().scaling = runner.scaling_of(method);
  }
  report.wall_seconds = seconds_since(start);
  return report;
}

}  // namespace topkfs
