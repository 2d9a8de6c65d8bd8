#include "topkfs/io/target_encoding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "integer_labels.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/rank_group.hpp"

namespace topkfs {

std::string no_target_hint() {
  return fmt::format(" (data without a target, e.g. new data to transform, is read with {})",
                     option_ref("no-target"));
}
namespace {

bool parse_number(const std::string& text, double& value) {
  auto begin = text.data();
  auto end = text.data() + text.size();
  while (begin < end && (*begin == ' ' || *begin == '\t')) ++begin;
  while (end > begin && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) --end;
  if (begin < end && *begin == '+') ++begin;
  const auto result = std::from_chars(begin, end, value);
  return result.ec == std::errc() && result.ptr == end;
}

// Below kExactIntegerBound (which set_target_from_numbers ensures for
// classes) the cast is exact.
std::string integer_name(double value) { return fmt::format("{}", static_cast<long long>(value)); }

void set_classes(Dataset& data, const std::vector<std::string>& names_per_row,
                 const std::vector<std::string>& ordered_names, const std::string& name) {
  std::map<std::string, std::int32_t> code;
  for (std::size_t c = 0; c < ordered_names.size(); ++c) {
    code[ordered_names[c]] = static_cast<std::int32_t>(c);
  }
  data.target_kind = TargetKind::Classes;
  data.class_names = ordered_names;
  data.labels.resize(names_per_row.size());
  for (std::size_t i = 0; i < names_per_row.size(); ++i) {
    const auto found = code.find(names_per_row[i]);
    data.labels[i] = found == code.end() ? kMissingLabel : found->second;
  }
  data.target_names = {name};
}

// Classes from integer labels kept exact (integer_labels.hpp), ordered by
// value. False, leaving `data` alone, when a value is not an integer literal,
// when every label is within kExactIntegerBound (the numbers path is exact
// there), or when under TaskHint::Auto there are too many to be classes.
bool set_exact_integer_classes(Dataset& data, const std::vector<std::string>& values,
                               const std::string& name, const ReadOptions& options) {
  if (options.task == TaskHint::Regression) return false;
  std::map<__int128, std::string> distinct;
  std::vector<std::string> per_row(values.size());
  bool beyond = false;
  detail::IntegerLabel label;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!detail::parse_integer_label(values[i], label)) return false;
    const __int128 bound = static_cast<__int128>(detail::kExactIntegerBound);
    beyond = beyond || label.value >= bound || label.value <= -bound;
    distinct.emplace(label.value, label.text);
    per_row[i] = label.text;
  }
  if (!beyond) return false;
  if (options.task == TaskHint::Auto &&
      static_cast<int>(distinct.size()) > options.max_auto_classes) {
    return false;
  }
  std::vector<std::string> ordered;
  for (const auto& entry : distinct) ordered.push_back(entry.second);
  set_classes(data, per_row, ordered, name);
  return true;
}

}  // namespace

void set_target_from_text(Dataset& data, const std::vector<std::string>& values,
                          const std::string& name, const ReadOptions& options,
                          const std::string& where) {
  std::vector<double> numbers(values.size());
  std::size_t first_text = values.size();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!parse_number(values[i], numbers[i])) {
      first_text = i;
      break;
    }
  }
  if (first_text == values.size()) {
    if (set_exact_integer_classes(data, values, name, options)) return;
    set_target_from_numbers(data, numbers, 1, {name}, options, where);
    return;
  }
  if (options.task == TaskHint::Regression) {
    throw DataError(
        fmt::format("{}: target '{}' of sample {} is '{}', not a number, but {} was given", where,
                    name, first_text + 1, values[first_text], option_ref("task", "regression")));
  }
  std::vector<std::string> ordered = values;
  std::sort(ordered.begin(), ordered.end());
  ordered.erase(std::unique(ordered.begin(), ordered.end()), ordered.end());
  set_classes(data, values, ordered, name);
}

void set_target_from_numbers(Dataset& data, const std::vector<double>& values, int q,
                             const std::vector<std::string>& names, const ReadOptions& options,
                             const std::string& where) {
  TOPKFS_ASSERT(q >= 1 && values.size() % static_cast<std::size_t>(q) == 0);
  TOPKFS_ASSERT(names.size() == static_cast<std::size_t>(q));
  const auto n = static_cast<Eigen::Index>(values.size() / static_cast<std::size_t>(q));
  if (q > 1 && options.task == TaskHint::Classification) {
    throw OptionError(fmt::format("{}: {} needs one target column, {} were given", where,
                                  option_ref("task", "classification"), q));
  }
  bool integral = q == 1;
  std::map<double, std::int64_t> distinct;
  if (integral) {
    // A missing label (NaN) does not make a 0/1 target real-valued: it is
    // refused or dropped below, as the NaN policy says.
    for (double v : values) {
      if (std::isnan(v)) continue;
      if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) >= detail::kExactIntegerBound) {
        integral = false;
        break;
      }
      distinct[v] += 1;
      if (static_cast<int>(distinct.size()) > options.max_auto_classes &&
          options.task == TaskHint::Auto) {
        integral = false;
        break;
      }
    }
  }
  const bool as_classes =
      options.task == TaskHint::Classification || (options.task == TaskHint::Auto && integral);
  if (as_classes && detail::has_inexact_integers(values)) {
    double largest = 0;
    for (double v : values) {
      if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
    }
    throw DataError(
        fmt::format("{}: the class labels of '{}' reach {:.0f} in magnitude, beyond 2^53, where "
                    "labels read as numbers can merge (2^53 and 2^53 + 1 are one double); renumber "
                    "the classes, write the labels as text, or pass {}",
                    where, names.front(), largest, option_ref("task", "regression")));
  }
  if (as_classes) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const bool missing = std::isnan(values[i]) && options.nan != NanPolicy::Error;
      if (!std::isfinite(values[i]) && !missing) {
        throw DataError(fmt::format(
            "{}: sample {}: the class label '{}' is {}; a class must be a finite number or a "
            "name{}",
            where, i + 1, names.front(), std::isnan(values[i]) ? "missing (NaN)" : "infinite",
            std::isnan(values[i]) ? fmt::format("; fill it in or pass {} to drop such samples",
                                                option_ref("nan", "drop"))
                                  : ""));
      }
    }
    std::vector<std::string> per_row(values.size());
    std::map<double, std::string> by_value;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) continue;
      per_row[i] = values[i] == std::floor(values[i]) ? integer_name(values[i])
                                                      : fmt::format("{}", values[i]);
      by_value.emplace(values[i], per_row[i]);
    }
    std::vector<std::string> names_in_order;
    for (const auto& entry : by_value) names_in_order.push_back(entry.second);
    set_classes(data, per_row, names_in_order, names.front());
    return;
  }
  data.target_kind = TargetKind::Real;
  data.targets.resize(n, q);
  std::copy(values.begin(), values.end(), data.targets.data());
  data.target_names = names;
  // Whole numbers beyond 2^53 read as floats may be labels that merged: the
  // user should know they were taken for a real target.
  const bool whole = std::all_of(values.begin(), values.end(),
                                 [](double v) { return !std::isfinite(v) || v == std::floor(v); });
  if (q == 1 && options.task == TaskHint::Auto && whole && detail::has_inexact_integers(values)) {
    data.notes.push_back(fmt::format(
        "the target '{}' holds whole numbers beyond 2^53, read as a real target: as class labels "
        "they could not be told apart in this format (write them as text or as 64-bit integers, "
        "or renumber them, for classes)",
        names.front()));
  }
}

namespace {

// The rows whose feature values check_values reads: all of them, except in
// a rank of a data-parallel run whose features are not in memory (mapped
// from the file, or from the HDF5 reader program's temporary file) and
// where nothing is dropped: each rank then reads only its shard's rows
// (docs/scale.md), and a bad value in another shard is that rank's to find.
// Dropping rows needs every rank to drop the same, so under NanPolicy::Drop,
// or a missing target that Impute drops, every rank checks every row.
RowShard rows_to_check(const Dataset& data, const ReadOptions& options) {
  const bool drops = options.nan == NanPolicy::Drop ||
                     (options.nan == NanPolicy::Impute && !data.targets.allFinite());
  if (options.shard_count > 1 && !drops && data.features.storage() != RowStorage::InMemory) {
    return row_shard(data.rows(), options.shard_rank, options.shard_count);
  }
  return {0, data.rows()};
}

}  // namespace

void refuse_feature_value(const Dataset& data, std::int64_t row, std::int64_t column, float value,
                          const std::string& where) {
  throw DataError(fmt::format(
      "{}: sample {}, feature {} ('{}') is {}; remove it or pass {} to drop such samples", where,
      row + 1, column + 1, data.feature_names[static_cast<std::size_t>(column)],
      std::isnan(value) ? "NaN"
                        : "infinite (or a number beyond float32's range, +-3.4e38, in which "
                          "features are held)",
      option_ref("nan", "drop")));
}

namespace {

// A mapped .npy or NPZ can be read into memory instead (--in-memory); the
// rows of an HDF5 or v7.3 .mat file are mapped from the reader program's
// temporary file because they are above half the memory budget or a
// data-parallel rank's shard, which no flag changes.
[[noreturn]] void refuse_mapped_missing(const Dataset& data, std::int64_t row, std::int64_t column,
                                        const std::string& where) {
  const bool from_reader_program =
      data.format == to_string(Format::Hdf5) || data.format == to_string(Format::Mat);
  throw DataError(fmt::format(
      "{}: sample {}, feature {} ('{}') is NaN (missing), and the rows are read from {}, where "
      "missing cells cannot be imputed; pass {}{} to drop such samples",
      where, row + 1, column + 1, data.feature_names[static_cast<std::size_t>(column)],
      from_reader_program ? "a temporary file on demand (mapped: above half the memory budget, "
                            "or one rank's shard)"
                          : "the file on demand (mapped)",
      from_reader_program ? "" : fmt::format("{} to impute them, or ", option_ref("in-memory")),
      option_ref("nan", "drop")));
}

}  // namespace

void check_values(Dataset& data, const ReadOptions& options, const std::string& where) {
  const auto n = data.rows();
  const bool missing_labels =
      data.target_kind == TargetKind::Classes &&
      std::find(data.labels.begin(), data.labels.end(), kMissingLabel) != data.labels.end();
  if (options.nan == NanPolicy::Keep && !missing_labels) {
    check_classes(data, where);
    return;
  }
  std::vector<std::int64_t> keep;
  keep.reserve(static_cast<std::size_t>(n));
  const RowShard checked = rows_to_check(data, options);
  // Under Impute a NaN feature is a missing cell, kept for the selection to
  // impute on its training rows; mapped rows cannot be changed, so there it
  // is refused as under Error.
  const bool impute = options.nan == NanPolicy::Impute;
  const bool impute_here = impute && data.features.storage() == RowStorage::InMemory;
  for (Eigen::Index i = 0; i < n; ++i) {
    // A sample without its class cannot be kept, whatever the policy (the
    // reader refused it under NanPolicy::Error).
    bool bad = data.target_kind == TargetKind::Classes &&
               data.labels[static_cast<std::size_t>(i)] == kMissingLabel;
    const bool check_numbers = options.nan != NanPolicy::Keep && checked.contains(i);
    for (Eigen::Index j = 0; check_numbers && j < data.features.cols() && !bad; ++j) {
      const float v = data.features(i, j);
      if (!std::isfinite(v)) {
        if (impute_here && std::isnan(v)) continue;
        if (options.nan == NanPolicy::Error || impute) {
          if (impute && std::isnan(v)) refuse_mapped_missing(data, i, j, where);
          refuse_feature_value(data, i, j, v, where);
        }
        bad = true;
      }
    }
    if (check_numbers && data.target_kind == TargetKind::Real) {
      for (Eigen::Index j = 0; j < data.targets.cols() && !bad; ++j) {
        const double v = data.targets(i, j);
        if (!std::isfinite(v)) {
          const bool missing = impute && std::isnan(v);  // the row is dropped below
          if (!missing && (options.nan == NanPolicy::Error || impute)) {
            throw DataError(
                fmt::format("{}: sample {}, target '{}' is {}; remove it or pass {}", where, i + 1,
                            data.target_names[static_cast<std::size_t>(j)],
                            std::isnan(v) ? "NaN" : "infinite", option_ref("nan", "drop")));
          }
          bad = true;
        }
      }
    }
    if (!bad) keep.push_back(i);
  }
  if (static_cast<std::int64_t>(keep.size()) != n) {
    if (keep.empty()) {
      throw DataError(fmt::format("{}: every sample holds a NaN or infinite value", where));
    }
    if (data.predefined_split) {
      // Re-map the split onto the surviving rows.
      std::vector<std::int64_t> new_index(static_cast<std::size_t>(n), -1);
      for (std::size_t r = 0; r < keep.size(); ++r) {
        new_index[static_cast<std::size_t>(keep[r])] = static_cast<std::int64_t>(r);
      }
      Split split;
      for (auto row : data.predefined_split->train) {
        if (new_index[static_cast<std::size_t>(row)] >= 0)
          split.train.push_back(new_index[static_cast<std::size_t>(row)]);
      }
      for (auto row : data.predefined_split->test) {
        if (new_index[static_cast<std::size_t>(row)] >= 0)
          split.test.push_back(new_index[static_cast<std::size_t>(row)]);
      }
      Dataset kept = take_rows(data, keep);
      kept.predefined_split = std::move(split);
      kept.notes = data.notes;
      data = std::move(kept);
    } else {
      auto notes = data.notes;
      data = take_rows(data, keep);
      data.notes = std::move(notes);
    }
    if (impute) {
      data.notes.push_back(fmt::format(
          "dropped {} of {} samples whose target is missing (a target is never imputed)",
          n - static_cast<std::int64_t>(keep.size()), n));
    } else {
      data.notes.push_back(fmt::format("dropped {} of {} samples holding NaN or infinite values{}",
                                       n - static_cast<std::int64_t>(keep.size()), n,
                                       missing_labels ? " or a missing class label" : ""));
    }
  }
  check_classes(data, where);
}

void check_classes(const Dataset& data, const std::string& where) {
  if (data.target_kind == TargetKind::Classes) {
    const auto counts = class_counts(data);
    const auto present = std::count_if(counts.begin(), counts.end(), [](auto c) { return c > 0; });
    if (present < 2) {
      const auto only = std::find_if(counts.begin(), counts.end(), [](auto c) { return c > 0; });
      throw DataError(fmt::format(
          "{}: the target '{}' has one class only ('{}'); classification needs at least two (for a "
          "real-valued target pass {})",
          where, data.target_names.empty() ? std::string("target") : data.target_names.front(),
          data.class_names[static_cast<std::size_t>(only - counts.begin())],
          option_ref("task", "regression")));
    }
  }
}

}  // namespace topkfs
