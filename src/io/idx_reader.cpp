// IDX (LeCun's MNIST format): bytes 0 0 <type> <dims>, then <dims> big-endian
// 32-bit sizes, then the payload in row-major order. Plain or gzip.
//
// Memory: the feature matrix is allocated once from the headers and the
// payload is streamed into it in 1 MB chunks, so loading MNIST peaks at the
// float matrix plus a few MB (never the whole raw payload beside it).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "memory_budget.hpp"
#include "npy_format.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs {
namespace {

namespace fs = std::filesystem;
using detail::ElementKind;
using detail::ElementType;

// A multiple of every element size (1, 2, 4, 8), so chunks hold whole elements.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

ElementType idx_element_type(unsigned char code, const std::string& path) {
  switch (code) {
    case 0x08: return {ElementKind::Unsigned, 1, true};
    case 0x09: return {ElementKind::Signed, 1, true};
    case 0x0B: return {ElementKind::Signed, 2, true};
    case 0x0C: return {ElementKind::Signed, 4, true};
    case 0x0D: return {ElementKind::Float, 4, true};
    case 0x0E: return {ElementKind::Float, 8, true};
    default:
      throw DataError(fmt::format(
          "{}: unsupported IDX type code 0x{:02X} (byte 3 of the header); supported: 0x08 uint8, "
          "0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64",
          path, code));
  }
}

struct IdxHeader {
  ElementType type;
  std::vector<std::uint64_t> dims;
  std::uint64_t header_bytes = 0;
  std::uint64_t payload_bytes = 0;

  std::uint64_t rows() const { return dims.front(); }
  std::vector<std::uint64_t> row_dims() const { return {dims.begin() + 1, dims.end()}; }
  // "60000 x 28 x 28", with the element width when it is not one byte.
  std::string size_text() const {
    std::string text = detail::join_dims(dims);
    if (type.size > 1) text += fmt::format(" x {} bytes ({})", type.size, type.name());
    return text;
  }
};

// One IDX file, opened and positioned at its payload, its header checked
// against the file size.
class IdxFile {
 public:
  explicit IdxFile(const std::string& path)
      : stream_(path), gzip_(has_gzip_magic(path)), stored_bytes_(file_size(path)) {
    read_header();
    check_size();
  }

  const std::string& path() const { return stream_.path(); }
  const IdxHeader& header() const { return header_; }
  std::string name() const { return fs::path(path()).filename().string(); }

  // Decodes the payload into `out` (header.dims product floats).
  void read_floats(float* out) {
    stream_payload([&](const char* bytes, std::size_t count, std::uint64_t first) {
      detail::decode_to_float(header_.type, bytes, count, out + first);
    });
  }

  // Sequential reads from where the last one stopped: skips, or decodes
  // into `out`, the next `count` elements of the payload. Reaching the end
  // of the payload checks that nothing follows it.
  void skip_elements(std::uint64_t count) { next_elements(count, nullptr); }
  void read_next_floats(float* out, std::uint64_t count) { next_elements(count, out); }

  std::vector<double> read_values() {
    std::vector<double> values(static_cast<std::size_t>(header_.payload_bytes / header_.type.size));
    stream_payload([&](const char* bytes, std::size_t count, std::uint64_t first) {
      detail::decode_to_double(header_.type, bytes, count, values.data() + first);
    });
    return values;
  }

 private:
  void read_header() {
    unsigned char magic[4] = {0, 0, 0, 0};
    const std::size_t got = stream_.read_some(magic, 4);
    if (got < 4 || magic[0] != 0 || magic[1] != 0 || magic[3] == 0) {
      throw DataError(fmt::format(
          "{}: not an IDX file: magic 0x{:02X} 0x{:02X} 0x{:02X} 0x{:02X} (an IDX file starts "
          "with 0x00 0x00, a type code and the number of dimensions)",
          path(), magic[0], magic[1], magic[2], magic[3]));
    }
    header_.type = idx_element_type(magic[2], path());
    const int ndims = magic[3];
    if (ndims > 4) {
      throw DataError(fmt::format(
          "{}: the IDX header gives {} dimensions (byte 4); topkfs reads 1 (labels) to 4 (images "
          "with channels)",
          path(), ndims));
    }
    std::vector<unsigned char> sizes(static_cast<std::size_t>(ndims) * 4);
    stream_.read_exact(sizes.data(), sizes.size(), "IDX header dimensions");
    for (int d = 0; d < ndims; ++d) {
      const unsigned char* p = &sizes[static_cast<std::size_t>(d) * 4];
      header_.dims.push_back((std::uint64_t{p[0]} << 24) | (std::uint64_t{p[1]} << 16) |
                             (std::uint64_t{p[2]} << 8) | p[3]);
    }
    header_.header_bytes = 4 + sizes.size();
    header_.payload_bytes = detail::checked_product(
        header_.dims, static_cast<std::uint64_t>(header_.type.size), path());
  }

  void check_size() const {
    if (!gzip_) {
      const std::uint64_t held = stored_bytes_ - header_.header_bytes;
      if (held < header_.payload_bytes) payload_short(held);
      if (held > header_.payload_bytes) payload_long(held);
      return;
    }
    // Overflow-safe: header_bytes + payload_bytes <= ratio * stored.
    const std::uint64_t bound = kMaxDeflateRatio * stored_bytes_;
    if (header_.payload_bytes > bound || header_.header_bytes + header_.payload_bytes > bound) {
      throw DataError(fmt::format(
          "{}: corrupt header: it says {} = {} bytes, more than a gzip file of {} bytes can hold "
          "(at most {} x as much)",
          path(), header_.size_text(), header_.payload_bytes, stored_bytes_, kMaxDeflateRatio));
    }
  }

  [[noreturn]] void payload_short(std::uint64_t held) const {
    throw DataError(fmt::format("{}: truncated: header says {} = {} bytes, file holds {}{}", path(),
                                header_.size_text(), header_.payload_bytes, held,
                                gzip_ ? " (decompressed)" : ""));
  }

  [[noreturn]] void payload_long(std::uint64_t held) const {
    throw DataError(fmt::format(
        "{}: header says {} = {} bytes, but the file holds {}{} after the header (the header or "
        "the file is corrupt)",
        path(), header_.size_text(), header_.payload_bytes, held, gzip_ ? " (decompressed)" : ""));
  }

  // Calls sink(bytes, element_count, first_element) chunk by chunk, then
  // checks that nothing follows the payload.
  template <typename Sink>
  void stream_payload(Sink&& sink) {
    const auto element_size = static_cast<std::size_t>(header_.type.size);
    std::vector<char> buffer(static_cast<std::size_t>(
        std::min<std::uint64_t>(kChunkBytes, std::max<std::uint64_t>(header_.payload_bytes, 1))));
    std::uint64_t done = 0;
    while (done < header_.payload_bytes) {
      const auto want = static_cast<std::size_t>(
          std::min<std::uint64_t>(buffer.size(), header_.payload_bytes - done));
      const std::size_t got = stream_.read_some(buffer.data(), want);
      if (got < want) payload_short(done + got);
      sink(buffer.data(), got / element_size, done / element_size);
      done += got;
    }
    if (!stream_.at_end()) {
      std::uint64_t extra = 0;
      while (const std::size_t got = stream_.read_some(buffer.data(), buffer.size())) extra += got;
      payload_long(done + extra);
    }
  }

  void next_elements(std::uint64_t count, float* out) {
    const auto element_size = static_cast<std::uint64_t>(header_.type.size);
    std::vector<char> buffer(static_cast<std::size_t>(
        std::min<std::uint64_t>(kChunkBytes, std::max<std::uint64_t>(count * element_size, 1))));
    std::uint64_t left = count * element_size;
    while (left > 0) {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), left));
      const std::size_t got = stream_.read_some(buffer.data(), want);
      if (got < want) payload_short(position_ + got);
      if (out != nullptr) {
        detail::decode_to_float(header_.type, buffer.data(), got / element_size, out);
        out += got / element_size;
      }
      position_ += got;
      left -= got;
    }
    if (position_ == header_.payload_bytes && !stream_.at_end()) {
      std::uint64_t extra = 0;
      while (const std::size_t got = stream_.read_some(buffer.data(), buffer.size())) extra += got;
      payload_long(position_ + extra);
    }
  }

  GzipStream stream_;
  std::uint64_t position_ = 0;  // payload bytes read by next_elements
  bool gzip_;
  std::uint64_t stored_bytes_;
  IdxHeader header_;
};

// The images and labels of one part of the data (MNIST's train or test);
// no labels under --no-target.
struct IdxPart {
  std::unique_ptr<IdxFile> images;
  std::unique_ptr<IdxFile> labels;
};

// The images of the parts stacked by rows, read from the files on each pass
// (RowSource by row blocks), never held whole: what `topkfs convert` reads
// an IDX file with. Each pass opens the files again and reads them in
// order, so a pass in row order reads each file once; rows out of order
// cost a read from the start of their file each.
class IdxRowBlocks final : public RowPasses {
 public:
  struct Part {
    std::string path;
    std::int64_t rows = 0;
  };
  IdxRowBlocks(std::vector<Part> parts, std::int64_t cols)
      : RowPasses(total_rows(parts), cols), parts_(std::move(parts)) {}

  void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                      const RowBlockVisitor& visit) const override {
    const std::int64_t step = std::max<std::int64_t>(1, block_rows);
    std::vector<float> buffer;
    std::int64_t part_first = 0;
    for (const auto& part : parts_) {
      const std::int64_t begin = std::max(first, part_first);
      const std::int64_t end = std::min(last, part_first + part.rows);
      if (begin < end) {
        IdxFile file(part.path);
        const auto cols = static_cast<std::uint64_t>(column_count());
        file.skip_elements(static_cast<std::uint64_t>(begin - part_first) * cols);
        for (std::int64_t at = begin; at < end; at += step) {
          const std::int64_t n = std::min(step, end - at);
          buffer.resize(static_cast<std::size_t>(n * column_count()));
          file.read_next_floats(buffer.data(), static_cast<std::uint64_t>(n) * cols);
          visit(at, n, buffer.data());
        }
      }
      part_first += part.rows;
    }
  }

 private:
  static std::int64_t total_rows(const std::vector<Part>& parts) {
    std::int64_t rows = 0;
    for (const auto& part : parts) rows += part.rows;
    return rows;
  }

  std::vector<Part> parts_;
};

void check_images(const IdxFile& images) {
  if (images.header().dims.size() < 2) {
    throw DataError(
        fmt::format("{}: a 1-D IDX file (shape {}) holds labels, not images; pass the images file "
                    "(...-images-idx3-ubyte) or the folder holding all four files",
                    images.path(), detail::join_dims(images.header().dims)));
  }
}

void check_part(const IdxPart& part) {
  check_images(*part.images);
  if (!part.labels) return;
  const auto& images = part.images->header();
  const auto& labels = part.labels->header();
  const bool column = labels.dims.size() == 1 || (labels.dims.size() == 2 && labels.dims[1] == 1);
  if (!column) {
    throw DataError(
        fmt::format("{}: a labels file must be 1-D, this one is {} (is it an images file?)",
                    part.labels->path(), detail::join_dims(labels.dims)));
  }
  if (labels.rows() != images.rows()) {
    throw DataError(
        fmt::format("{}: {} labels, but {} holds {} images; the two files do not belong together",
                    part.labels->path(), labels.rows(), part.images->path(), images.rows()));
  }
}

detail::MatrixLayout layout_of(const IdxHeader& images, std::int64_t rows) {
  detail::MatrixLayout layout;
  layout.rows = rows;
  layout.cols = static_cast<std::int64_t>(detail::checked_product(images.row_dims(), 1, ""));
  const auto& d = images.dims;
  if (d.size() == 3 || d.size() == 4) {
    layout.image = ImageShape{static_cast<int>(d[1]), static_cast<int>(d[2]),
                              d.size() == 4 ? static_cast<int>(d[3]) : 1};
  }
  return layout;
}

// Stacks the parts' rows in order into one dataset; with several parts the
// first is the predefined training split and the rest the test split.
// `rows` non-null: the images are not read; *rows reads them by row blocks
// and the dataset has an n x 0 matrix.
Dataset assemble(std::vector<IdxPart>& parts, const ReadOptions& options, const std::string& where,
                 std::shared_ptr<const RowSource>* rows) {
  const IdxPart& first = parts.front();
  std::uint64_t total_rows = 0;
  for (const auto& part : parts) {
    check_part(part);
    if (part.images->header().row_dims() != first.images->header().row_dims()) {
      throw DataError(fmt::format(
          "{}: images of {}, but {} holds images of {}; the files do not belong together",
          part.images->path(), detail::join_dims(part.images->header().row_dims()),
          first.images->path(), detail::join_dims(first.images->header().row_dims())));
    }
    total_rows += part.images->header().rows();
  }

  // Before the labels are read: 0 rows of 2^32 x 2^32 pixels is refused
  // here, not by an assertion in the matrix.
  std::vector<std::uint64_t> stacked_dims = first.images->header().dims;
  stacked_dims.front() = total_rows;
  detail::check_feature_shape(total_rows,
                              detail::checked_product(first.images->header().row_dims(), 1, where),
                              detail::join_dims(stacked_dims), where);
  std::vector<double> labels;
  if (first.labels) {
    labels.reserve(static_cast<std::size_t>(total_rows));
    for (auto& part : parts) {
      const auto values = part.labels->read_values();
      labels.insert(labels.end(), values.begin(), values.end());
    }
  }

  const auto layout = layout_of(first.images->header(), static_cast<std::int64_t>(total_rows));
  Dataset data;
  std::vector<IdxRowBlocks::Part> blocks;
  if (rows == nullptr) data.features = detail::allocate_features(layout.rows, layout.cols, where);
  std::int64_t row = 0;
  for (auto& part : parts) {
    const auto part_rows = static_cast<std::int64_t>(part.images->header().rows());
    if (rows == nullptr) {
      part.images->read_floats(data.features.data() + row * layout.cols);
    } else {
      blocks.push_back({part.images->path(), part_rows});
    }
    data.notes.push_back(
        part.labels
            ? fmt::format("rows {} to {}: {} with labels from {}", row + 1, row + part_rows,
                          part.images->name(), part.labels->name())
            : fmt::format("rows {} to {}: {}", row + 1, row + part_rows, part.images->name()));
    row += part_rows;
  }
  if (rows != nullptr) {
    data.features.resize(layout.rows, 0);
    *rows = std::make_shared<IdxRowBlocks>(std::move(blocks), layout.cols);
  }
  data.feature_names = detail::feature_names_for(layout);
  data.image_shape = layout.image;
  if (first.labels) {
    set_target_from_numbers(data, labels, 1, {"label"}, options,
                            parts.size() > 1 ? where : first.labels->path());
  }

  if (parts.size() > 1) {
    Split split;
    const auto train_rows = static_cast<std::int64_t>(first.images->header().rows());
    for (std::int64_t i = 0; i < layout.rows; ++i)
      (i < train_rows ? split.train : split.test).push_back(i);
    data.predefined_split = std::move(split);
  }
  return data;
}

// ---- locating the files ----

std::vector<std::string> member_names(const std::string& part, const std::string& kind, int dims) {
  std::vector<std::string> names;
  for (const char* separator : {"-", "."}) {
    const std::string base = fmt::format("{}-{}{}idx{}-ubyte", part, kind, separator, dims);
    names.push_back(base);
    names.push_back(base + ".gz");
  }
  return names;
}

std::string folder_listing(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    names.push_back(entry.path().filename().string());
  }
  if (names.empty()) return "nothing";
  std::sort(names.begin(), names.end());
  constexpr std::size_t kShown = 20;
  std::string text = fmt::format(
      "{}", fmt::join(names.begin(), names.begin() + std::min(names.size(), kShown), ", "));
  if (names.size() > kShown) text += fmt::format(" and {} more", names.size() - kShown);
  return text;
}

Dataset read_idx_folder(const std::string& folder, const ReadOptions& options,
                        std::shared_ptr<const RowSource>* rows) {
  struct Role {
    const char* part;
    const char* kind;
    int dims;
    std::string found;
  };
  std::vector<Role> roles = {{"train", "images", 3, {}},
                             {"train", "labels", 1, {}},
                             {"t10k", "images", 3, {}},
                             {"t10k", "labels", 1, {}}};
  // --no-target: the images alone.
  if (options.no_target) roles = {roles[0], roles[2]};
  std::vector<std::string> missing;
  for (auto& role : roles) {
    for (const auto& name : member_names(role.part, role.kind, role.dims)) {
      if (fs::is_regular_file(fs::path(folder) / name)) {
        role.found = (fs::path(folder) / name).string();
        break;
      }
    }
    if (role.found.empty()) {
      missing.push_back(fmt::format("{}-{}-idx{}-ubyte[.gz]", role.part, role.kind, role.dims));
    }
  }
  if (!missing.empty()) {
    throw FileError(fmt::format("{}: not an MNIST-style folder: missing {}; the folder holds: {}",
                                folder, fmt::join(missing, ", "), folder_listing(folder)));
  }
  std::vector<IdxPart> parts(2);
  const std::size_t per_part = roles.size() / 2;
  for (std::size_t p = 0; p < 2; ++p) {
    parts[p].images = std::make_unique<IdxFile>(roles[per_part * p].found);
    if (per_part == 2) parts[p].labels = std::make_unique<IdxFile>(roles[per_part * p + 1].found);
  }
  return assemble(parts, options, folder, rows);
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  return at == std::string::npos ? std::string() : text.replace(at, from.size(), to);
}

// The labels file beside an images file: "images-idx3" -> "labels-idx1" in
// the file name, with or without ".gz".
std::string sibling_labels(const std::string& images_path) {
  const fs::path path(images_path);
  const std::string name = path.filename().string();
  std::string labels = replace_once(name, "images-idx3", "labels-idx1");
  if (labels.empty()) labels = replace_once(name, "images.idx3", "labels.idx1");
  if (labels.empty()) {
    throw DataError(
        fmt::format("{}: cannot tell where the labels are (the file name holds no 'images-idx3' to "
                    "turn into 'labels-idx1'); pass the labels file with {}{}",
                    images_path, option_ref("labels", "FILE"), no_target_hint()));
  }
  const bool gz = labels.size() > 3 && labels.compare(labels.size() - 3, 3, ".gz") == 0;
  const std::string other = gz ? labels.substr(0, labels.size() - 3) : labels + ".gz";
  for (const auto& candidate : {labels, other}) {
    const fs::path full = path.parent_path() / candidate;
    if (fs::is_regular_file(full)) return full.string();
  }
  throw FileError(fmt::format("{}: its labels file {} is missing; pass the labels file with {}{}",
                              images_path, (path.parent_path() / labels).string(),
                              option_ref("labels", "FILE"), no_target_hint()));
}

// The images file at `path`, or the folder of the four files.
Dataset read_idx_parts(const std::string& path, const ReadOptions& options,
                       std::shared_ptr<const RowSource>* rows) {
  if (fs::is_directory(path)) return read_idx_folder(path, options, rows);
  std::vector<IdxPart> parts(1);
  parts[0].images = std::make_unique<IdxFile>(path);
  check_images(*parts[0].images);
  if (!options.no_target) {
    const std::string labels =
        options.labels_path.empty() ? sibling_labels(path) : options.labels_path;
    parts[0].labels = std::make_unique<IdxFile>(labels);
  }
  return assemble(parts, options, path, rows);
}

}  // namespace

Dataset read_idx(const std::string& path, const ReadOptions& options) {
  return read_idx_parts(path, options, nullptr);
}

Dataset read_idx_by_row_blocks(const std::string& path, const ReadOptions& options,
                               std::shared_ptr<const RowSource>& rows) {
  return read_idx_parts(path, options, &rows);
}

}  // namespace topkfs
