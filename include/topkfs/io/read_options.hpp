#pragma once
// Options shared by every reader; the command's reader flags and Python's
// reader keywords are parsed into these by parse_read_options
// (read_option_scope.hpp).
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>
#include "topkfs/core/option_ref.hpp"

namespace topkfs {

enum class Format { Auto, Csv, Tsv, Libsvm, Idx, Mat, Hdf5, Npy, Npz };

// What to do with missing feature cells (NaN, an empty cell, a missing
// marker) and with NaN or infinite values elsewhere.
//  Impute (the default): a missing feature cell stays missing (NaN) and is
//    imputed by the selection on the rows it learns from (data/
//    table_encoding.hpp); a sample whose target is missing is dropped with a
//    note (a target is never imputed); an infinite value is refused.
//  Error: refuse the file, naming the sample and column.
//  Drop: drop such samples and note how many went.
//  Keep: leave them in; for inspection (`topkfs info`, topkfs.load) only:
//    parse_read_options refuses it for a selection.
enum class NanPolicy { Impute, Error, Drop, Keep };

// "impute", "error", "drop", "keep"; throws OptionError naming `flag` otherwise.
NanPolicy parse_nan_policy(const std::string& name, const std::string& flag = option_ref("nan"));
const char* to_string(NanPolicy policy);

// How to interpret the target column(s).
//  Auto: text labels or few distinct integer values -> classes; otherwise real.
enum class TaskHint { Auto, Classification, Regression };

enum class HeaderMode { Auto, Yes, No };

const char* to_string(Format format);
// Parses "csv", "tsv", "libsvm", "svmlight", "idx", "mat", "hdf5"/"h5",
// "npy", "npz", "auto"; throws OptionError listing the choices otherwise.
Format parse_format(const std::string& name);

struct ReadOptions {
  Format format = Format::Auto;

  // --- delimited text (CSV/TSV) ---
  // Target columns by name or 0-based index (as text: "y", "3", "-1").
  // Empty: the last column. Several: multi-output regression.
  std::vector<std::string> target;
  HeaderMode header = HeaderMode::Auto;
  std::optional<char> delimiter;  // unset: detected from the first lines
  // A column holding text in any cell (neither a number nor a missing
  // marker) is categorical. These name columns (as --target does) read as
  // categorical although they hold numbers (integer codes) ...
  std::vector<std::string> categorical;
  // ... or as numbers, where a text cell is then an error naming it.
  std::vector<std::string> numeric;
  // A categorical column with more levels than this is refused.
  int max_levels = 1000;
  // Cells read as missing besides the built-in markers (every reader of
  // text: CSV/TSV; docs/data-preparation.md lists the markers).
  std::vector<std::string> na_values;

  // --- every format ---
  // The data has no target (new data to reduce with `transform`, or to look
  // at): every CSV/TSV column is a feature; .mat, HDF5 and NPZ files give X
  // alone; IDX images need no labels file. Not for LIBSVM (every line starts
  // with its label). Excludes target, y_var, y_path, labels_path, y_file
  // (check_target_options).
  bool no_target = false;
  NanPolicy nan = NanPolicy::Impute;
  TaskHint task = TaskHint::Auto;
  // Integer-valued targets with at most this many distinct values count as
  // classes under TaskHint::Auto.
  int max_auto_classes = 30;

  // --- MATLAB .mat ---
  std::string x_var = "X";
  std::string y_var = "Y";

  // --- HDF5 (empty: the USPS layout or datasets named X/Y at the root) ---
  std::string x_path;
  std::string y_path;

  // --- IDX: a single images file needs its labels file ---
  std::string labels_path;

  // --- NPY/NPZ: NPZ arrays by name; a lone NPY needs its target file ---
  std::string y_file;  // NPY holding the target for an NPY of features

  // A little-endian float32 C-order NPY (or such an NPZ member stored
  // without compression) is mapped from the file, not read: the rows stay in
  // the page cache and cost no anonymous memory (RowStorage::Mapped). False
  // reads every format into memory.
  bool map = true;

  // --- a rank of a data-parallel run (docs/scale.md) ---
  // The rank reads only its shard of the rows (row_shard of shard_rank out
  // of shard_count) where the features are not read whole: of a mapped
  // file, and of HDF5 read by row blocks (read_dataset_by_rows), only those
  // rows' values are checked for NaN and infinite values here.
  int shard_rank = 0;
  int shard_count = 1;
};

// The text cells every reader of text (CSV/TSV, and Python's text columns)
// reads as missing: pandas' default list, plus "?" (UCI tables) and "NAN".
const std::vector<std::string>& builtin_missing_markers();

}  // namespace topkfs
