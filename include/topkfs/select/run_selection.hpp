#pragma once
// Running a selector on a dataset the way `topkfs select` and the Python
// package do: choose the rows it may learn from, fit, and describe the data in
// the result.
#include <cstdint>
#include <optional>
#include <string>

#include "topkfs/data/dataset.hpp"
#include "topkfs/data/splits.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

enum class SelectionRows {
  Auto,        // the predefined training split where there is one, else every row
  Predefined,  // the predefined training split (error when there is none)
  Random,      // a stratified random split; learn from its training part
  All,         // every row
};

SelectionRows parse_selection_rows(const std::string& name);  // auto|predefined|random|all

struct SelectionSplitOptions {
  SelectionRows rows = SelectionRows::Auto;
  double test_size = 0.2;  // for Random
  std::uint64_t seed = 0;  // for Random
};

// The rows a selector learns from, and a note saying which they are.
std::vector<std::int64_t> selection_rows(const Dataset& data, const SelectionSplitOptions& split,
                                         std::string& note);

// Training checkpoints for a fit of `selector` with `k` (FitCallbacks::
// checkpoint): written to `path` every `every` epochs; with `resume`, the fit
// continues from `path` when it exists. The run's identity, which a resumed
// fit must match, is the method, its options and k; the thread count is left
// out, as the training records the team size it runs with (a team of another
// size gives other numbers). Throws OptionError when the method cannot
// resume with these options (Selector::resumable()) or `every` is below 1.
CheckpointSettings checkpoint_settings(const Selector& selector, int k, const std::string& path,
                                       int every, bool resume);

// selector.fit(data, rows, k, callbacks), with a DataError about the rows
// it learns from (too few rows, a class none of them has) naming the data's
// source: the methods see rows, not files, and their messages named none.
SelectionResult fit_on_rows(Selector& selector, const Dataset& data,
                            const std::vector<std::int64_t>& rows, int k,
                            const FitCallbacks& callbacks);

// fit_on_rows on the table `data` as read: when it holds categorical columns
// or missing cells (needs_encoding), the encoding is learned from `rows`
// only, the method fitted on the encoded table and k columns of the table
// selected whole (group_selection.hpp); the result then holds the encoding.
// When `data` has groups of columns (Dataset::column_group: --groups), k
// counts them, and the result holds them too.
SelectionResult fit_table(Selector& selector, const Dataset& data,
                          const std::vector<std::int64_t>& rows, int k,
                          const FitCallbacks& callbacks);

// The table as the methods are fitted on it by fit_table: encoded by
// `encoding` when given, its columns grouped by the data's own groups (or,
// without them, by the table column each encoded column came from). Without
// an encoding, `data` must have groups.
Dataset table_for_methods(const Dataset& data, const std::optional<TableEncoding>& encoding);

// The columns of the table for the methods (table_for_methods) that hold
// `result`'s selection.
std::vector<std::int64_t> method_columns(const SelectionResult& result);

// What run_selection adds to a fit's result: the note on the `rows` rows
// learned from (selection_rows' note), the data description and the split.
void describe_selection(SelectionResult& result, const Dataset& data, std::size_t rows,
                        const SelectionSplitOptions& split, const std::string& rows_note);

// Fits `selector` on the rows chosen by `split` and fills the result's data
// description and notes. `learned_rows`, when given, receives those rows
// (what a score on the other rows needs).
SelectionResult run_selection(const Dataset& data, Selector& selector, int k,
                              const SelectionSplitOptions& split, const FitCallbacks& callbacks,
                              std::vector<std::int64_t>* learned_rows = nullptr);

}  // namespace topkfs
