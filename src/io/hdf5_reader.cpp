// HDF5 files through the libhdf5 C API.
//
// HDF5 datasets written from C or NumPy are row-major, as the Dataset is, so
// values are read straight into place; libhdf5 converts any integer or
// floating type to float (features) or double (targets) while reading.
#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hdf5_chunked_reads.hpp"
#include "hdf5_row_blocks.hpp"
#include "hdf5_util.hpp"
#include "integer_labels.hpp"
#include "memory_budget.hpp"
#include "reader_process.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs {
namespace {

using hdf5::Handle;

std::string absolute(const std::string& name) {
  return name.rfind('/', 0) == 0 ? name : "/" + name;
}

std::string type_text(hid_t type) {
  const auto size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return fmt::format("{}int{}", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", 8 * size);
    case H5T_FLOAT: return fmt::format("float{}", 8 * size);
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_ARRAY: return "array";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    case H5T_REFERENCE: return "reference";
    case H5T_VLEN: return "variable-length";
    default: return "unknown type";
  }
}

// "/train/data (7291x256 float32)"
std::string describe(hid_t dataset, const std::string& name) {
  const Handle type = hdf5::type_handle(H5Dget_type(dataset));
  return fmt::format("{} ({} {})", name, hdf5::shape_text(hdf5::dataset_dims(dataset)),
                     type ? type_text(type.get()) : "unknown type");
}

struct Listing {
  std::vector<std::string> datasets;
  int total = 0;
};

herr_t list_one(hid_t root, const char* name, const H5L_info_t* info, void* data) {
  constexpr int max_listed = 20;
  if (info->type != H5L_TYPE_HARD) return 0;  // soft and external links may dangle
  const Handle object = hdf5::object_handle(H5Oopen(root, name, H5P_DEFAULT));
  if (!object || H5Iget_type(object.get()) != H5I_DATASET) return 0;
  auto& listing = *static_cast<Listing*>(data);
  if (listing.total++ < max_listed)
    listing.datasets.push_back(describe(object.get(), absolute(name)));
  return 0;
}

// "/train/data (7291x256 float32), /train/target (7291 int32)", for messages
// about a missing dataset.
std::string list_datasets(hid_t file) {
  Listing listing;
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, list_one, &listing);
  if (listing.total == 0) return "no datasets";
  std::string text = fmt::format("{}", fmt::join(listing.datasets, ", "));
  if (listing.total > static_cast<int>(listing.datasets.size())) {
    text += fmt::format(", and {} more", listing.total - static_cast<int>(listing.datasets.size()));
  }
  return text;
}

// A dataset of the file, opened, with its shape.
struct Array {
  std::string name;
  Handle dataset;
  std::vector<std::uint64_t> dims;
  std::uint64_t rows() const { return dims.empty() ? 1 : dims[0]; }
  std::uint64_t cols() const { return dims.size() < 2 ? 1 : dims[1]; }
};

class Hdf5Reader {
 public:
  // With `rows`, the features are not read: *rows gets a source that reads
  // them by row blocks, and the Dataset's matrix is n x 0.
  Hdf5Reader(const std::string& path, const ReadOptions& options,
             std::shared_ptr<const RowSource>* rows = nullptr)
      : path_(path), options_(options), rows_(rows) {}

  Dataset read() {
    const hdf5::QuietErrors quiet;
    require_readable_file(path_);
    if (H5Fis_hdf5(path_.c_str()) <= 0) {
      throw DataError(fmt::format("{}: not an HDF5 file (no HDF5 signature found)", path_));
    }
    file_ = hdf5::file_handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!file_) {
      throw DataError(
          fmt::format("{}: cannot open the HDF5 file: it is truncated or corrupt", path_));
    }
    if (options_.no_target) return read_features_alone();
    if (!options_.x_path.empty() || !options_.y_path.empty()) return read_chosen();
    if (has_dataset("/train/data") && has_dataset("/train/target") && has_dataset("/test/data") &&
        has_dataset("/test/target")) {
      return read_train_test();
    }
    static const std::array<std::array<const char*, 2>, 3> root_pairs = {
        {{"/X", "/Y"}, {"/x", "/y"}, {"/data", "/target"}}};
    for (const auto& pair : root_pairs) {
      if (has_dataset(pair[0]) && has_dataset(pair[1])) return read_pair(pair[0], pair[1]);
    }
    throw DataError(fmt::format(
        "{}: found neither datasets X and Y (or x/y, data/target) at the root nor groups train and "
        "test holding data and target; the file holds: {}; choose with {} and {}{}",
        path_, list_datasets(file_.get()), option_ref("x-path"), option_ref("y-path"),
        no_target_hint()));
  }

 private:
  bool has_dataset(const std::string& name) const {
    // H5Lexists fails rather than answering when a parent group is missing,
    // so walk down the path one link at a time.
    std::size_t slash = 0;
    while ((slash = name.find('/', slash + 1)) != std::string::npos) {
      if (H5Lexists(file_.get(), name.substr(0, slash).c_str(), H5P_DEFAULT) <= 0) return false;
    }
    if (H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) <= 0) return false;
    const Handle object = hdf5::object_handle(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT));
    return object && H5Iget_type(object.get()) == H5I_DATASET;
  }

  // With only one of the two paths given, the other is looked for beside it.
  // `missing_hint` ends the message when none is found.
  std::string sibling(const std::string& given, const std::vector<const char*>& names,
                      const std::string& flag, const std::string& missing_hint = "") const {
    const std::string group = given.substr(0, given.rfind('/') + 1);
    std::vector<std::string> tried;
    for (const char* name : names) {
      tried.push_back(group + name);
      if (has_dataset(tried.back())) return tried.back();
    }
    throw DataError(fmt::format(
        "{}: no dataset {} beside '{}'; the file holds: {}; choose with {}{}", path_,
        fmt::join(tried, " or "), given, list_datasets(file_.get()), flag, missing_hint));
  }

  Dataset read_chosen() {
    std::string x = options_.x_path.empty() ? "" : absolute(options_.x_path);
    std::string y = options_.y_path.empty() ? "" : absolute(options_.y_path);
    if (x.empty()) {
      require_dataset(y, option_ref("y-path"));
      x = sibling(y, {"data", "X", "x", "features"}, option_ref("x-path"));
    }
    if (y.empty()) {
      require_dataset(x, option_ref("x-path"));
      y = sibling(x, {"target", "Y", "y", "labels", "label"}, option_ref("y-path"),
                  no_target_hint());
    }
    return read_pair(x, y);
  }

  Dataset read_pair(const std::string& x_name, const std::string& y_name) {
    const Array x = open_array(x_name, option_ref("x-path"));
    const Array y = open_array(y_name, option_ref("y-path"));
    check_feature_shape(x, x.rows());
    check_rows(x, y);
    Dataset data;
    take_features(data, {&x}, x.rows());
    set_target(data, {{&x, &y}});
    return data;
  }

  // The USPS layout: train rows, then test rows, with the split kept.
  Dataset read_train_test() {
    const Array x_train = open_array("/train/data", option_ref("x-path"));
    const Array y_train = open_array("/train/target", option_ref("y-path"));
    const Array x_test = open_array("/test/data", option_ref("x-path"));
    const Array y_test = open_array("/test/target", option_ref("y-path"));
    check_rows(x_train, y_train);
    check_rows(x_test, y_test);
    Dataset data = train_test_features(x_train, x_test);
    set_target(data, {{&x_train, &y_train}, {&x_test, &y_test}});
    return data;
  }

  // --no-target: the features alone (new data for `transform`), from
  // --x-path, the USPS layout's train/data and test/data, or X (x, data) at
  // the root; no target is looked for.
  Dataset read_features_alone() {
    if (!options_.x_path.empty()) return features_alone(absolute(options_.x_path));
    if (has_dataset("/train/data") && has_dataset("/test/data")) {
      return train_test_features(open_array("/train/data", option_ref("x-path")),
                                 open_array("/test/data", option_ref("x-path")));
    }
    for (const char* name : {"/X", "/x", "/data"}) {
      if (has_dataset(name)) return features_alone(name);
    }
    throw DataError(
        fmt::format("{}: found neither a dataset X (or x, data) at the root nor groups train and "
                    "test holding data; the file holds: {}; choose with {}",
                    path_, list_datasets(file_.get()), option_ref("x-path")));
  }

  Dataset features_alone(const std::string& name) {
    const Array x = open_array(name, option_ref("x-path"));
    check_feature_shape(x, x.rows());
    Dataset data;
    take_features(data, {&x}, x.rows());
    return data;
  }

  // The USPS layout's features: train rows, then test rows, with the split
  // kept (and 256 columns taken as 16x16 images).
  Dataset train_test_features(const Array& x_train, const Array& x_test) {
    if (x_test.cols() != x_train.cols()) {
      throw DataError(fmt::format("{}: '{}' has {} columns but '{}' has {}; they must agree", path_,
                                  x_train.name, x_train.cols(), x_test.name, x_test.cols()));
    }
    const auto n_train = x_train.rows();
    const auto n = n_train + x_test.rows();
    check_feature_shape(x_train, n);
    Dataset data;
    take_features(data, {&x_train, &x_test}, n);
    Split split;
    for (std::uint64_t i = 0; i < n; ++i) (i < n_train ? split.train : split.test).push_back(i);
    data.predefined_split = std::move(split);
    if (x_train.cols() == 256) {
      data.image_shape = ImageShape{16, 16, 1};
      data.notes.push_back("image shape 16x16 assumed from 256 columns (USPS layout)");
    }
    return data;
  }

  void require_dataset(const std::string& name, const std::string& flag) const {
    if (has_dataset(name)) return;
    const Handle object = hdf5::object_handle(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT));
    const bool group = object && H5Iget_type(object.get()) == H5I_GROUP;
    throw DataError(fmt::format("{}: no dataset '{}'{}; the file holds: {}; choose with {}", path_,
                                name, group ? " (that is a group)" : "", list_datasets(file_.get()),
                                flag));
  }

  Array open_array(const std::string& name, const std::string& flag) const {
    require_dataset(name, flag);
    Array array{name, hdf5::dataset_handle(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT)), {}};
    if (!array.dataset) {
      throw DataError(
          fmt::format("{}: cannot open dataset '{}': the file is corrupt", path_, name));
    }
    array.dims = hdf5::dataset_dims(array.dataset.get());
    const std::string text = describe(array.dataset.get(), name);
    if (array.dims.empty() || array.dims.size() > 2) {
      throw DataError(fmt::format(
          "{}: dataset {} has rank {}; expected 2 (samples x features) or 1 (one value per "
          "sample); reshape it, e.g. in NumPy a.reshape(len(a), -1)",
          path_, text, array.dims.size()));
    }
    const Handle type = hdf5::type_handle(H5Dget_type(array.dataset.get()));
    const auto type_class = type ? H5Tget_class(type.get()) : H5T_NO_CLASS;
    if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) {
      throw DataError(fmt::format(
          "{}: dataset {} is not numeric; store integers or floating-point numbers", path_, text));
    }
    hdf5::check_chunk_grid(array.dataset.get(), path_, name);
    if (hdf5::has_external_storage(array.dataset.get())) {
      throw DataError(fmt::format(
          "{}: dataset '{}' keeps its values in other files (an HDF5 external storage list), "
          "which topkfs does not read: write the values into the file itself",
          path_, name));
    }
    return array;
  }

  // The features of `parts` stacked by rows (row-major: each part's rows
  // start right after the previous part's), or the source reading them by
  // row blocks.
  void take_features(Dataset& data, const std::vector<const Array*>& parts, std::uint64_t n) const {
    const auto m = static_cast<Eigen::Index>(parts.front()->cols());
    if (rows_ != nullptr) {
      std::vector<std::string> names;
      for (const auto* part : parts) names.push_back(part->name);
      // The decompressed blocks of a window take a sixteenth of the memory
      // budget (the matrix streamed takes more than half of it).
      *rows_ = std::make_shared<detail::Hdf5RowBlocks>(path_, names, m,
                                                       detail::physical_memory_bytes() / 16);
      data.features.resize(static_cast<Eigen::Index>(n), 0);
      return;
    }
    data.features.resize(static_cast<Eigen::Index>(n), m);
    float* out = data.features.data();
    for (const auto* part : parts) {
      read_values(*part, H5T_NATIVE_FLOAT, out);
      out += part->rows() * part->cols();
    }
  }

  void read_values(const Array& array, hid_t memory_type, void* out) const {
    if (array.rows() == 0 || array.cols() == 0) return;
    if (!hdf5::read_rows_in_pieces(array.dataset.get(), memory_type, 0, array.rows(), out)) {
      throw DataError(fmt::format("{}: cannot read dataset '{}': the file is truncated or corrupt",
                                  path_, array.name));
    }
  }

  // Target columns of `y` for `samples` rows of features: a 1 x n row holds
  // one value per sample.
  static std::uint64_t target_columns(const Array& y, std::uint64_t samples) {
    return y.dims.size() == 2 && y.rows() == 1 && y.cols() == samples ? 1 : y.cols();
  }

  // Before the matrix of `rows` rows of x's columns is allocated.
  void check_feature_shape(const Array& x, std::uint64_t rows) const {
    detail::check_feature_shape(rows, x.cols(),
                                fmt::format("'{}' {}", x.name, hdf5::shape_text(x.dims)), path_,
                                /*mapped=*/rows_ != nullptr);
  }

  void check_rows(const Array& x, const Array& y) const {
    if (y.rows() * y.cols() == 0) {
      throw DataError(
          fmt::format("{}: '{}' holds no target values (shape {}); it needs one per "
                      "row of '{}'",
                      path_, y.name, hdf5::shape_text(y.dims), x.name));
    }
    if (y.rows() * y.cols() / target_columns(y, x.rows()) != x.rows()) {
      throw DataError(
          fmt::format("{}: '{}' has {} rows (samples) but '{}' has {} target rows; they must agree",
                      path_, x.name, x.rows(), y.name, y.rows()));
    }
  }

  // Targets of one or more parts (train, test) with their features, stacked
  // in order.
  void set_target(Dataset& data,
                  const std::vector<std::pair<const Array*, const Array*>>& parts) const {
    const Array& first = *parts.front().second;
    const std::uint64_t q = target_columns(first, parts.front().first->rows());
    std::uint64_t total = 0;
    for (const auto& [x, y] : parts) {
      check_rows(*x, *y);
      if (target_columns(*y, x->rows()) != q) {
        throw DataError(fmt::format("{}: '{}' has {} target columns but '{}' has {}", path_,
                                    first.name, q, y->name, target_columns(*y, x->rows())));
      }
      total += y->rows() * y->cols();
    }
    std::vector<double> values(total);
    std::uint64_t offset = 0;
    for (const auto& part : parts) {
      const Array& y = *part.second;
      read_values(y, H5T_NATIVE_DOUBLE, values.data() + offset);
      offset += y.rows() * y.cols();
    }
    const std::string base = first.name.substr(first.name.rfind('/') + 1);
    std::vector<std::string> names;
    if (q == 1) {
      names.push_back(base);
    } else {
      for (std::uint64_t j = 0; j < q; ++j) names.push_back(fmt::format("{}_{}", base, j));
    }
    if (q == 1 && options_.task != TaskHint::Regression && detail::has_inexact_integers(values) &&
        integer_targets(parts)) {
      set_target_from_text(data, exact_integer_texts(parts), names.front(), options_, path_);
      return;
    }
    set_target_from_numbers(data, values, static_cast<int>(q), names, options_, path_);
  }

  // True when every part's target is stored as integers: labels beyond 2^53
  // are then read exactly (integer_labels.hpp).
  static bool integer_targets(const std::vector<std::pair<const Array*, const Array*>>& parts) {
    return std::all_of(parts.begin(), parts.end(), [](const auto& part) {
      const Handle type(H5Dget_type(part.second->dataset.get()), H5Tclose);
      return type.get() >= 0 && H5Tget_class(type.get()) == H5T_INTEGER;
    });
  }

  std::vector<std::string> exact_integer_texts(
      const std::vector<std::pair<const Array*, const Array*>>& parts) const {
    std::vector<std::string> texts;
    for (const auto& part : parts) {
      const Array& y = *part.second;
      const Handle type(H5Dget_type(y.dataset.get()), H5Tclose);
      const bool is_signed = H5Tget_sign(type.get()) != H5T_SGN_NONE;
      std::vector<std::uint64_t> raw(y.rows() * y.cols());
      read_values(y, is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64, raw.data());
      for (const std::uint64_t bits : raw) {
        texts.push_back(is_signed ? std::to_string(static_cast<std::int64_t>(bits))
                                  : std::to_string(bits));
      }
    }
    return texts;
  }

  const std::string& path_;
  const ReadOptions& options_;
  std::shared_ptr<const RowSource>* rows_;
  Handle file_;
};

}  // namespace

namespace detail {

Dataset read_hdf5_here(const std::string& path, const ReadOptions& options,
                       std::shared_ptr<const RowSource>* rows) {
  return Hdf5Reader(path, options, rows).read();
}

Dataset read_hdf5_by_rows(const std::string& path, const ReadOptions& options,
                          const MatrixOnDisk& on_disk) {
  require_readable_file(path);
  return read_in_reader_process(Format::Hdf5, path, options, &on_disk);
}

}  // namespace detail

Dataset read_hdf5(const std::string& path, const ReadOptions& options) {
  require_readable_file(path);
  return detail::read_in_reader_process(Format::Hdf5, path, options);
}

}  // namespace topkfs
