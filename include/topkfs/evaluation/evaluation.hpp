#pragma once
// `topkfs evaluate`: every method x k x seed of a grid, each selection made on
// the training rows only and judged by one of the paper's protocols
// (docs/method.md §3):
//  - accuracy:  ExtraTrees (50 trees) on the selected columns, test accuracy %;
//  - mae:       least squares on the selected columns, test MAE (and RMSE);
//  - detection: as many noise columns appended as there are columns, k = the
//               number of original columns, F1 % of the selection against them;
//  - stability: selections on 10 random splits, pairwise Jaccard and Kuncheva
//               index, and how often each feature was chosen.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topkfs/core/callbacks.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/data/splits.hpp"
#include "topkfs/evaluation/auto_selection.hpp"

namespace topkfs {

enum class Protocol { Auto, Accuracy, Mae, Detection, Stability };

const char* to_string(Protocol protocol);
// auto|accuracy|mae|detection|stability; throws OptionError listing them.
Protocol parse_protocol(const std::string& name);
// Auto resolved for `data`: accuracy for classes, mae for real targets.
Protocol resolve_protocol(Protocol protocol, const Dataset& data);

// An entry of EvaluationOptions::ks (`--k auto`): in every run, k chosen by
// the validation curve on that run's training rows (auto_selection.hpp).
constexpr int kAutoK = 0;

// "auto" for kAutoK, else the number.
std::string k_label(int k);

struct EvaluationOptions {
  // Registered method names, and "auto": in every run and for each k, the
  // method --method auto chooses on the run's training rows alone (its
  // candidates' validation fits there, auto_selection.hpp).
  std::vector<std::string> methods;
  // The methods "auto" chooses between (--candidates); empty: the default
  // candidates (auto_method_candidates()).
  std::vector<std::string> auto_candidates;
  std::vector<int> ks = {10, 20, 30, 40, 50};  // kAutoK: chosen per run
  // --k auto's grid end (0: the smaller of the columns and 100), validation
  // folds and rule.
  int k_max = 0;
  int k_folds = 0;
  KRule k_rule = KRule::OneStandardError;
  Protocol protocol = Protocol::Auto;
  // Runs per method and k. Unset: 1, or 10 for the stability protocol.
  std::optional<int> seeds;
  // Predefined: the data's own split where it has one (MNIST), else a random
  // stratified split per seed. Random: always a random split per seed.
  SplitMode split = SplitMode::Predefined;
  double test_size = 0.2;
  // Run s (0-based) uses seed + s for its split, the method and the trees.
  std::uint64_t seed = 0;
  // When set, every run's method takes this seed instead (the split and the
  // trees still change per run): how stable a selection is against the data
  // alone, as a user who keeps the default seed on new data sees it.
  std::optional<std::uint64_t> model_seed;
  // The stability protocol fixes the method's seed (to `seed`) unless this is
  // set or model_seed is given: its question is how the selection follows
  // the data (docs/results.md, "Stability"). Set, the seed changes with the
  // split as in the other protocols.
  bool vary_model_seed = false;
  int downstream_trees = 50;
  int threads = 0;  // downstream trees (0 = every core); methods take --threads themselves
  // Method options by name (as `topkfs select` takes them); each applies to
  // the listed methods that have it, and an option no listed method has is an
  // error.
  std::map<std::string, std::string> method_options;

  int seed_count() const;
  // Throws OptionError naming the offending field.
  void validate() const;
};

// One selection and its score.
struct EvaluationRun {
  std::string method;
  int k = 0;
  int run = 0;             // 0-based seed index
  std::uint64_t seed = 0;  // the seed used for the split, the method and the trees
  std::vector<std::int64_t> selected;
  double score = 0.0;          // accuracy %, MAE or F1 % (NaN for stability)
  std::optional<double> rmse;  // mae protocol
  double fit_seconds = 0.0;    // selection; shared by every k when the ranking ignores k
  double score_seconds = 0.0;  // downstream model
  bool shared_fit = false;     // read from one ranking fitted for the largest k
  // --method auto: the method it chose on this run's training rows
  // (evaluation/auto_selection.hpp); empty for a named method.
  std::string chosen_method;
  int chosen_k = 0;  // k == kAutoK: the k chosen on this run's training rows
  // A chosen method or k: every candidate's validation scores, per part and
  // over them, and the choice (SelectionResult::automatic).
  std::optional<nlohmann::json> automatic;
};

struct ScoreSummary {
  double mean = 0.0;
  double std = 0.0;  // population standard deviation (numpy's default)
  int count = 0;
};

ScoreSummary summarise(const std::vector<double>& values);

struct StabilitySummary {
  double jaccard = 0.0;   // mean over pairs of runs
  double kuncheva = 0.0;  // mean over pairs of runs
};

struct MethodSummary {
  std::string method;
  std::vector<ScoreSummary> per_k;                // in the order of EvaluationReport::ks
  ScoreSummary over_k;                            // of the per-run scores over every k and seed
  std::vector<StabilitySummary> stability_per_k;  // stability protocol
  StabilitySummary stability_over_k;
  // Stability: share of runs that selected each feature, at the largest k.
  std::vector<double> selection_frequency;
  double fit_seconds = 0.0;  // total selection time of the method
  // The input scaling the method's fits used (its result's `scaling_used`:
  // "standard", "none", "image", ...); empty for a method without one (the
  // trees, Inf-FS) and in reports written before it was recorded.
  std::string scaling;
};

// The data a report describes, so that a report read back stands alone.
struct ReportData {
  std::string path;
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::string target_kind;
};

struct EvaluationReport {
  ReportData data;
  Protocol protocol = Protocol::Accuracy;
  std::string metric;  // "accuracy %", "MAE", "F1 %", "Kuncheva index"
  bool higher_is_better = true;
  std::vector<int> ks;  // detection: the one k = number of original columns
  int seeds = 0;
  std::string split_note;  // which rows were learned from and tested on
  std::vector<EvaluationRun> runs;
  std::vector<MethodSummary> methods;
  std::vector<std::string> notes;
  double wall_seconds = 0.0;
  // Which build made the report and when it started (UTC, ISO 8601), so that
  // a report read later says what it measured; empty in reports written
  // before 2026-12-07.
  std::string topkfs_version;
  std::string started_utc;
};

// The summary of `method`'s runs in `report` (its per-k and over-k scores,
// fit time and, under the stability protocol, its stability and selection
// frequency over `columns` columns): what `evaluate` writes, and what a
// report read back is checked against.
MethodSummary summarise_method(const EvaluationReport& report, const std::string& method,
                               std::int64_t columns);

// Where the grid is, for a progress display.
struct GridStep {
  int done = 0;   // fits finished
  int total = 0;  // fits in the grid
  std::string method;
  int k = 0;  // -1 for a fit that serves every k; kAutoK: k chosen in the step
  int run = 0;
  double elapsed_seconds = 0.0;
};

struct EvaluationCallbacks {
  FitCallbacks fit;                           // passed to every selector
  std::function<void(const GridStep&)> step;  // before each fit
};

// Runs the grid. Bad options (unknown method or option, k outside
// 1..columns, a protocol that does not fit the target) throw OptionError
// before any fit starts.
EvaluationReport evaluate_methods(const Dataset& data, const EvaluationOptions& options,
                                  const EvaluationCallbacks& callbacks = {});

}  // namespace topkfs
