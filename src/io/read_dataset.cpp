#include "topkfs/io/read_dataset.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "memory_budget.hpp"
#include "reader_process.hpp"
#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/rank_group.hpp"
#include "topkfs/core/utf8_text.hpp"
#include "topkfs/io/convert.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/json_field.hpp"
#include "topkfs/io/read_option_scope.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/resource_limits.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string head_bytes(const std::string& path, std::size_t count, std::size_t offset = 0) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string bytes(count, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(count));
  bytes.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return bytes;
}

bool looks_like_idx(const std::string& head) {
  if (head.size() < 4) return false;
  const auto type = static_cast<unsigned char>(head[2]);
  const auto dims = static_cast<unsigned char>(head[3]);
  const bool type_ok =
      type == 0x08 || type == 0x09 || type == 0x0B || type == 0x0C || type == 0x0D || type == 0x0E;
  return head[0] == 0 && head[1] == 0 && type_ok && dims >= 1 && dims <= 4;
}

// Two zero bytes first, which no text file has: an IDX header with a type
// code or a dimension count topkfs does not read, for the IDX reader to
// refuse with the reason rather than the CSV reader with another.
bool starts_like_idx(const std::string& head) {
  return head.size() >= 4 && head[0] == 0 && head[1] == 0;
}

bool looks_like_hdf5(const std::string& path) {
  static const std::string signature("\x89HDF\r\n\x1a\n", 8);
  // The superblock sits at 0, 512, 1024, ... (MATLAB v7.3 puts a 512-byte
  // text header first).
  for (std::size_t offset : {0u, 512u, 1024u, 2048u}) {
    if (head_bytes(path, 8, offset) == signature) return true;
  }
  return false;
}

// A text line of "label index:value ..." pairs.
bool looks_like_libsvm(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.find_first_of(" \t");
    if (space == std::string::npos) return false;
    const auto colon = line.find(':', space);
    return colon != std::string::npos && line.find(',') == std::string::npos;
  }
  return false;
}

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

constexpr EnumName<Format> kFormatNames[] = {
    {Format::Auto, "auto"},     {Format::Csv, "csv"},         {Format::Tsv, "tsv"},
    {Format::Libsvm, "libsvm"}, {Format::Libsvm, "svmlight"}, {Format::Idx, "idx"},
    {Format::Mat, "mat"},       {Format::Hdf5, "hdf5"},       {Format::Hdf5, "h5"},
    {Format::Npy, "npy"},       {Format::Npz, "npz"}};

const char* to_string(Format format) { return enum_name(format, kFormatNames); }

Format parse_format(const std::string& name) { return parse_enum(name, kFormatNames, "format"); }

constexpr EnumName<NanPolicy> kNanPolicyNames[] = {{NanPolicy::Impute, "impute"},
                                                   {NanPolicy::Error, "error"},
                                                   {NanPolicy::Drop, "drop"},
                                                   {NanPolicy::Keep, "keep"}};

const char* to_string(NanPolicy policy) { return enum_name(policy, kNanPolicyNames); }

NanPolicy parse_nan_policy(const std::string& name, const std::string& flag) {
  const std::string what = flag + " policy";
  return parse_enum(name, kNanPolicyNames, what.c_str());
}

Format detect_format(const std::string& path) {
  if (is_directory(path)) return Format::Idx;
  require_readable_file(path);
  const std::string name = to_lower(path);
  const std::string head = head_bytes(path, 128);

  if (head.rfind("\x93NUMPY", 0) == 0) return Format::Npy;
  if (head.rfind("PK\x03\x04", 0) == 0 || head.rfind("PK\x05\x06", 0) == 0) return Format::Npz;
  if (head.rfind("MATLAB 5.0 MAT-file", 0) == 0) {
    return Format::Mat;  // v5, or v7.3 (HDF5 behind a 512-byte MATLAB header)
  }
  if (looks_like_hdf5(path)) return ends_with(name, ".mat") ? Format::Mat : Format::Hdf5;
  if (looks_like_idx(head)) return Format::Idx;
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    GzipStream stream(path);
    char inner[4] = {1, 1, 1, 1};
    const auto got = stream.read_some(inner, 4);
    if (got == 4 && looks_like_idx(std::string(inner, 4))) return Format::Idx;
    if (ends_with(name, ".tsv.gz")) return Format::Tsv;
    if (ends_with(name, ".svm.gz") || ends_with(name, ".libsvm.gz") ||
        ends_with(name, ".svmlight.gz")) {
      return Format::Libsvm;
    }
    return Format::Csv;
  }
  if (ends_with(name, ".csv")) return Format::Csv;
  if (ends_with(name, ".tsv") || ends_with(name, ".tab")) return Format::Tsv;
  if (ends_with(name, ".libsvm") || ends_with(name, ".svm") || ends_with(name, ".svmlight")) {
    return Format::Libsvm;
  }
  if (ends_with(name, ".mat")) return Format::Mat;
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5")) return Format::Hdf5;
  if (ends_with(name, ".npy")) return Format::Npy;
  if (ends_with(name, ".npz")) return Format::Npz;
  if (starts_like_idx(head)) return Format::Idx;
  if (looks_like_libsvm(path)) return Format::Libsvm;
  return Format::Csv;
}

namespace {

using RowBlockReader = Dataset (*)(const std::string&, const ReadOptions&,
                                   std::shared_ptr<const RowSource>&);

// The names and labels a file gave, in UTF-8 (utf8_text.hpp): when one of
// them is not UTF-8, the file's text is taken to be Latin-1 and every name
// and label is read so, with a note (one encoding for all of them keeps two
// names apart).
void read_names_as_utf8(Dataset& data, const std::string& path) {
  std::vector<std::string*> texts;
  for (auto* names :
       {&data.feature_names, &data.group_names, &data.class_names, &data.target_names}) {
    for (auto& name : *names) texts.push_back(&name);
  }
  for (auto& levels : data.column_levels) {
    for (auto& level : levels) texts.push_back(&level);
  }
  const auto first = std::find_if(texts.begin(), texts.end(),
                                  [](const std::string* text) { return !is_utf8(*text); });
  if (first == texts.end()) return;
  const std::string example = printable_text(**first);
  // An ASCII text reads the same in both encodings and is left as it is: a
  // file of millions of columns (a LIBSVM index of 10^7) would otherwise
  // hold its names twice, unseen by the memory check of its shape.
  for (std::string* text : texts) {
    if (!is_ascii(*text)) *text = latin1_to_utf8(*text);
  }
  data.notes.push_back(fmt::format(
      "{}: names or labels that are not UTF-8 (first '{}') were read as Latin-1, as every name "
      "and label of the file; convert the file to UTF-8 if it is in another encoding",
      path, example));
}

// The data of a reader that leaves the features in the file (`rows` reads
// them by row blocks), unless a row must be dropped (then null).
std::shared_ptr<Dataset> by_row_blocks(RowBlockReader reader, Format format,
                                       const std::string& path, const ReadOptions& options,
                                       std::shared_ptr<const RowSource>& rows) {
  if (options.nan == NanPolicy::Drop) return nullptr;
  auto data = std::make_shared<Dataset>(reader(path, options, rows));
  const bool missing = std::count(data->labels.begin(), data->labels.end(), kMissingLabel) > 0 ||
                       !data->targets.allFinite();
  if (missing || !rows || rows->row_count() != data->rows()) return nullptr;
  data->source = path;
  data->format = to_string(format);
  read_names_as_utf8(*data, path);
  // The text readers check the values on their first pass; the others read
  // the features only when they are written.
  if (format == Format::Idx) {
    data->notes.push_back("features read by row blocks; their values are not checked for NaN here");
  }
  return data;
}

}  // namespace

RowStream open_row_stream(const std::string& path, const ReadOptions& options) {
  RowStream stream;
  const Format format = options.format == Format::Auto ? detect_format(path) : options.format;
  check_target_options(options, format);
  // The formats that can be read in parts: IDX and plain (not gzipped)
  // CSV, TSV and LIBSVM by passes over the file. HDF5 and v7.3 .mat files
  // come from the HDF5 reader program, mapped from a temporary file when
  // they are above half the memory budget (read_dataset_by_rows).
  RowBlockReader reader = nullptr;
  ReadOptions effective = options;
  if (format == Format::Idx) reader = read_idx_by_row_blocks;
  if ((format == Format::Csv || format == Format::Tsv) && !has_gzip_magic(path) &&
      file_size(path) > 0) {
    reader = read_csv_by_row_blocks;
    if (format == Format::Tsv && !effective.delimiter) effective.delimiter = '\t';
  }
  if (format == Format::Libsvm && !has_gzip_magic(path) && file_size(path) > 0) {
    reader = read_libsvm_by_row_blocks;
  }
  if (reader != nullptr) {
    if (!is_directory(path)) require_readable_file(path);
    stream.data = by_row_blocks(reader, format, path, effective, stream.rows);
    if (stream.data) return stream;
  }
  stream.data = std::make_shared<Dataset>(read_dataset_by_rows(path, options));
  stream.rows = std::shared_ptr<const RowSource>(stream.data, &stream.data->features);
  return stream;
}

namespace {

// The sidecar `convert` writes beside an encoded table (convert.hpp): the
// encoded columns' names and their groups, the table's columns, so that a
// selection counts k in those.
void read_encoding_sidecar(Dataset& data, const std::string& path) {
  const std::string sidecar = encoding_sidecar(path);
  struct stat info {};
  if (::stat(sidecar.c_str(), &info) != 0) return;
  const nlohmann::json beside = json_field::parse(read_file_bytes(sidecar), sidecar);
  const std::string kind = fmt::format("the encoding of {} that convert writes", path);
  using Names = std::vector<std::string>;
  data.feature_names = json_field::get<Names>(beside, "feature_names", sidecar, kind.c_str());
  data.column_group =
      json_field::get<std::vector<std::int64_t>>(beside, "column_group", sidecar, kind.c_str());
  data.group_names = json_field::get<Names>(beside, "group_names", sidecar, kind.c_str());
  const auto groups = static_cast<std::int64_t>(data.group_names.size());
  const bool fits = static_cast<std::int64_t>(data.feature_names.size()) == data.cols() &&
                    static_cast<std::int64_t>(data.column_group.size()) == data.cols() &&
                    std::all_of(data.column_group.begin(), data.column_group.end(),
                                [&](std::int64_t g) { return g >= 0 && g < groups; });
  if (!fits) {
    throw DataError(fmt::format(
        "{}: describes {} columns in {} groups, but {} has {} columns; convert the table again, "
        "or remove the stale file",
        sidecar, data.column_group.size(), groups, path, data.cols()));
  }
  data.notes.push_back(fmt::format(
      "{}: the {} columns are the encoding of {} columns of a table, each selected whole", sidecar,
      data.cols(), groups));
}

// Every reader's data: default names for unnamed columns, and at least one
// column and one row.
void name_and_require_values(Dataset& data, const std::string& path) {
  name_unnamed_features(data);
  read_names_as_utf8(data, path);
  if (data.cols() == 0) throw DataError(fmt::format("{}: the data has no feature columns", path));
  if (data.rows() == 0) throw DataError(fmt::format("{}: the data has no samples", path));
}

}  // namespace

namespace {

// What every reader's data goes through: its source and format, names,
// the checks of its values.
Dataset finish_reading(Dataset data, Format format, const std::string& path,
                       const ReadOptions& options) {
  data.source = path;
  data.format = to_string(format);
  name_and_require_values(data, path);
  check_values(data, options, path);
  data.validate();
  return data;
}

}  // namespace

Dataset read_dataset_by_rows(const std::string& path, const ReadOptions& options) {
  const Format format = options.format == Format::Auto ? detect_format(path) : options.format;
  // HDF5 and v7.3 .mat files are read in the HDF5 reader program. A matrix
  // that fits in half the memory budget comes back in memory (a chunked,
  // compressed file is inflated once, not per minibatch); a larger one, or
  // any for a rank of a data-parallel run, in an unnamed file that is
  // mapped. Dropping a row with a missing value needs every row in memory.
  if ((format != Format::Hdf5 && format != Format::Mat) || options.nan == NanPolicy::Drop) {
    return read_dataset(path, options);
  }
  check_target_options(options, format);
  detail::MatrixOnDisk on_disk;
  on_disk.folder = resource_limits().temporary_folder;
  on_disk.above_bytes = options.shard_count > 1 ? 0 : detail::physical_memory_bytes() / 2;
  Dataset data = format == Format::Hdf5 ? detail::read_hdf5_by_rows(path, options, on_disk)
                                        : detail::read_mat_by_rows(path, options, on_disk);
  return finish_reading(std::move(data), format, path, options);
}

Dataset read_dataset(const std::string& path, const ReadOptions& options) {
  const Format format = options.format == Format::Auto ? detect_format(path) : options.format;
  check_target_options(options, format);
  if (format != Format::Idx || !is_directory(path)) require_readable_file(path);
  Dataset data;
  switch (format) {
    case Format::Csv:
    case Format::Tsv: {
      ReadOptions effective = options;
      if (format == Format::Tsv && !effective.delimiter) effective.delimiter = '\t';
      data = read_csv(path, effective);
      break;
    }
    case Format::Libsvm: data = read_libsvm(path, options); break;
    case Format::Idx: data = read_idx(path, options); break;
    case Format::Mat: data = read_mat(path, options); break;
    case Format::Hdf5: data = read_hdf5(path, options); break;
    case Format::Npy:
      data = read_npy(path, options);
      read_encoding_sidecar(data, path);
      break;
    case Format::Npz:
      data = read_npz(path, options);
      read_encoding_sidecar(data, path);
      break;
    case Format::Auto: TOPKFS_ASSERT(false);
  }
  return finish_reading(std::move(data), format, path, options);
}

}  // namespace topkfs
