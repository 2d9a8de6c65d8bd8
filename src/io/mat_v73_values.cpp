#include "mat_v73_values.hpp"

#include <hdf5.h>

#include <vector>

#include "hdf5_chunked_reads.hpp"
#include "hdf5_util.hpp"

namespace topkfs::mat73 {

bool read_dense_values(const std::string& path, const std::string& name, std::uint64_t count,
                       double* out) {
  const hdf5::Handle file = hdf5::file_handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file) return false;
  const hdf5::Handle dataset =
      hdf5::dataset_handle(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT));
  if (!dataset) return false;
  const std::vector<std::uint64_t> dims = hdf5::dataset_dims(dataset.get());
  std::uint64_t values = dims.empty() ? 0 : 1;
  for (auto dim : dims) values *= dim;  // check_storage bounded the product
  if (values != count || count == 0) return false;
  // Dataset row i holds the matrix's column i: reading the rows in order
  // writes the column-major layout.
  return hdf5::read_rows_in_pieces(dataset.get(), H5T_NATIVE_DOUBLE, 0, dims[0], out);
}

}  // namespace topkfs::mat73
