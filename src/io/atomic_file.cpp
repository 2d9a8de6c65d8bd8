#include "topkfs/io/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "topkfs/core/error.hpp"

namespace topkfs {

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::string temporary = fmt::format("{}.tmp{}", path, ::getpid());
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw FileError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    }
    write(out);
    out.flush();
    if (!out) throw FileError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    out.close();
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      throw FileError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    }
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

}  // namespace topkfs
