#pragma once
// The result every selection method returns and `topkfs select --output`
// writes as JSON (format documented in docs/result-format.md).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topkfs/data/feature_groups.hpp"
#include "topkfs/data/table_encoding.hpp"

namespace topkfs {

// One entry per epoch (neural methods) or sweep (coordinate descent).
struct EpochRecord {
  int epoch = 0;
  double loss = 0.0;
  std::optional<double> val_loss;
  double seconds = 0.0;  // wall time of this epoch alone
};

// Where the data came from, so a result can be traced and re-applied.
struct DataInfo {
  std::string path;
  std::string format;
  std::int64_t rows = 0;                   // rows the method learned from
  std::int64_t columns = 0;                // feature columns
  std::string target_kind;                 // "classes", "real" or "none"
  std::vector<std::string> feature_names;  // all columns, so transform can check them
};

// How a downstream model did on the selected columns (`select --score`): fitted
// on the rows the method learned from, scored on the held-out rows.
struct DownstreamResult {
  std::string model;   // e.g. "ExtraTrees, 50 trees"
  std::string metric;  // "accuracy %" or "MAE"
  double value = 0.0;
  std::optional<double> rmse;  // real targets
  std::int64_t train_rows = 0;
  std::int64_t test_rows = 0;
};

struct SelectionResult {
  std::string method;
  int k = 0;
  std::vector<std::int64_t> selected;  // 0-based columns, best first (ranking[0..k))
  std::vector<std::string> selected_names;
  std::vector<std::int64_t> ranking;  // every column, best first
  std::vector<double> scores;         // per column (index = column), higher is better
  // Per column: the fraction of a stability fit's runs whose top k held it
  // (dnn-top --restarts); empty for a single fit.
  std::vector<double> frequency;
  std::vector<EpochRecord> history;
  double fit_seconds = 0.0;
  nlohmann::json options = nlohmann::json::object();  // every option with its value
  DataInfo data;
  std::vector<std::string> notes;     // e.g. "learned from the predefined training split only"
  std::vector<std::string> warnings;  // e.g. non-convergence
  std::optional<DownstreamResult> downstream;
  // Set when the table was encoded for the method (categorical columns,
  // missing cells): what `transform`, `--score` and the pictures apply to
  // other rows. Indices above (selected, ranking, scores) are then of the
  // table's columns, each selected whole.
  std::optional<TableEncoding> encoding;
  // Set when the user grouped the table's columns (--groups, groups=):
  // indices above are then of these groups, and selected_columns() are the
  // table columns they hold.
  std::optional<FeatureGroups> groups;
  // Set by --k auto and --method auto (evaluation/auto_selection.hpp): the
  // candidates, their validation curves and the choice.
  std::optional<nlohmann::json> automatic;

  // The table columns selected: those of the selected groups, or selected.
  std::vector<std::int64_t> selected_columns() const {
    return groups ? groups->columns_of(selected) : selected;
  }
};

// Columns ordered by decreasing score; ties go to the lower index (the order
// of the top-k rule, select/top_k.hpp), NaN scores last. A non-empty
// `tie_break` (one value per column) orders equal scores by decreasing value
// first: the linear models rank their zero weights by how close each is to
// entering the model.
std::vector<std::int64_t> rank_by_score(const std::vector<double>& scores,
                                        const std::vector<double>& tie_break = {});

// Fills ranking, selected and selected_names of `result` from its scores
// (equal scores ordered by `tie_break` when given, as rank_by_score).
// Throws OptionError when k is not in 1..number of columns.
void finish_selection(SelectionResult& result, const std::vector<std::string>& feature_names,
                      const std::vector<double>& tie_break = {});

}  // namespace topkfs
