#pragma once
// Every feature-selection method is a Selector: options in, fit(Dataset) out to
// a SelectionResult. The CLI and the Python package reach each one by name
// through the registry (methods/registry.hpp).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topkfs/core/callbacks.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs {

// The k check of every fit: throws OptionError unless 1 <= k <= columns,
// naming --k and `source` (the data's file, or "the data").
void check_k(int k, std::int64_t columns, const std::string& source);
inline void check_k(const Dataset& data, int k) { check_k(k, data.cols(), data.source); }

// --k as given: a whole number from 1, or a percentage of `count` (the
// columns, or the groups of grouped data) such as "10%", rounded to the
// nearest whole number and at least 1 (as scikit-learn's SelectPercentile
// keeps a share). Throws OptionError naming --k (and `source` when k
// exceeds `count`).
int parse_k(const std::string& text, std::int64_t count, const std::string& source);
// The form of --k alone, before the data is read: throws as parse_k does for
// text that is neither.
void check_k_text(const std::string& text);

// How a method's column scores add up to the score of a group of columns
// (a categorical column's one-hot columns, a column and its missing
// indicator: docs/algorithms.md, "Groups"). Norm: the Euclidean norm of the
// group's scores, for scores that are weight magnitudes (|w| of the one-to-one
// layer, of a linear model's coefficients), as group lasso measures a group.
// Sum: the sum, for scores that are shares of a total (impurity importance).
// Shared: every column of a group carries the group's own score (one gate or
// one selection probability per group, as stg, concrete and fir train on
// groups), which is the group score.
enum class GroupScore { Norm, Sum, Shared };

class Selector {
 public:
  virtual ~Selector() = default;

  virtual std::string name() const = 0;
  // Sets one option from text (a CLI flag's value, a Python keyword's str()).
  virtual void set_option(const std::string& name, const std::string& value) = 0;
  virtual bool has_option(const std::string& name) const = 0;
  virtual std::vector<OptionInfo> describe_options() const = 0;
  virtual nlohmann::json options_json() const = 0;
  // Throws OptionError naming the offending option; fit() checks too, but a
  // caller can fail fast before reading any data.
  virtual void check_options() const = 0;

  // Learns from rows `rows` of `data` only (the training part; the caller
  // keeps test rows out) and returns exactly k features. Rows are passed as
  // indices so that a large dataset is never copied for a split. Throws
  // OptionError for k outside 1..columns, DataError for a target the method
  // cannot use.
  virtual SelectionResult fit(const Dataset& data, const std::vector<std::int64_t>& rows, int k,
                              const FitCallbacks& callbacks) = 0;

  // Saves the model trained by the last fit (atomically). Methods without a
  // model worth saving throw OptionError.
  virtual void save_model(const std::string& path) const;

  // False when training ignores k and the selection for k is the first k of
  // one ranking (random-forest importance, DFS): `topkfs evaluate` then fits
  // once per split and reads every k from that ranking.
  virtual bool ranking_depends_on_k() const { return true; }

  // Told, before its fits, that the selections of every k from `smallest`
  // to `largest` will be read from them (`evaluate` over several k, `--k
  // auto`'s validation curve): a method that can train one ranking for all
  // of them (dnn-top: docs/algorithms.md, "One training for every k") then
  // does, and ranking_depends_on_k() says so. A fit for a k of its own
  // follows.
  virtual void serve_ks(int smallest, int largest) {
    (void)smallest;
    (void)largest;
  }

  // How the selection of whole groups combines this method's column scores.
  virtual GroupScore group_score() const { return GroupScore::Norm; }
  // True when fit() on data with column groups (Dataset::column_group)
  // takes k as a number of groups and keeps or drops each group whole in
  // its training (dnn-top's mask); otherwise select/group_selection.hpp
  // fits it on a number of columns and ranks the groups afterwards.
  virtual bool selects_groups() const { return false; }

  // True when fit() honours FitCallbacks::checkpoint with these options: it
  // writes training checkpoints and resumes from them exactly (dnn-top and
  // dfs with one restart).
  virtual bool resumable() const { return false; }

  // True when fit() reads the feature rows through RowSource (minibatches
  // gathered by index, statistics in one pass), so that mapped data is never
  // loaded whole: the neural methods. The others work on the whole matrix,
  // and run_selection says so (or refuses, with an estimate) when the data is
  // mapped from a file.
  virtual bool streams_rows() const { return false; }
  // True when fit() trains data-parallel over FitCallbacks::ranks (the
  // neural methods, and the linear ones for real targets); a fit of another
  // method must not be given ranks.
  virtual bool data_parallel() const { return false; }
};

// The common part of a selector whose options live in a struct with a table.
template <typename Options>
class TableSelector : public Selector {
 public:
  explicit TableSelector(const OptionTable<Options>& table) : table_(table) {}

  void set_option(const std::string& name, const std::string& value) override {
    table_.set(options_, name, value);
  }
  bool has_option(const std::string& name) const override { return table_.has(name); }
  std::vector<OptionInfo> describe_options() const override { return table_.describe(); }
  nlohmann::json options_json() const override { return table_.to_json(options_); }
  void check_options() const override { options_.validate(); }

  Options& options() { return options_; }
  const Options& options() const { return options_; }

 protected:
  const OptionTable<Options>& table_;
  Options options_;
};

}  // namespace topkfs
