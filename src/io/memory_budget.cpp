#include "memory_budget.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "topkfs/core/error.hpp"

namespace topkfs::detail {
namespace {

// What a feature name costs beside its float column: the std::string and
// its short text ("x123456"), counted so that a billion-column header with
// a single row is refused as well.
constexpr std::uint64_t kBytesPerColumnName = 40;

std::string gigabytes(std::uint64_t bytes) {
  return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9);
}

}  // namespace

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  std::uint64_t bytes = pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) *
                                                         static_cast<std::uint64_t>(page_size)
                                                   : UINT64_MAX;
  // A process limit (ulimit -v, -d) is the memory this process has.
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit limit {};
    if (::getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      bytes = std::min<std::uint64_t>(bytes, limit.rlim_cur);
    }
  }
  return bytes;
}

void check_fits_in_memory(std::uint64_t bytes, const std::string& what, const std::string& where) {
  const std::uint64_t memory = physical_memory_bytes();
  if (bytes <= memory) return;
  throw DataError(fmt::format(
      "{}: {} needs {} ({} bytes) but this machine has {} of memory; load a subset of the rows "
      "or columns, or use a machine with more memory",
      where, what, gigabytes(bytes), bytes, gigabytes(memory)));
}

void check_feature_shape(std::uint64_t rows, std::uint64_t cols, const std::string& shape,
                         const std::string& where) {
  if (rows == 0)
    throw DataError(fmt::format("{}: the data has no samples (shape {})", where, shape));
  if (cols == 0) {
    throw DataError(fmt::format("{}: the data has no feature columns (shape {})", where, shape));
  }
  std::uint64_t bytes = 0;
  std::uint64_t names = 0;
  if (__builtin_mul_overflow(rows, cols, &bytes) || __builtin_mul_overflow(bytes, 4, &bytes) ||
      __builtin_mul_overflow(cols, kBytesPerColumnName, &names) ||
      __builtin_add_overflow(bytes, names, &bytes)) {
    bytes = UINT64_MAX;
  }
  check_fits_in_memory(bytes, fmt::format("the feature matrix ({} x {} float32)", rows, cols),
                       where);
}

}  // namespace topkfs::detail
