// MATLAB .mat files (v5, compressed or not, and v7.3) through matio.
//
// MATLAB stores matrices column-major: element (i, j) of an n x m variable is
// data[i + j * n]. The Dataset is row-major, so every copy below transposes.
#include <fmt/format.h>
#include <matio.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hdf5_row_blocks.hpp"
#include "hdf5_util.hpp"
#include "mat_v5_elements.hpp"
#include "mat_v73_values.hpp"
#include "memory_budget.hpp"
#include "reader_process.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs {
namespace {

// matio reports problems through a log function (none until a program sets
// one; Mat_LogInit's prints on stderr); the library never prints, so during
// a read the last message is kept instead and quoted in the DataError.
thread_local std::string matio_last_message;

void record_matio_message(int level, char* message) {
  if (level == MATIO_LOG_LEVEL_ERROR || level == MATIO_LOG_LEVEL_CRITICAL) {
    matio_last_message = message != nullptr ? message : "";
  }
}

// While one exists, matio's messages are recorded, not printed; when the
// last one ends, matio has no log function again, its state before a
// program sets one (matio has no getter: a log function a program set
// itself is not put back; docs/reliability.md). They nest, and threads
// share the count.
std::mutex matio_log_mutex;
int matio_log_depth = 0;

class RecordedMatioMessages {
 public:
  RecordedMatioMessages() {
    matio_last_message.clear();
    const std::lock_guard<std::mutex> lock(matio_log_mutex);
    if (matio_log_depth++ == 0) Mat_LogInitFunc("topkfs", record_matio_message);
  }
  ~RecordedMatioMessages() {
    const std::lock_guard<std::mutex> lock(matio_log_mutex);
    if (--matio_log_depth == 0) Mat_LogClose();
  }
  RecordedMatioMessages(const RecordedMatioMessages&) = delete;
  RecordedMatioMessages& operator=(const RecordedMatioMessages&) = delete;
};

std::string matio_detail() {
  return matio_last_message.empty() ? std::string() : fmt::format(" ({})", matio_last_message);
}

struct MatCloser {
  void operator()(mat_t* mat) const { Mat_Close(mat); }
};
struct VarFreer {
  void operator()(matvar_t* var) const { Mat_VarFree(var); }
};
using MatFile = std::unique_ptr<mat_t, MatCloser>;
using MatVar = std::unique_ptr<matvar_t, VarFreer>;

std::uint32_t read_u32(const char* bytes, bool swap) {
  std::uint32_t value = 0;
  std::memcpy(&value, bytes, sizeof value);
  return swap ? __builtin_bswap32(value) : value;
}

// The 128-byte header of v5 and v7.3 files: text, then a version (0x0100 or
// 0x0200) and the endian indicator "IM" (or "MI" when byte-swapped). Checked
// here because matio would otherwise try to read anything else as a
// headerless v4 file and make garbage of random bytes. True for a v7.3 file
// (HDF5 underneath, read in the reader program); `swapped` tells how a v5
// file's numbers are stored.
bool check_mat_header(const std::string& path, bool* swapped) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 128> header{};
  in.read(header.data(), header.size());
  const bool complete = in.gcount() == static_cast<std::streamsize>(header.size());
  const bool little = complete && header[126] == 'I' && header[127] == 'M';
  *swapped = complete && header[126] == 'M' && header[127] == 'I';
  const auto version = (static_cast<unsigned>(static_cast<unsigned char>(header[125])) << 8) |
                       static_cast<unsigned char>(header[124]);
  const auto expected = *swapped ? __builtin_bswap16(static_cast<std::uint16_t>(version)) : version;
  if (!(little || *swapped) || (expected != 0x0100 && expected != 0x0200)) {
    throw DataError(
        fmt::format("{}: not a MATLAB .mat file of version 5, 7 or 7.3 (no MAT-file header); "
                    "from MATLAB save with -v7 or -v7.3, from Python with scipy.io.savemat",
                    path));
  }
  return expected == 0x0200;
}

// A v5 file is walked element by element: matio reads a truncated
// uncompressed variable without complaint (the missing values come back as
// zeros), so every top-level element must fit in the file.
// A v7.3 file comes back open in libhdf5, to be held while matio and the
// reader's checks open it: libhdf5 opens a file once per process, so their
// opens share this one instead of each setting the file's metadata up anew.
hdf5::Handle check_mat_structure(const std::string& path) {
  bool swapped = false;
  if (check_mat_header(path, &swapped)) {
    return hdf5::file_handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  }
  std::ifstream in(path, std::ios::binary);
  const std::uint64_t size = file_size(path);
  std::uint64_t offset = 128;
  while (offset < size) {
    std::array<char, 8> tag{};
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(tag.data(), tag.size());
    const std::uint64_t claimed = read_u32(tag.data() + 4, swapped);
    const std::uint64_t left = size - offset;
    if (left < 8 || claimed > left - 8) {
      throw DataError(
          fmt::format("{}: truncated: the variable at byte {} claims {} bytes, but only {} remain",
                      path, offset, claimed, left < 8 ? 0 : left - 8));
    }
    detail::check_mat_v5_element(in, offset, claimed, swapped, path);
    offset += 8 + claimed;
  }
  return {};
}

std::vector<std::uint64_t> dims_of(const matvar_t& var) {
  std::vector<std::uint64_t> dims;
  for (int d = 0; d < var.rank && var.dims != nullptr; ++d) dims.push_back(var.dims[d]);
  return dims;
}

const char* class_name(const matvar_t& var) {
  if (var.isLogical) return "logical";
  switch (var.class_type) {
    case MAT_C_EMPTY: return "empty";
    case MAT_C_CELL: return "cell";
    case MAT_C_STRUCT: return "struct";
    case MAT_C_OBJECT: return "object";
    case MAT_C_CHAR: return "char";
    case MAT_C_SPARSE: return "sparse";
    case MAT_C_DOUBLE: return "double";
    case MAT_C_SINGLE: return "single";
    case MAT_C_INT8: return "int8";
    case MAT_C_UINT8: return "uint8";
    case MAT_C_INT16: return "int16";
    case MAT_C_UINT16: return "uint16";
    case MAT_C_INT32: return "int32";
    case MAT_C_UINT32: return "uint32";
    case MAT_C_INT64: return "int64";
    case MAT_C_UINT64: return "uint64";
    case MAT_C_FUNCTION: return "function handle";
    case MAT_C_OPAQUE: return "opaque object";
  }
  return "unknown class";
}

std::string describe(const matvar_t& var) {
  return fmt::format("{} ({}{} {})", var.name != nullptr ? var.name : "?",
                     var.isComplex ? "complex " : "", class_name(var),
                     hdf5::shape_text(dims_of(var)));
}

// "a (double 10x3), b (char 1x5)", for messages about a missing variable.
std::string list_variables(mat_t* mat) {
  constexpr int max_listed = 20;
  std::vector<std::string> listed;
  int total = 0;
  Mat_Rewind(mat);
  while (MatVar var{Mat_VarReadNextInfo(mat)}) {
    if (total++ < max_listed) listed.push_back(describe(*var));
  }
  if (total == 0) return "no variables";
  std::string text = fmt::format("{}", fmt::join(listed, ", "));
  if (total > max_listed) text += fmt::format(", and {} more", total - max_listed);
  return text;
}

bool is_numeric_class(matio_classes class_type) {
  switch (class_type) {
    case MAT_C_DOUBLE:
    case MAT_C_SINGLE:
    case MAT_C_INT8:
    case MAT_C_UINT8:
    case MAT_C_INT16:
    case MAT_C_UINT16:
    case MAT_C_INT32:
    case MAT_C_UINT32:
    case MAT_C_INT64:
    case MAT_C_UINT64:
    case MAT_C_SPARSE: return true;
    default: return false;
  }
}

// Calls fn(const T*) with the element buffer typed by `type`.
template <typename Fn>
void with_typed_data(matio_types type, const void* data, Fn&& fn) {
  switch (type) {
    case MAT_T_DOUBLE: fn(static_cast<const double*>(data)); return;
    case MAT_T_SINGLE: fn(static_cast<const float*>(data)); return;
    case MAT_T_INT8: fn(static_cast<const std::int8_t*>(data)); return;
    case MAT_T_UINT8: fn(static_cast<const std::uint8_t*>(data)); return;
    case MAT_T_INT16: fn(static_cast<const std::int16_t*>(data)); return;
    case MAT_T_UINT16: fn(static_cast<const std::uint16_t*>(data)); return;
    case MAT_T_INT32: fn(static_cast<const std::int32_t*>(data)); return;
    case MAT_T_UINT32: fn(static_cast<const std::uint32_t*>(data)); return;
    case MAT_T_INT64: fn(static_cast<const std::int64_t*>(data)); return;
    case MAT_T_UINT64: fn(static_cast<const std::uint64_t*>(data)); return;
    default: TOPKFS_ASSERT(!"element type checked by element_size");
  }
}

std::size_t element_size(matio_types type) {
  switch (type) {
    case MAT_T_DOUBLE:
    case MAT_T_INT64:
    case MAT_T_UINT64: return 8;
    case MAT_T_SINGLE:
    case MAT_T_INT32:
    case MAT_T_UINT32: return 4;
    case MAT_T_INT16:
    case MAT_T_UINT16: return 2;
    case MAT_T_INT8:
    case MAT_T_UINT8: return 1;
    default: return 0;
  }
}

// A numeric variable as a rows x cols matrix, row-major, in `out`.
class VariableCopier {
 public:
  VariableCopier(const std::string& path, const matvar_t& var)
      : path_(path), var_(var), rows_(var.dims[0]), cols_(var.dims[1]) {}

  template <typename Out>
  void copy_to(Out* out) const {
    if (var_.class_type == MAT_C_SPARSE) {
      copy_sparse(out);
    } else {
      copy_dense(out);
    }
  }

 private:
  [[noreturn]] void corrupt(const char* what) const {
    throw DataError(fmt::format("{}: variable '{}' is corrupt: {}", path_, var_.name, what));
  }

  std::size_t checked_element_size() const {
    const std::size_t size = element_size(var_.data_type);
    if (size == 0) corrupt("unexpected element type");
    return size;
  }

  template <typename Out>
  void copy_dense(Out* out) const {
    const std::size_t count = rows_ * cols_;
    if (var_.data == nullptr || var_.nbytes < count * checked_element_size()) {
      corrupt("fewer values stored than its size says");
    }
    with_typed_data(var_.data_type, var_.data, [&](const auto* in) {
      for (std::size_t j = 0; j < cols_; ++j) {
        for (std::size_t i = 0; i < rows_; ++i) {
          out[i * cols_ + j] = static_cast<Out>(in[i + j * rows_]);
        }
      }
    });
  }

  // Compressed sparse columns: the values of column j are data[jc[j] ..
  // jc[j+1]) at rows ir[...].
  template <typename Out>
  void copy_sparse(Out* out) const {
    std::fill(out, out + rows_ * cols_, Out(0));
    const auto* sparse = static_cast<const mat_sparse_t*>(var_.data);
    if (sparse == nullptr || cols_ == 0) return;
    if (sparse->jc == nullptr || sparse->njc != cols_ + 1) corrupt("bad sparse column index");
    const std::size_t stored = std::min<std::size_t>(sparse->nir, sparse->ndata);
    if (sparse->jc[cols_] > stored ||
        (stored > 0 && (sparse->ir == nullptr || sparse->data == nullptr))) {
      corrupt("sparse index beyond the stored values");
    }
    checked_element_size();
    // Every column start first: one that decreases after a larger one would
    // let an earlier column run past the stored values.
    for (std::size_t j = 0; j < cols_; ++j) {
      if (sparse->jc[j] > sparse->jc[j + 1]) corrupt("sparse column index decreases");
    }
    with_typed_data(var_.data_type, sparse->data, [&](const auto* values) {
      for (std::size_t j = 0; j < cols_; ++j) {
        for (auto k = sparse->jc[j]; k < sparse->jc[j + 1]; ++k) {
          const std::size_t i = sparse->ir[k];
          if (i >= rows_) corrupt("sparse row index beyond the row count");
          out[i * cols_ + j] = static_cast<Out>(values[k]);
        }
      }
    });
  }

  const std::string& path_;
  const matvar_t& var_;
  std::size_t rows_;
  std::size_t cols_;
};

class MatReader {
 public:
  // With `rows`, a v7.3 file's dense X is not read: *rows gets a source that
  // reads it by row blocks, and the Dataset's matrix is n x 0. A file that
  // cannot be read so (v5, a sparse X) is then not read at all: *rows stays
  // null and the Dataset empty, for the caller to read it whole.
  MatReader(const std::string& path, const ReadOptions& options,
            std::shared_ptr<const RowSource>* rows = nullptr)
      : path_(path), options_(options), rows_(rows) {}

  Dataset read() {
    const RecordedMatioMessages matio_messages;
    const hdf5::QuietErrors quiet_hdf5;  // v7.3 files are read through libhdf5
    require_readable_file(path_);
    const hdf5::Handle hdf5_file = check_mat_structure(path_);
    if (rows_ != nullptr && !hdf5_file) return {};  // v5
    file_.reset(Mat_Open(path_.c_str(), MAT_ACC_RDONLY));
    if (!file_) {
      throw DataError(fmt::format("{}: not a readable MATLAB .mat file, or a corrupt one{}", path_,
                                  matio_detail()));
    }
    Dataset data;
    std::size_t n = 0;
    if (rows_ != nullptr) {
      const MatVar x = variable_info(options_.x_var, option_ref("x-var"));
      if (x->class_type == MAT_C_SPARSE) return {};
      n = x->dims[0];
      const std::size_t m = x->dims[1];
      detail::check_feature_shape(n, m, fmt::format("variable '{}' {}x{}", options_.x_var, n, m),
                                  path_, /*mapped=*/true);
      check_hdf5_storage(options_.x_var);
      // MATLAB stores the n x m matrix column-major: the dataset is m x n.
      // Its decoded blocks take a sixteenth of the memory budget, as an
      // HDF5 file's.
      *rows_ = std::make_shared<detail::Hdf5RowBlocks>(
          path_, std::vector<std::string>{"/" + options_.x_var}, static_cast<std::int64_t>(m),
          detail::physical_memory_bytes() / 16, /*transposed=*/true);
      data.features.resize(static_cast<Eigen::Index>(n), 0);
    } else {
      const MatVar x = read_variable(options_.x_var, option_ref("x-var"));
      n = x->dims[0];
      const std::size_t m = x->dims[1];
      detail::check_feature_shape(n, m, fmt::format("variable '{}' {}x{}", options_.x_var, n, m),
                                  path_);
      data.features.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(m));
      VariableCopier(path_, *x).copy_to(data.features.data());
    }
    // --no-target: X alone (new data for `transform`); Y is not looked for.
    const MatVar y = options_.no_target
                         ? MatVar{}
                         : read_variable(options_.y_var, option_ref("y-var"), no_target_hint());
    if (y) set_target(data, *y, n);
    return data;
  }

 private:
  // The description of a 2-D real numeric variable, or throws naming it
  // (and ending with `missing_hint` when the file has no such variable).
  MatVar variable_info(const std::string& name, const std::string& flag,
                       const std::string& missing_hint = "") const {
    MatVar info{Mat_VarReadInfo(file_.get(), name.c_str())};
    if (!info) {
      throw DataError(fmt::format("{}: no variable '{}'; the file holds: {}; choose with {}{}",
                                  path_, name, list_variables(file_.get()), flag, missing_hint));
    }
    require_real_matrix(*info, name);
    return info;
  }

  // Reads a 2-D real numeric variable, or throws as variable_info does.
  MatVar read_variable(const std::string& name, const std::string& flag,
                       const std::string& missing_hint = "") {
    const MatVar info = variable_info(name, flag, missing_hint);
    const std::uint64_t count =
        hdf5::checked_element_count(dims_of(*info), path_, fmt::format("variable '{}'", name));
    detail::check_fits_in_memory(count * 8, fmt::format("variable '{}' ({} values)", name, count),
                                 path_);
    const bool v73 = Mat_GetVersion(file_.get()) == MAT_FT_MAT73;
    if (v73) check_hdf5_storage(name);
    matio_last_message.clear();
    MatVar var{v73 && info->class_type != MAT_C_SPARSE && count > 0
                   ? read_v73_dense(name, count)
                   : Mat_VarRead(file_.get(), name.c_str())};
    if (!var || var->rank != 2 || var->dims == nullptr || var->dims[0] != info->dims[0] ||
        var->dims[1] != info->dims[1] || var->isComplex) {
      throw DataError(
          fmt::format("{}: cannot read variable '{}': the file is truncated or corrupt{}", path_,
                      name, matio_detail()));
    }
    return var;
  }

  // A dense v7.3 variable: matio's description of it, with the values read
  // in pieces of bounded chunk count (mat_v73_values.hpp) as doubles.
  // Mat_VarFree frees `data` as it frees what matio reads. Null on failure.
  matvar_t* read_v73_dense(const std::string& name, std::uint64_t count) const {
    MatVar var{Mat_VarReadInfo(file_.get(), name.c_str())};
    if (!var || var->data != nullptr) return nullptr;
    var->data = std::malloc(count * sizeof(double));
    if (var->data == nullptr) return nullptr;
    var->mem_conserve = 0;
    var->data_type = MAT_T_DOUBLE;
    var->data_size = sizeof(double);
    var->nbytes = count * sizeof(double);
    if (!mat73::read_dense_values(path_, name, count, static_cast<double*>(var->data))) {
      return nullptr;
    }
    return var.release();
  }

  // A v7.3 variable's datasets (one, or several for a sparse matrix) must
  // keep their values in the file: an external file list names files
  // anywhere on the machine, which would be read as the data.
  void check_hdf5_storage(const std::string& name) const {
    const hdf5::Handle file =
        hdf5::file_handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const hdf5::Handle object =
        hdf5::object_handle(file ? H5Oopen(file.get(), name.c_str(), H5P_DEFAULT) : -1);
    if (!object) {
      throw DataError(fmt::format("{}: cannot open variable '{}': the file is truncated or corrupt",
                                  path_, name));
    }
    std::vector<std::string> datasets;
    if (H5Iget_type(object.get()) == H5I_DATASET) {
      datasets.push_back(".");
    } else {
      H5Lvisit(object.get(), H5_INDEX_NAME, H5_ITER_INC, collect_dataset_names, &datasets);
    }
    for (const auto& dataset : datasets) {
      const hdf5::Handle opened =
          hdf5::dataset_handle(H5Dopen2(object.get(), dataset.c_str(), H5P_DEFAULT));
      const std::string where = dataset == "." ? "/" + name : "/" + name + "/" + dataset;
      if (!opened) {
        throw DataError(
            fmt::format("{}: cannot open dataset '{}': the file is corrupt", path_, where));
      }
      hdf5::check_chunk_grid(opened.get(), path_, where);
      if (hdf5::has_external_storage(opened.get())) {
        throw DataError(fmt::format(
            "{}: dataset '{}' keeps its values in other files (an HDF5 external storage list), "
            "which topkfs does not read: write the values into the file itself",
            path_, where));
      }
    }
  }

  static herr_t collect_dataset_names(hid_t group, const char* name, const H5L_info_t* info,
                                      void* names) {
    if (info->type != H5L_TYPE_HARD) return 0;
    const hdf5::Handle object = hdf5::object_handle(H5Oopen(group, name, H5P_DEFAULT));
    if (object && H5Iget_type(object.get()) == H5I_DATASET) {
      static_cast<std::vector<std::string>*>(names)->push_back(name);
    }
    return 0;
  }

  void require_real_matrix(const matvar_t& var, const std::string& name) const {
    if (!is_numeric_class(var.class_type)) {
      throw DataError(fmt::format(
          "{}: variable '{}' is {}, not a numeric matrix; store the data as a double, single, "
          "integer or logical array",
          path_, name, describe(var)));
    }
    if (var.isComplex) {
      throw DataError(fmt::format("{}: variable '{}' is {}: complex values are not supported",
                                  path_, name, describe(var)));
    }
    if (var.rank != 2 || var.dims == nullptr) {
      throw DataError(fmt::format(
          "{}: variable '{}' is {}: expected a 2-D matrix (samples x features); reshape it, "
          "e.g. in MATLAB X = reshape(X, size(X, 1), [])",
          path_, name, describe(var)));
    }
  }

  // Y is n x 1, 1 x n or n x q, for X with n rows.
  void set_target(Dataset& data, const matvar_t& y, std::size_t n) const {
    const std::size_t a = y.dims[0];
    const std::size_t b = y.dims[1];
    const bool vector = (a == n && b == 1) || (a == 1 && b == n);
    if (a * b == 0) {
      throw DataError(
          fmt::format("{}: variable '{}' is empty ({}x{}); it must hold one target per "
                      "row of '{}'",
                      path_, options_.y_var, a, b, options_.x_var));
    }
    if (!vector && a != n) {
      throw DataError(fmt::format(
          "{}: variable '{}' holds {} target values ({}x{}) but variable '{}' has {} rows "
          "(samples); they must agree",
          path_, options_.y_var, a * b, a, b, options_.x_var, n));
    }
    // A row vector's column-major values are already in sample order, so the
    // row-major copy serves for both shapes.
    std::vector<double> values(a * b);
    VariableCopier(path_, y).copy_to(values.data());
    const int q = vector ? 1 : static_cast<int>(b);
    std::vector<std::string> names;
    if (q == 1) {
      names.push_back(options_.y_var);
    } else {
      for (int j = 0; j < q; ++j) names.push_back(fmt::format("{}_{}", options_.y_var, j));
    }
    set_target_from_numbers(data, values, q, names, options_, path_);
  }

  const std::string& path_;
  const ReadOptions& options_;
  std::shared_ptr<const RowSource>* rows_;
  MatFile file_;
};

}  // namespace

namespace detail {

Dataset read_mat_v73_here(const std::string& path, const ReadOptions& options,
                          std::shared_ptr<const RowSource>* rows) {
  return MatReader(path, options, rows).read();
}

namespace {

// A v5 file read here, whole; a v7.3 file in the reader program.
Dataset read_mat_file(const std::string& path, const ReadOptions& options,
                      const MatrixOnDisk* on_disk) {
  require_readable_file(path);
  bool swapped = false;
  if (check_mat_header(path, &swapped)) {
    return read_in_reader_process(Format::Mat, path, options, on_disk);
  }
  return MatReader(path, options).read();
}

}  // namespace

Dataset read_mat_by_rows(const std::string& path, const ReadOptions& options,
                         const MatrixOnDisk& on_disk) {
  return read_mat_file(path, options, &on_disk);
}

}  // namespace detail

Dataset read_mat(const std::string& path, const ReadOptions& options) {
  return detail::read_mat_file(path, options, nullptr);
}

}  // namespace topkfs
