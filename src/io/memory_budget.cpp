#include "memory_budget.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "topkfs/core/error.hpp"
#include "topkfs/io/resource_limits.hpp"

namespace topkfs::detail {
namespace {

// What a feature name costs beside its float column: the std::string and
// its short text ("x123456"), counted so that a billion-column header with
// a single row is refused as well.
constexpr std::uint64_t kBytesPerColumnName = 40;

std::string gigabytes(std::uint64_t bytes) {
  return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9);
}

std::atomic<void (*)(std::uint64_t)> allocation_observer{nullptr};

}  // namespace

void set_allocation_observer(void (*observer)(std::uint64_t bytes)) {
  allocation_observer = observer;
}

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
  const std::uint64_t chosen = resource_limits().memory_bytes;
  return chosen != 0 ? std::min(bytes, chosen) : bytes;
}

void check_fits_in_memory(std::uint64_t bytes, const std::string& what, const std::string& where,
                          const std::string& hint) {
  const std::uint64_t memory = physical_memory_bytes();
  if (bytes <= memory) {
    if (const auto observer = allocation_observer.load()) observer(bytes);
    return;
  }
  const ResourceLimits limits = resource_limits();
  const std::string budget =
      limits.memory_bytes != 0 && limits.memory_bytes == memory
          ? fmt::format("{} allows {}", limits.memory_name, gigabytes(memory))
          : fmt::format("this machine has {} of memory", gigabytes(memory));
  throw DataError(fmt::format("{}: {} needs {} ({} bytes) but {}; {}", where, what,
                              gigabytes(bytes), bytes, budget,
                              hint.empty() ? std::string(kConvertHint) : hint));
}

void check_feature_shape(std::uint64_t rows, std::uint64_t cols, const std::string& shape,
                         const std::string& where, bool mapped) {
  if (rows == 0)
    throw DataError(fmt::format("{}: the data has no samples (shape {})", where, shape));
  if (cols == 0) {
    throw DataError(fmt::format("{}: the data has no feature columns (shape {})", where, shape));
  }
  std::uint64_t bytes = 0;
  std::uint64_t names = 0;
  const std::uint64_t element = mapped ? 0 : 4;  // a mapped matrix lies in the page cache
  if (__builtin_mul_overflow(rows, cols, &bytes) ||
      __builtin_mul_overflow(bytes, element, &bytes) ||
      __builtin_mul_overflow(cols, kBytesPerColumnName, &names) ||
      __builtin_add_overflow(bytes, names, &bytes)) {
    bytes = UINT64_MAX;
  }
  check_fits_in_memory(bytes,
                       mapped ? fmt::format("the names of its {} columns", cols)
                              : fmt::format("the feature matrix ({} x {} float32)", rows, cols),
                       where);
}

}  // namespace topkfs::detail
