// NPY (numpy.save): features from a 2-D array (or an image stack (n, h, w)
// or (n, h, w, c)), the target from a second NPY given as options.y_file.
// Without one the data has no target (TargetKind::None) and a note says so.
//
// Little-endian float32 features in C order are mapped from the file
// (options.map): the matrix borrows the mapping and nothing is read until a
// row is used. Other element types are streamed from the file into the
// matrix in 1 MB chunks: the raw payload never sits in memory beside the
// floats.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "mapped_file.hpp"
#include "npy_format.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;  // a multiple of every element size

void read_or_throw(std::ifstream& in, char* buffer, std::size_t size, const std::string& path) {
  if (!in.read(buffer, static_cast<std::streamsize>(size))) {
    throw FileError(fmt::format("{}: read failed: {}", path, std::strerror(errno)));
  }
}

// Reads and checks the header; leaves `in` at the first payload byte.
detail::NpyHeader read_npy_header(std::ifstream& in, const std::string& path, std::uint64_t size) {
  char preamble[detail::kNpyPreambleBytes] = {};
  in.read(preamble, sizeof preamble);
  const auto got = static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0));
  const std::uint64_t length = detail::npy_header_length(preamble, got, path);
  if (length > size) {
    throw DataError(fmt::format("{}: truncated: the NPY header claims {} bytes, file holds {}",
                                path, length, size));
  }
  std::string header_bytes(static_cast<std::size_t>(length), '\0');
  in.clear();
  in.seekg(0);
  read_or_throw(in, header_bytes.data(), header_bytes.size(), path);
  auto header = detail::parse_npy_header(header_bytes.data(), header_bytes.size(), path);
  detail::check_npy_payload(header, size - length, path);
  return header;
}

void stream_features(std::ifstream& in, const detail::NpyHeader& header, const std::string& path,
                     float* out) {
  const auto element_size = static_cast<std::size_t>(header.type.size);
  const std::uint64_t total = header.payload_bytes();
  std::vector<char> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, total)));
  for (std::uint64_t done = 0; done < total;) {
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), total - done));
    read_or_throw(in, buffer.data(), want, path);
    detail::decode_npy_elements(header, buffer.data(), done / element_size, want / element_size,
                                out);
    done += want;
  }
}

}  // namespace

Dataset read_npy(const std::string& path, const ReadOptions& options) {
  require_readable_file(path);
  std::ifstream in(path, std::ios::binary);
  const auto header = read_npy_header(in, path, file_size(path));
  const bool map = options.map && detail::npy_maps_as_features(header) &&
                   detail::float_aligned(header.header_bytes);
  const auto layout = detail::feature_layout(header, path, map);

  Dataset data;
  if (map) {
    auto file = std::make_shared<const detail::MappedFile>(path);
    const auto* values = reinterpret_cast<const float*>(file->data() + header.header_bytes);
    data.features = FeatureMatrix::borrow(values, layout.rows, layout.cols, std::move(file),
                                          RowStorage::Mapped);
  } else {
    data.features = detail::allocate_features(layout.rows, layout.cols, path);
    stream_features(in, header, path, data.features.data());
    // Said only where mapping would matter: a small file is simply read.
    constexpr std::uint64_t kWorthMapping = std::uint64_t{256} << 20;
    if (options.map && header.payload_bytes() >= kWorthMapping) {
      data.notes.push_back(fmt::format(
          "read into memory: only little-endian float32 in C order is mapped from the file (this "
          "one is {}{}); `topkfs convert` writes such a file",
          header.type.name(), header.fortran_order ? ", Fortran order" : ""));
    }
  }
  data.feature_names = detail::feature_names_for(layout);
  data.image_shape = layout.image;

  if (options.y_file.empty()) {
    if (!options.no_target) {
      data.notes.push_back(
          fmt::format("no target: the NPY file holds the features only; pass {} with the target to "
                      "select features",
                      option_ref("y-file", "FILE.npy")));
    }
    return data;
  }
  const auto target = detail::parse_npy_blob(read_file_bytes(options.y_file), options.y_file);
  detail::set_npy_target(data, {&target}, {layout.rows}, "y", options);
  return data;
}

}  // namespace topkfs
