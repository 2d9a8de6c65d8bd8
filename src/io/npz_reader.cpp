// NPZ (numpy.savez / savez_compressed): a zip archive of NPY members, stored
// or deflated. The zip structures are parsed here (end-of-central-directory
// record, zip64 included, central directory, local headers) and every
// member read is CRC-checked. A features member stored float32 at an aligned
// offset is mapped instead (ReadOptions::map), like an NPY file.
//
// Which arrays:
//  - features options.x_var (default "X"), target options.y_var (default "Y");
//    when an exact name is absent a unique case-insensitive match is taken
//    ("x", "y"). An archive holding only the features loads without a target.
//  - otherwise, arrays X_train, y_train, X_test, y_test (names matched
//    case-insensitively) are stacked train rows first and become the
//    predefined split (train = the X_train rows, test = the X_test rows).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "mapped_file.hpp"
#include "memory_budget.hpp"
#include "npy_format.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs {
namespace {

constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64End = 0x06064b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr std::uint32_t kMaxLocal32 = 0xffffffffu;

std::uint64_t little_endian(const char* p, int bytes) {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(p[i]);
  return value;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

struct ZipEntry {
  std::string name;   // "X.npy"
  std::string array;  // "X"
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0;
  std::uint64_t uncompressed = 0;
  std::uint64_t local_offset = 0;
};

class NpzArchive {
 public:
  explicit NpzArchive(const std::string& path)
      : path_(path), in_(path, std::ios::binary), size_(file_size(path)) {
    read_central_directory();
  }

  const std::string& path() const { return path_; }

  std::string array_list() const {
    std::vector<std::string> names;
    for (const auto& entry : entries_) names.push_back(entry.array);
    return names.empty() ? std::string("no arrays") : fmt::format("{}", fmt::join(names, ", "));
  }

  std::size_t array_count() const { return entries_.size(); }

  // The member named `array`, else a unique case-insensitive match.
  const ZipEntry* find(const std::string& array) const {
    for (const auto& entry : entries_) {
      if (entry.array == array) return &entry;
    }
    const ZipEntry* match = nullptr;
    for (const auto& entry : entries_) {
      if (lower(entry.array) == lower(array)) {
        if (match != nullptr) return nullptr;
        match = &entry;
      }
    }
    return match;
  }

  // A member stored without compression lies in the file as a plain NPY:
  // its parsed header and the offset of its payload, or nothing for a
  // deflated or encrypted member.
  struct StoredArray {
    detail::NpyHeader header;
    std::uint64_t payload_offset = 0;
  };
  std::optional<StoredArray> stored_array(const ZipEntry& entry) {
    if (entry.method != 0 || (entry.flags & 1u) || entry.compressed != entry.uncompressed) {
      return std::nullopt;
    }
    const std::string where = fmt::format("{}: {}", path_, entry.name);
    const std::uint64_t start = member_offset(entry);
    const std::uint64_t preamble =
        std::min<std::uint64_t>(detail::kNpyPreambleBytes, entry.uncompressed);
    const std::string head = read_at(start, preamble, "member data");
    const std::uint64_t length = detail::npy_header_length(head.data(), head.size(), where);
    if (length > entry.uncompressed) {
      throw DataError(
          fmt::format("{}: truncated: the NPY header claims {} bytes, the member holds {}", where,
                      length, entry.uncompressed));
    }
    const std::string header_bytes = read_at(start, length, "member data");
    StoredArray array{detail::parse_npy_header(header_bytes.data(), header_bytes.size(), where),
                      start + length};
    detail::check_npy_payload(array.header, entry.uncompressed - length, where);
    return array;
  }

  detail::NpyArray load(const ZipEntry& entry) {
    const std::string where = fmt::format("{}: {}", path_, entry.name);
    return detail::parse_npy_blob(member_bytes(entry, where), where);
  }

 private:
  [[noreturn]] void corrupt(const std::string& what) const {
    throw DataError(fmt::format("{}: corrupt or truncated NPZ (zip) archive: {}", path_, what));
  }

  std::string read_at(std::uint64_t offset, std::uint64_t count, const char* what) {
    if (offset > size_ || count > size_ - offset) {
      corrupt(fmt::format("{} at byte {} (+{}) lies past the end of the file ({} bytes)", what,
                          offset, count, size_));
    }
    std::string bytes(static_cast<std::size_t>(count), '\0');
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    if (!in_.read(bytes.data(), static_cast<std::streamsize>(count))) {
      throw FileError(fmt::format("{}: read failed: {}", path_, std::strerror(errno)));
    }
    return bytes;
  }

  void read_central_directory() {
    // The end record (22 bytes + a comment of at most 65535) closes the file.
    const std::uint64_t tail_size = std::min<std::uint64_t>(size_, 22 + 65535);
    const std::string tail = read_at(size_ - tail_size, tail_size, "end of the archive");
    std::optional<std::size_t> end;
    for (std::size_t at = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; at-- > 0;) {
      if (little_endian(&tail[at], 4) == kEndOfCentralDirectory) {
        end = at;
        break;
      }
    }
    if (!end) {
      throw DataError(fmt::format(
          "{}: not an NPZ file: no zip end-of-central-directory record (the file is not a zip "
          "archive, or it is truncated); NPZ files are written by numpy.savez",
          path_));
    }
    const char* record = &tail[*end];
    std::uint64_t count = little_endian(record + 10, 2);
    std::uint64_t directory_size = little_endian(record + 12, 4);
    std::uint64_t directory_offset = little_endian(record + 16, 4);
    if (count == 0xffff || directory_size == kMaxLocal32 || directory_offset == kMaxLocal32) {
      const std::uint64_t end_offset = size_ - tail_size + *end;
      read_zip64_end(end_offset, count, directory_size, directory_offset);
    }
    if (count * 46 > directory_size) {
      corrupt(fmt::format("{} entries cannot fit a central directory of {} bytes", count,
                          directory_size));
    }
    const std::string directory = read_at(directory_offset, directory_size, "central directory");
    std::size_t at = 0;
    for (std::uint64_t i = 0; i < count; ++i) at = parse_central_header(directory, at);
  }

  void read_zip64_end(std::uint64_t end_offset, std::uint64_t& count, std::uint64_t& directory_size,
                      std::uint64_t& directory_offset) {
    if (end_offset < 20) corrupt("zip64 sizes without a zip64 locator");
    const std::string locator = read_at(end_offset - 20, 20, "zip64 locator");
    if (little_endian(locator.data(), 4) != kZip64Locator) {
      corrupt("zip64 sizes without a zip64 locator");
    }
    const std::string record =
        read_at(little_endian(locator.data() + 8, 8), 56, "zip64 end record");
    if (little_endian(record.data(), 4) != kZip64End) corrupt("bad zip64 end record");
    count = little_endian(record.data() + 32, 8);
    directory_size = little_endian(record.data() + 40, 8);
    directory_offset = little_endian(record.data() + 48, 8);
  }

  // Parses the central header at `at`; returns the offset of the next one.
  std::size_t parse_central_header(const std::string& directory, std::size_t at) {
    if (at + 46 > directory.size() || little_endian(&directory[at], 4) != kCentralHeader) {
      corrupt(fmt::format("bad central directory entry {}", entries_.size() + 1));
    }
    const char* h = &directory[at];
    ZipEntry entry;
    entry.flags = static_cast<std::uint16_t>(little_endian(h + 8, 2));
    entry.method = static_cast<std::uint16_t>(little_endian(h + 10, 2));
    entry.crc = static_cast<std::uint32_t>(little_endian(h + 16, 4));
    entry.compressed = little_endian(h + 20, 4);
    entry.uncompressed = little_endian(h + 24, 4);
    const std::size_t name_length = little_endian(h + 28, 2);
    const std::size_t extra_length = little_endian(h + 30, 2);
    const std::size_t comment_length = little_endian(h + 32, 2);
    entry.local_offset = little_endian(h + 42, 4);
    const std::size_t next = at + 46 + name_length + extra_length + comment_length;
    if (next > directory.size()) corrupt("a central directory entry runs past its end");
    entry.name = directory.substr(at + 46, name_length);
    apply_zip64_extra(directory.substr(at + 46 + name_length, extra_length), entry);
    const std::string suffix = ".npy";
    const bool npy =
        entry.name.size() > suffix.size() &&
        entry.name.compare(entry.name.size() - suffix.size(), suffix.size(), suffix) == 0;
    entry.array = npy ? entry.name.substr(0, entry.name.size() - suffix.size()) : entry.name;
    // numpy.load keeps the last of two members of one name, a zip reader
    // may take the first: which array was meant cannot be told.
    const auto [earlier, added] = entry_by_array_.emplace(entry.array, entries_.size());
    if (!added) {
      throw DataError(fmt::format(
          "{}: the archive holds two members named '{}' ('{}' and '{}'); which is the array "
          "cannot be told: save the arrays again (numpy.savez writes each name once)",
          path_, entry.array, entries_[earlier->second].name, entry.name));
    }
    entries_.push_back(std::move(entry));
    return next;
  }

  // The zip64 extra field holds, in order, the 64-bit values whose 32-bit
  // fields are saturated.
  void apply_zip64_extra(const std::string& extra, ZipEntry& entry) {
    for (std::size_t at = 0; at + 4 <= extra.size();) {
      const auto id = little_endian(&extra[at], 2);
      const auto length = little_endian(&extra[at + 2], 2);
      if (id == 0x0001) {
        std::size_t field = at + 4;
        for (auto* value : {&entry.uncompressed, &entry.compressed, &entry.local_offset}) {
          if (*value != kMaxLocal32) continue;
          if (field + 8 > at + 4 + length || field + 8 > extra.size()) {
            corrupt(fmt::format("short zip64 field for {}", entry.name));
          }
          *value = little_endian(&extra[field], 8);
          field += 8;
        }
      }
      at += 4 + length;
    }
  }

  // Where the member's bytes start: after its local header.
  std::uint64_t member_offset(const ZipEntry& entry) {
    const std::string local = read_at(entry.local_offset, 30, "local header");
    if (little_endian(local.data(), 4) != kLocalHeader) {
      corrupt(fmt::format("no local header for {} at byte {}", entry.name, entry.local_offset));
    }
    return entry.local_offset + 30 + little_endian(local.data() + 26, 2) +
           little_endian(local.data() + 28, 2);
  }

  std::string member_bytes(const ZipEntry& entry, const std::string& where) {
    if (entry.flags & 1u) {
      throw DataError(
          fmt::format("{}: the member is encrypted; save the archive without a password", where));
    }
    if (entry.method != 0 && entry.method != 8) {
      throw DataError(fmt::format(
          "{}: zip compression method {} is not supported (NPZ members are stored or deflated, "
          "as numpy.savez and numpy.savez_compressed write them)",
          where, entry.method));
    }
    const std::uint64_t data_offset = member_offset(entry);
    detail::check_fits_in_memory(entry.compressed + entry.uncompressed,
                                 fmt::format("member {} ({} bytes, {} stored)", entry.name,
                                             entry.uncompressed, entry.compressed),
                                 path_);
    std::string stored = read_at(data_offset, entry.compressed, "member data");
    std::string bytes;
    if (entry.method == 0) {
      if (entry.compressed != entry.uncompressed) {
        corrupt(fmt::format("stored member {} has {} bytes but claims {}", entry.name,
                            entry.compressed, entry.uncompressed));
      }
      bytes = std::move(stored);
    } else {
      if (entry.uncompressed > kMaxDeflateRatio * std::max<std::uint64_t>(entry.compressed, 1)) {
        corrupt(fmt::format("{} claims {} bytes from {} compressed", entry.name, entry.uncompressed,
                            entry.compressed));
      }
      bytes = inflate_raw(stored.data(), stored.size(),
                          static_cast<std::size_t>(entry.uncompressed), where);
    }
    const auto crc =
        crc32_z(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), bytes.size());
    if (crc != entry.crc) corrupt(fmt::format("CRC mismatch in {}", entry.name));
    return bytes;
  }

  std::string path_;
  std::ifstream in_;
  std::uint64_t size_;
  std::vector<ZipEntry> entries_;
  std::map<std::string, std::size_t> entry_by_array_;  // index in entries_
};

const ZipEntry& require(const NpzArchive& archive, const std::string& name, const char* role,
                        const char* flag) {
  if (const ZipEntry* entry = archive.find(name)) return *entry;
  throw DataError(fmt::format("{}: no array '{}' for the {}; the archive holds: {}; {}",
                              archive.path(), name, role, archive.array_list(), flag));
}

// Stacks feature arrays by rows into data.features (same columns each).
void set_features(Dataset& data, const std::vector<const detail::NpyArray*>& arrays,
                  const std::string& where) {
  std::vector<detail::MatrixLayout> layouts;
  std::int64_t rows = 0;
  for (const auto* array : arrays) {
    layouts.push_back(detail::feature_layout(array->header, array->where));
    if (layouts.back().cols != layouts.front().cols) {
      throw DataError(fmt::format("{}: {} features, but {} has {}", array->where,
                                  layouts.back().cols, arrays.front()->where,
                                  layouts.front().cols));
    }
    rows += layouts.back().rows;
  }
  data.features = detail::allocate_features(rows, layouts.front().cols, where);
  std::int64_t row = 0;
  for (std::size_t p = 0; p < arrays.size(); ++p) {
    const auto& header = arrays[p]->header;
    detail::decode_npy_elements(header, arrays[p]->payload(), 0,
                                static_cast<std::size_t>(header.elements()),
                                data.features.data() + row * layouts[p].cols);
    row += layouts[p].rows;
  }
  auto layout = layouts.front();
  layout.rows = rows;
  data.feature_names = detail::feature_names_for(layout);
  data.image_shape = layout.image;
}

// Maps the features member when it is stored float32 in C order at a 4-byte
// aligned offset (what `topkfs convert` writes); its CRC is then not checked,
// since that would read the whole member. False: read it.
bool map_features(NpzArchive& archive, const ZipEntry& entry, const ReadOptions& options,
                  Dataset& data) {
  if (!options.map) return false;
  const auto stored = archive.stored_array(entry);
  if (!stored || !detail::npy_maps_as_features(stored->header) ||
      !detail::float_aligned(stored->payload_offset)) {
    return false;
  }
  const std::string where = fmt::format("{}: {}", archive.path(), entry.name);
  const auto layout = detail::feature_layout(stored->header, where, /*mapped=*/true);
  auto file = std::make_shared<const detail::MappedFile>(archive.path());
  const auto* values = reinterpret_cast<const float*>(file->data() + stored->payload_offset);
  data.features =
      FeatureMatrix::borrow(values, layout.rows, layout.cols, std::move(file), RowStorage::Mapped);
  data.feature_names = detail::feature_names_for(layout);
  data.image_shape = layout.image;
  return true;
}

Dataset read_split(NpzArchive& archive, const ReadOptions& options) {
  const char* flag = "name the arrays X_train, y_train, X_test, y_test";
  const auto x_train = archive.load(require(archive, "X_train", "training features", flag));
  const auto x_test = archive.load(require(archive, "X_test", "test features", flag));
  Dataset data;
  set_features(data, {&x_train, &x_test}, archive.path());
  const auto train_rows = detail::feature_layout(x_train.header, x_train.where).rows;
  const auto test_rows = data.rows() - train_rows;
  if (!options.no_target) {
    const auto y_train = archive.load(require(archive, "y_train", "training target", flag));
    const auto y_test = archive.load(require(archive, "y_test", "test target", flag));
    detail::set_npy_target(data, {&y_train, &y_test}, {train_rows, test_rows}, "y", options);
  }
  Split split;
  for (std::int64_t i = 0; i < data.rows(); ++i)
    (i < train_rows ? split.train : split.test).push_back(i);
  data.predefined_split = std::move(split);
  data.notes.push_back(fmt::format("predefined split from X_train/X_test: {} train, {} test rows",
                                   train_rows, test_rows));
  return data;
}

}  // namespace

Dataset read_npz(const std::string& path, const ReadOptions& options) {
  require_readable_file(path);
  NpzArchive archive(path);
  const ZipEntry* x = archive.find(options.x_var);
  if (x == nullptr && archive.find("X_train") != nullptr && archive.find("X_test") != nullptr) {
    return read_split(archive, options);
  }
  const std::string features_hint =
      fmt::format("pass {} (or save X_train, y_train, X_test, y_test for a predefined split)",
                  option_ref("x-var", "NAME"));
  const ZipEntry& features = require(archive, options.x_var, "features", features_hint.c_str());
  Dataset data;
  if (!map_features(archive, features, options, data)) {
    const auto array = archive.load(features);
    set_features(data, {&array}, path);
  }
  if (options.no_target) return data;
  if (archive.find(options.y_var) == nullptr && archive.array_count() == 1) {
    data.notes.push_back(fmt::format(
        "no target: the archive holds only '{}'; save the target beside it as '{}' to select "
        "features",
        features.array, options.y_var));
    return data;
  }
  const std::string target_flag =
      fmt::format("pass {}", option_ref("y-var", "NAME")) + no_target_hint();
  const ZipEntry& target_entry = require(archive, options.y_var, "target", target_flag.c_str());
  const auto target = archive.load(target_entry);
  detail::set_npy_target(data, {&target}, {data.rows()}, target_entry.array, options);
  return data;
}

}  // namespace topkfs
