#pragma once
// The size a stored chunk of a filtered dataset comes to when libhdf5
// decodes it, worked out without libhdf5.
//
// libhdf5 1.10 copies a whole chunk's bytes out of the buffer its filter
// pipeline hands back, however few bytes the pipeline made: a fuzzed file's
// 48-byte chunks held gzip streams that inflate to 32 bytes, and the read
// copied past the 39-byte buffer (tests/fuzz/regressions/hdf5/crash-005828…).
// check_storage refuses a dataset whose written chunks do not decode to
// exactly one chunk each, using this.
#include <hdf5.h>

#include <cstdint>
#include <vector>

namespace topkfs::hdf5 {

// One filter of a dataset's pipeline, as the file describes it.
struct PipelineFilter {
  H5Z_filter_t id = H5Z_FILTER_NONE;
  std::vector<unsigned> values;  // the filter's client data ("cd_values")
};

// The filters of a dataset creation property list in the order they were
// applied when writing; false when the list cannot be read.
bool read_pipeline(hid_t plist, std::vector<PipelineFilter>* pipeline);

struct DecodedChunk {
  enum class Outcome {
    kSize,         // `bytes` is the decoded size
    kUnknown,      // a filter outside libhdf5's own: its output is not known here
    kUndecodable,  // the stored bytes are not what the filters can decode
  };
  Outcome outcome = Outcome::kUnknown;
  std::uint64_t bytes = 0;
};

// What libhdf5's pipeline makes of a chunk stored as `stored`, undoing the
// filters in reverse order and skipping those whose bit is set in
// `skipped_filters` (the chunk's filter mask). Deflate streams are inflated
// (to at most twice `chunk_bytes` and a KB, enough to tell a wrong size; the
// bytes are kept only when a filter undone after it needs them);
// shuffle keeps the size, fletcher32 drops its checksum, and szip, n-bit and
// scale-offset decode to the size they record.
DecodedChunk decoded_chunk_size(const std::vector<PipelineFilter>& pipeline,
                                unsigned skipped_filters, std::vector<unsigned char> stored,
                                std::uint64_t chunk_bytes);

}  // namespace topkfs::hdf5
