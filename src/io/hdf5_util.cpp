#include "hdf5_util.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"

namespace topkfs::hdf5 {

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  if (dims.empty()) return "scalar";
  return fmt::format("{}", fmt::join(dims, "x"));
}

std::uint64_t checked_element_count(const std::vector<std::uint64_t>& dims,
                                    const std::string& path, const std::string& what) {
  // Every stored element takes at least one byte before compression.
  constexpr std::uint64_t max_compression_ratio = 1100;
  const std::uint64_t limit = (file_size(path) + 1024) * max_compression_ratio;
  std::uint64_t count = 1;
  for (auto dim : dims) {
    if (dim != 0 && count > limit / dim) {
      count = limit + 1;
      break;
    }
    count *= dim;
  }
  if (count > limit) {
    throw DataError(fmt::format(
        "{}: {} claims {} values, more than a file of {} bytes can hold: the file is corrupt",
        path, what, shape_text(dims), file_size(path)));
  }
  return count;
}

void silence_errors() {
  // Cheap and idempotent; called at each read rather than once, because in a
  // thread-safe HDF5 build the setting is per thread.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace topkfs::hdf5
