#include "mapped_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "topkfs/core/error.hpp"
#include "topkfs/io/mapping_faults.hpp"

namespace topkfs::detail {

MappedFile::MappedFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  try {
    map(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);  // the mapping keeps the file open
}

MappedFile::MappedFile(int fd, const std::string& name) { map(fd, name); }

void MappedFile::map(int fd, const std::string& path) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    throw FileError(fmt::format("{}: cannot read its size: {}", path, std::strerror(errno)));
  }
  size_ = static_cast<std::uint64_t>(info.st_size);
  if (size_ > 0) {
    address_ = ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_SHARED, fd, 0);
  }
  if (address_ == MAP_FAILED) {
    const int error = errno;
    address_ = nullptr;
    throw FileError(
        fmt::format("{}: cannot map the file into memory: {}", path, std::strerror(error)));
  }
  if (address_ != nullptr) remember_mapping(address_, static_cast<std::size_t>(size_), path);
}

MappedFile::~MappedFile() {
  if (address_ == nullptr) return;
  forget_mapping(address_);
  ::munmap(address_, static_cast<std::size_t>(size_));
}

}  // namespace topkfs::detail
