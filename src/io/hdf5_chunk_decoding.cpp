#include "hdf5_chunk_decoding.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <optional>

namespace topkfs::hdf5 {
namespace {

using Outcome = DecodedChunk::Outcome;

// Inflates the zlib stream in `data` as libhdf5's deflate filter does
// (bytes after the stream's end are ignored) and returns the inflated size,
// leaving the inflated bytes in `data` when `keep` (otherwise only counted);
// nothing when the stream is broken, ends early, or inflates to more than
// `limit` bytes.
std::optional<std::uint64_t> inflate_stream(std::vector<unsigned char>* data, bool keep,
                                            std::uint64_t limit) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) return std::nullopt;
  std::vector<unsigned char> out;
  std::array<unsigned char, 16384> window{};
  stream.next_in = data->data();
  stream.avail_in = static_cast<uInt>(std::min<std::size_t>(data->size(), UINT32_MAX));
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = window.data();
    stream.avail_out = static_cast<uInt>(window.size());
    status = inflate(&stream, Z_SYNC_FLUSH);
    if (keep) out.insert(out.end(), window.data(), stream.next_out);
    if (stream.total_out > limit) status = Z_BUF_ERROR;
  }
  const std::uint64_t size = stream.total_out;
  inflateEnd(&stream);
  if (status != Z_STREAM_END) return std::nullopt;
  if (keep) data->swap(out);
  return size;
}

// Whether a filter undone before `step` (in reverse order, not skipped)
// needs the bytes themselves rather than only their count.
bool bytes_needed_before(const std::vector<PipelineFilter>& pipeline, unsigned skipped_filters,
                         std::size_t step) {
  for (std::size_t earlier = 0; earlier < step; ++earlier) {
    if (earlier < 32 && (skipped_filters >> earlier & 1u) != 0) continue;
    const H5Z_filter_t id = pipeline[earlier].id;
    if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32 && id != H5Z_FILTER_NBIT &&
        id != H5Z_FILTER_SCALEOFFSET) {
      return true;
    }
  }
  return false;
}

// The little-endian 32-bit number at the start of `data` (szip's decoded
// size), which holds at least 4 bytes.
std::uint64_t leading_u32(const std::vector<unsigned char>& data) {
  return std::uint64_t{data[0]} | std::uint64_t{data[1]} << 8 | std::uint64_t{data[2]} << 16 |
         std::uint64_t{data[3]} << 24;
}

// n-bit and scale-offset record the number of values and the value size in
// their client data, and decode to their product.
std::uint64_t recorded_values_bytes(const PipelineFilter& filter) {
  return std::uint64_t{filter.values[2]} * filter.values[4];
}

}  // namespace

bool read_pipeline(hid_t plist, std::vector<PipelineFilter>* pipeline) {
  const int count = H5Pget_nfilters(plist);
  if (count < 0) return false;
  pipeline->assign(static_cast<std::size_t>(count), {});
  for (int index = 0; index < count; ++index) {
    auto& filter = (*pipeline)[static_cast<std::size_t>(index)];
    unsigned flags = 0;
    std::size_t values = 32;  // libhdf5's filters record at most 20 values
    filter.values.resize(values);
    unsigned config = 0;
    filter.id = H5Pget_filter2(plist, static_cast<unsigned>(index), &flags, &values,
                               filter.values.data(), 0, nullptr, &config);
    if (filter.id < 0) return false;
    filter.values.resize(std::min<std::size_t>(values, 32));
  }
  return true;
}

DecodedChunk decoded_chunk_size(const std::vector<PipelineFilter>& pipeline,
                                unsigned skipped_filters, std::vector<unsigned char> stored,
                                std::uint64_t chunk_bytes) {
  // An intermediate result this much larger than a chunk cannot decode to
  // one (scale-offset's own header can make a sound one slightly larger).
  const std::uint64_t limit = 2 * chunk_bytes + 1024;
  std::uint64_t size = stored.size();
  bool bytes_known = true;  // `stored` holds the data as decoded so far
  for (std::size_t step = pipeline.size(); step-- > 0;) {
    if (step < 32 && (skipped_filters >> step & 1u) != 0) continue;
    const PipelineFilter& filter = pipeline[step];
    switch (filter.id) {
      case H5Z_FILTER_SHUFFLE: break;
      case H5Z_FILTER_FLETCHER32:
        if (size < 4) return {Outcome::kUndecodable, 0};
        size -= 4;
        if (bytes_known) stored.resize(size);
        break;
      case H5Z_FILTER_DEFLATE: {
        if (!bytes_known) return {Outcome::kUnknown, 0};
        bytes_known = bytes_needed_before(pipeline, skipped_filters, step);
        const auto inflated = inflate_stream(&stored, bytes_known, limit);
        if (!inflated) return {Outcome::kUndecodable, 0};
        size = *inflated;
        break;
      }
      case H5Z_FILTER_SZIP:
        if (!bytes_known) return {Outcome::kUnknown, 0};
        if (size < 4) return {Outcome::kUndecodable, 0};
        size = leading_u32(stored);
        bytes_known = false;
        break;
      case H5Z_FILTER_NBIT:
        if (filter.values.size() < 5) return {Outcome::kUndecodable, 0};
        if (filter.values[1] != 0) break;  // marked as stored as it was
        size = recorded_values_bytes(filter);
        bytes_known = false;
        break;
      case H5Z_FILTER_SCALEOFFSET:
        if (filter.values.size() < 5) return {Outcome::kUndecodable, 0};
        size = recorded_values_bytes(filter);
        bytes_known = false;
        break;
      default: return {Outcome::kUnknown, 0};
    }
    if (size > limit) return {Outcome::kUndecodable, 0};
  }
  return {Outcome::kSize, size};
}

}  // namespace topkfs::hdf5
