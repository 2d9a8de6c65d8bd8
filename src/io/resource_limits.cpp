#include "topkfs/io/resource_limits.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

std::mutex& limits_mutex() {
  static std::mutex mutex;
  return mutex;
}

ResourceLimits& limits_in_force() {
  static ResourceLimits limits;
  return limits;
}

std::uint64_t parse_memory_size(const char* name, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long number = std::strtoull(text, &end, 10);
  const std::string_view suffix(end);
  int shift = -1;
  if (suffix.empty()) shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  if (end == text || *text == '-' || errno == ERANGE || shift < 0 || number == 0 ||
      number > (std::uint64_t{UINT64_MAX} >> shift)) {
    throw OptionError(fmt::format(
        "{}='{}': expected a positive number of bytes, optionally with a K, M or G suffix (e.g. "
        "2G)",
        name, text));
  }
  return static_cast<std::uint64_t>(number) << shift;
}

// A positive number from the variable `name`, or 0 (the default) when it
// is unset or not a positive number: these two are for tests and fuzzing.
double positive_number(const char* name) {
  const char* text = std::getenv(name);
  const double value = text != nullptr ? std::strtod(text, nullptr) : 0;
  return value > 0 ? value : 0;
}

}  // namespace

void set_resource_limits(const ResourceLimits& limits) {
  const std::lock_guard<std::mutex> lock(limits_mutex());
  limits_in_force() = limits;
}

ResourceLimits resource_limits() {
  const std::lock_guard<std::mutex> lock(limits_mutex());
  return limits_in_force();
}

ResourceLimits resource_limits_from_environment() {
  ResourceLimits limits;
  constexpr const char* kMemory = "TOPKFS_MEMORY_LIMIT";
  if (const char* text = std::getenv(kMemory); text != nullptr && *text != '\0') {
    limits.memory_bytes = parse_memory_size(kMemory, text);
    limits.memory_name = kMemory;
  }
  limits.reader_cpu_seconds = positive_number("TOPKFS_HDF5_READER_CPU_SECONDS");
  limits.reader_memory_bytes =
      static_cast<std::uint64_t>(positive_number("TOPKFS_HDF5_READER_MEMORY_MB") * (1 << 20));
  if (const char* program = std::getenv("TOPKFS_HDF5_READER_PROGRAM")) {
    limits.reader_program = program;
  }
  if (const char* folder = std::getenv("TMPDIR"); folder != nullptr && *folder != '\0') {
    limits.temporary_folder = folder;
  }
  return limits;
}

}  // namespace topkfs
