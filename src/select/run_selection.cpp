#include "topkfs/select/run_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "../io/memory_budget.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/rank_group.hpp"
#include "topkfs/core/thread_settings.hpp"
#include "topkfs/data/row_source.hpp"
#include "topkfs/data/table_encoding.hpp"
#include "topkfs/select/group_selection.hpp"

namespace topkfs {

SelectionRows parse_selection_rows(const std::string& name) {
  if (name == "auto") return SelectionRows::Auto;
  if (name == "predefined") return SelectionRows::Predefined;
  if (name == "random") return SelectionRows::Random;
  if (name == "all" || name == "none") return SelectionRows::All;
  throw OptionError(fmt::format("{} takes auto, predefined, random or none, not '{}'",
                                option_ref("split"), name));
}

CheckpointSettings checkpoint_settings(const Selector& selector, int k, const std::string& path,
                                       int every, bool resume) {
  if (!selector.resumable()) {
    throw OptionError(fmt::format(
        "{}: {} cannot write training checkpoints{}", option_ref("checkpoint"), selector.name(),
        selector.has_option("restarts") ? fmt::format(" with {} above 1", option_ref("restarts"))
                                        : " (dnn-top and dfs can)"));
  }
  if (every < 1)
    throw OptionError(
        fmt::format("{} must be at least 1, got {}", option_ref("checkpoint-every"), every));
  nlohmann::json options = selector.options_json();
  options.erase("threads");
  CheckpointSettings out;
  out.path = path;
  out.every = every;
  out.resume = resume;
  out.run = nlohmann::json{{"method", selector.name()}, {"options", options}, {"k", k}}.dump();
  return out;
}

std::vector<std::int64_t> selection_rows(const Dataset& data, const SelectionSplitOptions& split,
                                         std::string& note) {
  SelectionRows mode = split.rows;
  if (mode == SelectionRows::Auto) {
    mode = data.predefined_split ? SelectionRows::Predefined : SelectionRows::All;
  }
  switch (mode) {
    case SelectionRows::Predefined: {
      if (!data.predefined_split) {
        throw OptionError(fmt::format("{}: {} has no predefined split; use {} or none",
                                      option_ref("split", "predefined"), data.source,
                                      option_ref("split", "random")));
      }
      const auto& parts = *data.predefined_split;
      note = fmt::format(
          "learned from the predefined training split only ({} rows); its {} test rows were not "
          "seen",
          parts.train.size(), parts.test.size());
      return parts.train;
    }
    case SelectionRows::Random: {
      const Split parts = stratified_split(data, split.test_size, split.seed);
      note = fmt::format(
          "learned from a random stratified training split ({} rows, seed {}); {} test rows "
          "held out",
          parts.train.size(), split.seed, parts.test.size());
      return parts.train;
    }
    case SelectionRows::All:
    case SelectionRows::Auto: break;
  }
  std::vector<std::int64_t> all(static_cast<std::size_t>(data.rows()));
  std::iota(all.begin(), all.end(), 0);
  note = fmt::format("learned from all {} rows", data.rows());
  return all;
}

namespace {

// A method that works on the whole matrix reads every page of mapped data,
// so the matrix must fit in memory after all: said in a note, or refused
// with the estimate when it cannot fit (TOPKFS_MEMORY_LIMIT counts).
// A rank of a data-parallel fit (a linear method: docs/scale.md) reads its
// range of the rows only, and holds it as float64.
std::string whole_matrix_note(const Dataset& data, const Selector& selector,
                              const RankGroup* ranks) {
  if (data.feature_rows().storage() == RowStorage::InMemory || selector.streams_rows()) return "";
  const bool shard = ranks != nullptr && ranks->size() > 1 && selector.data_parallel();
  const RowShard range =
      shard ? row_shard(data.rows(), ranks->rank(), ranks->size()) : RowShard{0, data.rows()};
  const auto bytes = static_cast<std::uint64_t>(range.end - range.begin) *
                     static_cast<std::uint64_t>(data.cols()) *
                     (shard ? sizeof(double) : sizeof(float));
  const std::string what =
      shard ? fmt::format(
                  "{} works on the whole feature matrix, not by rows, so this rank reads its "
                  "range of the mapped file whole ({} x {} float64",
                  selector.name(), range.end - range.begin, data.cols())
            : fmt::format(
                  "{} works on the whole feature matrix, not by rows, so the mapped file is read "
                  "whole ({} x {} float32",
                  selector.name(), data.rows(), data.cols());
  detail::check_fits_in_memory(bytes, what + ")", data.source,
                               "use a neural method (dnn-top, dfs, concrete, stg, fir), which "
                               "reads mapped data by rows, or a machine with more memory");
  return fmt::format("{}, {:.2f} GB held in memory)", what, static_cast<double>(bytes) / 1e9);
}

// A real target with one value over the training rows leaves nothing to
// select for: every method would return k columns all the same.
void check_target_varies(const Dataset& data, const std::vector<std::int64_t>& rows) {
  if (data.target_kind != TargetKind::Real || rows.empty()) return;
  for (Eigen::Index o = 0; o < data.targets.cols(); ++o) {
    const double first = data.targets(rows.front(), o);
    for (auto row : rows) {
      if (data.targets(row, o) != first) return;
    }
  }
  throw DataError(fmt::format(
      "{}: the target is constant ({}) over the {} training rows: no feature can explain it",
      data.source, data.targets(rows.front(), 0), rows.size()));
}

// Columns with one value over the training rows carry nothing; their place
// in the ranking is arbitrary, so a selection that holds one says so.
void warn_constant_columns(const Dataset& data, const std::vector<std::int64_t>& rows,
                           SelectionResult& result) {
  if (data.row_blocks || data.features.storage() != RowStorage::InMemory || rows.empty()) return;
  std::vector<char> varies(static_cast<std::size_t>(data.cols()), 0);
  const auto first = data.features.row(rows.front());
  for (auto row : rows) {
    const auto values = data.features.row(row);
    for (Eigen::Index j = 0; j < data.cols(); ++j) {
      // NaN (a missing cell) against a number counts as varying.
      varies[static_cast<std::size_t>(j)] |= !(values[j] == first[j]);
    }
  }
  const auto constant = std::count(varies.begin(), varies.end(), 0);
  if (constant == 0) return;
  std::int64_t chosen = 0;
  for (auto column : result.selected_columns())
    chosen += varies[static_cast<std::size_t>(column)] ? 0 : 1;
  if (chosen == 0) {
    result.notes.push_back(
        fmt::format("{} of the {} columns are constant over the training rows (none selected)",
                    constant, data.cols()));
    return;
  }
  result.warnings.push_back(fmt::format(
      "{} of the {} columns are constant over the training rows, and {} of them were selected: "
      "they carry nothing (the data has fewer varying columns than k, or the method found too "
      "few)",
      constant, data.cols(), chosen));
}

// A fit whose losses or scores are not finite (a target of |y| ~ 1e155,
// whose squares overflow) must not end in a selection by column order and
// a result file with nulls: it is refused, with the target's scale.
void check_finite_result(const SelectionResult& result, const Dataset& data,
                         const std::vector<std::int64_t>& rows) {
  const auto bad_score = std::count_if(result.scores.begin(), result.scores.end(),
                                       [](double score) { return !std::isfinite(score); });
  const bool bad_loss =
      std::any_of(result.history.begin(), result.history.end(), [](const EpochRecord& record) {
        return !std::isfinite(record.loss) || (record.val_loss && !std::isfinite(*record.val_loss));
      });
  if (bad_score == 0 && !bad_loss) return;
  std::string scale;
  if (data.target_kind == TargetKind::Real) {
    double largest = 0.0;
    for (auto row : rows) largest = std::max(largest, data.targets.row(row).cwiseAbs().maxCoeff());
    scale = fmt::format(
        "; the target reaches |y| = {:.3g} on the training rows: divide it by a power of ten "
        "(the selection does not depend on the target's unit)",
        largest);
  }
  throw TrainingError(fmt::format(
      "{}: the fit ended with {} (values too large for double precision){}", result.method,
      bad_loss ? "a loss that is not finite"
               : fmt::format("{} of {} scores not finite", bad_score, result.scores.size()),
      scale));
}

}  // namespace

SelectionResult fit_on_rows(Selector& selector, const Dataset& data,
                            const std::vector<std::int64_t>& rows, int k,
                            const FitCallbacks& callbacks) {
  // The fit sets the process's thread counts for itself; they are put back.
  const ThreadSettingsScope thread_settings;
  try {
    check_target_varies(data, rows);
    SelectionResult result = selector.fit(data, rows, k, callbacks);
    check_finite_result(result, data, rows);
    warn_constant_columns(data, rows, result);
    return result;
  } catch (const DataError& error) {
    const std::string message = error.what();
    if (data.source.empty() || message.rfind(data.source + ":", 0) == 0) throw;
    throw DataError(fmt::format("{}: {}", data.source, message));
  }
}

Dataset table_for_methods(const Dataset& data, const std::optional<TableEncoding>& encoding) {
  if (!encoding) {
    TOPKFS_ASSERT(!data.column_group.empty());
    return data;
  }
  Dataset encoded = encode_table(data, *encoding);
  if (!data.column_group.empty()) {
    // Each encoded column joins the user's group of the table column it came from.
    for (auto& group : encoded.column_group) {
      group = data.column_group[static_cast<std::size_t>(group)];
    }
    encoded.group_names = data.group_names;
  }
  return encoded;
}

std::vector<std::int64_t> method_columns(const SelectionResult& result) {
  const std::vector<std::int64_t> columns = result.selected_columns();
  return result.encoding ? result.encoding->encoded_columns_of(columns) : columns;
}

SelectionResult fit_table(Selector& selector, const Dataset& data,
                          const std::vector<std::int64_t>& rows, int k,
                          const FitCallbacks& callbacks) {
  std::optional<TableEncoding> encoding;
  if (needs_encoding(data)) encoding = learn_encoding(data, rows);
  if (!encoding && data.column_group.empty()) {
    return fit_on_rows(selector, data, rows, k, callbacks);
  }
  // Grouped without an encoding: the data itself, not a copy.
  SelectionResult result =
      encoding ? fit_groups(selector, table_for_methods(data, encoding), rows, k, callbacks)
               : fit_groups(selector, data, rows, k, callbacks);
  if (encoding) {
    result.notes.insert(result.notes.begin(), encoding->summary());
    result.encoding = std::move(encoding);
  }
  if (!data.column_group.empty()) result.groups = feature_groups_of(data);
  return result;
}

SelectionResult run_selection(const Dataset& data, Selector& selector, int k,
                              const SelectionSplitOptions& split, const FitCallbacks& callbacks,
                              std::vector<std::int64_t>* learned_rows) {
  check_k(data, k);
  std::string note;
  auto rows = selection_rows(data, split, note);
  const std::string whole = whole_matrix_note(data, selector, callbacks.ranks);
  SelectionResult result = fit_table(selector, data, rows, k, callbacks);
  if (!whole.empty()) result.notes.insert(result.notes.begin(), whole);
  describe_selection(result, data, rows.size(), split, note);
  if (learned_rows) *learned_rows = std::move(rows);
  return result;
}

void describe_selection(SelectionResult& result, const Dataset& data, std::size_t rows,
                        const SelectionSplitOptions& split, const std::string& rows_note) {
  result.notes.insert(result.notes.begin(), rows_note);
  result.data.path = data.source;
  result.data.format = data.format;
  result.data.rows = static_cast<std::int64_t>(rows);
  result.data.columns = data.cols();
  result.data.target_kind = to_string(data.target_kind);
  result.data.feature_names = data.feature_names;
  result.options["split"] = split.rows == SelectionRows::Auto         ? "auto"
                            : split.rows == SelectionRows::Predefined ? "predefined"
                            : split.rows == SelectionRows::Random     ? "random"
                                                                      : "none";
  if (split.rows == SelectionRows::Random) {
    result.options["test_size"] = split.test_size;
    result.options["split_seed"] = split.seed;
  }
}

}  // namespace topkfs
