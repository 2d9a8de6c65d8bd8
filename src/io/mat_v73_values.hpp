#pragma once
// The values of a dense v7.3 MATLAB variable, read through the HDF5 piece
// reader instead of matio.
//
// matio reads a v7.3 variable in one H5Dread, for which libhdf5 first builds
// about 4 KB of bookkeeping for every chunk the read spans
// (hdf5_chunked_reads.hpp): a 0.8 MB file holding a 262144 x 4 variable in
// chunks of 2 values took 2 GB and many seconds to read that way. Read in
// pieces of at most kChunksPerRead chunks it takes a few MB more than the
// values.
#include <cstdint>
#include <string>

namespace topkfs::mat73 {

// Reads the `count` values of variable `name` of the v7.3 file at `path`, a
// numeric HDF5 dataset, into `out` as doubles in MATLAB's column-major
// order (the dataset is the matrix transposed: its rows are the matrix's
// columns). False when the variable is not one dataset of `count` values or
// libhdf5 fails; the caller names the variable. The dataset must have passed
// hdf5::check_storage.
bool read_dense_values(const std::string& path, const std::string& name, std::uint64_t count,
                       double* out);

}  // namespace topkfs::mat73
