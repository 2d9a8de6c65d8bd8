#pragma once
// Dataset: the one in-memory form every reader produces and every method reads.
#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "topkfs/data/feature_matrix.hpp"

namespace topkfs {

// Real-valued targets: one row per sample, one column per output.
using TargetMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class TargetKind { None, Classes, Real };

const char* to_string(TargetKind kind);

// Height x width (x channels) of an image, when every row is one image.
struct ImageShape {
  int height = 0;
  int width = 0;
  int channels = 1;
  long pixels() const { return static_cast<long>(height) * width * channels; }
};

// Parses "28x28" or "32x32x3"; throws OptionError naming `what` otherwise.
ImageShape parse_image_shape(const std::string& text, const std::string& what = "image shape");
// The same, and an OptionError unless the shape has `columns` pixels (the
// columns of the data at `source`).
ImageShape checked_image_shape(const std::string& text, const std::string& what,
                               std::int64_t columns, const std::string& source);

// Weights of the classes in every loss and score (--class-weight; Python
// class_weight): a row of class c weighs per_class[c] times its sample
// weight. Balanced: n / (C n_c) over the rows a fit learns from (n rows, C
// classes, n_c rows of class c), scikit-learn's "balanced".
struct ClassWeight {
  bool balanced = false;
  std::vector<double> per_class;  // empty: every class weighs 1 (unless balanced)
  bool empty() const { return !balanced && per_class.empty(); }
};

// Row indices of a train/test split. Every row is in exactly one of the two.
struct Split {
  std::vector<std::int64_t> train;
  std::vector<std::int64_t> test;
};

struct Dataset {
  // Samples in rows, features in columns (owned, or borrowed from the caller:
  // see FeatureMatrix). Copying a Dataset copies the values.
  FeatureMatrix features;
  // Set when the feature rows are read from the file on demand instead of
  // held in `features` (HDF5 by row blocks, for the methods that read by
  // rows: read_dataset_by_rows). `features` is then rows x 0, so that code
  // which needs the whole matrix fails its checks instead of reading
  // garbage; feature_rows() and cols() are the source's.
  std::shared_ptr<const RowSource> row_blocks;
  std::vector<std::string> feature_names;
  // Categorical features (text in a CSV/TSV column, --categorical): empty
  // when every column is numeric, else one entry per column, the levels of a
  // categorical column (its cells hold the index of their level, NaN where
  // missing) or nothing for a numeric one. In every column NaN is a missing
  // cell (docs/data-preparation.md, "Mixed-type tables").
  std::vector<std::vector<std::string>> column_levels;
  // Feature groups, selected whole (a categorical column's one-hot columns,
  // a numeric column and its missing indicator): empty when every column is
  // a group of its own, else the group of each column; group_names[g] names
  // group g (the original column it came from).
  std::vector<std::int64_t> column_group;
  std::vector<std::string> group_names;

  TargetKind target_kind = TargetKind::None;
  // Classes: labels encoded 0..C-1, original names kept in class_names
  // (class_names[label] is the name as it appeared in the file).
  std::vector<std::int32_t> labels;
  std::vector<std::string> class_names;
  // Real: n x q values, q >= 1.
  TargetMatrix targets;
  std::vector<std::string> target_names;

  // Sample weights (--sample-weight, --weight-file; Python sample_weight):
  // empty when every row weighs 1, else one finite weight >= 0 per row. A
  // weight w counts a row as w copies of it in every method's loss, in the
  // trees' impurities and in the downstream scores (data/sample_weights.hpp).
  std::vector<double> sample_weight;
  ClassWeight class_weight;

  // A split that came with the data (MNIST's 60000/10000, USPS's train/test).
  std::optional<Split> predefined_split;
  std::optional<ImageShape> image_shape;

  // Provenance, for results and messages.
  std::string source;              // path as given by the user
  std::string format;              // reader that produced it ("csv", "idx", ...)
  std::vector<std::string> notes;  // things the reader wants the user to know
  // A reader of rows by blocks that looked at every cell (CSV, LIBSVM) saw a
  // missing feature cell: `convert` then encodes the rows (the data is not
  // in memory to be scanned for it).
  bool missing_cells_seen = false;

  std::int64_t rows() const { return features.rows(); }
  std::int64_t cols() const { return row_blocks ? row_blocks->column_count() : features.cols(); }
  // Where the feature rows are read from: row_blocks when set, else features.
  const RowSource& feature_rows() const { return row_blocks ? *row_blocks : features; }
  int num_classes() const { return static_cast<int>(class_names.size()); }
  int num_outputs() const { return static_cast<int>(targets.cols()); }
  bool is_categorical(std::int64_t column) const {
    return !column_levels.empty() && !column_levels[static_cast<std::size_t>(column)].empty();
  }
  bool has_categorical() const;
  // Groups the columns form (every column its own when column_group is empty).
  std::int64_t group_count() const {
    return column_group.empty() ? cols() : static_cast<std::int64_t>(group_names.size());
  }

  // Checks shapes agree (labels/targets length, names, split indices) and
  // throws DataError naming `source` when they do not.
  void validate() const;
};

// The name of column `column` when its file gives none (a CSV without a
// header, an .npy): x0, x1, ... Such a name says nothing about the column.
std::string default_feature_name(std::int64_t column);

// Gives every column its default name when `data` has no feature names.
void name_unnamed_features(Dataset& data);

// Per-class sample counts, indexed by encoded label.
std::vector<std::int64_t> class_counts(const Dataset& data);

// Rows `rows` of `data` as a new dataset (features, target, names kept; the
// predefined split is dropped because its indices no longer apply).
Dataset take_rows(const Dataset& data, const std::vector<std::int64_t>& rows);

// Rows `rows` and columns `cols` of `data` (read through feature_rows(),
// so from a mapped file or row blocks too) as a new dataset held in memory:
// target, weights and names kept, the predefined split and the image shape
// dropped. The data must not group its columns.
Dataset take_rows_and_columns(const Dataset& data, const std::vector<std::int64_t>& rows,
                              const std::vector<std::int64_t>& cols);

// Gives `to` (other columns of the same rows) the target, the predefined
// split and the provenance of `from`.
void copy_rows_target(const Dataset& from, Dataset& to);

// Columns `cols` of `data` as a new dataset, in the given order (image shape
// dropped unless every column is kept in order).
Dataset take_columns(const Dataset& data, const std::vector<std::int64_t>& cols);

}  // namespace topkfs
