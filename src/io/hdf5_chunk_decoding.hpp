#pragma once
// A filtered dataset's pipeline as the file describes it, for the row
// blocks' own decoding of deflate and shuffle (hdf5_stored_matrix.hpp).
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

}  // namespace topkfs::hdf5
