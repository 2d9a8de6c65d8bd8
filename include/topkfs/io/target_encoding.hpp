#pragma once
// Turning a raw target column into class labels or real values, the same way
// for every reader, so that `--task` and the auto rule behave identically
// whatever the file format.
#include <fmt/format.h>
#include <string>
#include <vector>

#include "topkfs/core/option_ref.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs {

// The label of a sample whose class is missing (NaN under NanPolicy::Drop or
// Keep); check_values drops such samples, so no Dataset it returns holds one.
constexpr std::int32_t kMissingLabel = -1;

// Ends a reader's message when the target it looks for is not in the file:
// data without one (new data for `transform`) is read with --no-target.
std::string no_target_hint();

// Sets data.target_kind, labels/class_names or targets/target_names from a
// target read as text (one string per row). Text that is not a number makes
// the target classes; `where` names the file for messages.
void set_target_from_text(Dataset& data, const std::vector<std::string>& values,
                          const std::string& name, const ReadOptions& options,
                          const std::string& where);

// Same from numbers: `values` is n x q row-major. A single column of
// integer values with at most options.max_auto_classes distinct values is
// classes under TaskHint::Auto (class names are the printed integers,
// ordered by value).
void set_target_from_numbers(Dataset& data, const std::vector<double>& values, int q,
                             const std::vector<std::string>& names, const ReadOptions& options,
                             const std::string& where);

// Checks features and targets for NaN/Inf. NanPolicy::Error throws a
// DataError naming the file, row and column; Drop removes such rows and adds a
// note saying how many went; samples with kMissingLabel are dropped under
// every policy. Also rejects a class target with one class.
// With options.shard_count above 1 (a rank of a data-parallel run) and the
// features mapped from the file, only the rank's shard of the rows has its
// feature values checked (under NanPolicy::Error; every row under Drop).
void check_values(Dataset& data, const ReadOptions& options, const std::string& where);

// Throws the DataError of check_values for a NaN or infinite feature value
// `value` at 0-based `row`, `column` of `data`.
[[noreturn]] void refuse_feature_value(const Dataset& data, std::int64_t row, std::int64_t column,
                                       float value, const std::string& where);

// Throws DataError when a class target holds fewer than two classes.
void check_classes(const Dataset& data, const std::string& where);

}  // namespace topkfs
