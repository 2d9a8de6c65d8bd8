#include "topkfs/io/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ext/stdio_filebuf.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "temporary_files.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"

namespace topkfs {

struct OutputGroup::Staged {
  std::vector<std::pair<std::string, std::string>> renames;  // temporary, destination
};

namespace {

namespace fs = std::filesystem;

thread_local OutputGroup* active_group = nullptr;

// The file a symbolic link (or a chain of them) finally names, even when it
// does not exist yet: the link is kept and its target written.
std::string follow_links(const std::string& path) {
  constexpr int kMaxHops = 40;  // as the kernel's own limit on link chains
  fs::path current(path);
  std::error_code error;
  for (int hop = 0; fs::is_symlink(fs::symlink_status(current, error)); ++hop) {
    const fs::path target = fs::read_symlink(current, error);
    if (error || hop == kMaxHops) {
      throw FileError(fmt::format("{}: cannot follow the symbolic link: {}", path,
                                  error ? error.message() : "too many levels of links"));
    }
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  return current.lexically_normal().string();
}

// Where the bytes for `path` go: the path itself, or the file its links
// name. Refuses what cannot be replaced.
std::string destination_of(const std::string& path, struct stat& existing, bool& exists) {
  const std::string destination = follow_links(path);
  exists = ::stat(destination.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) {
    throw FileError(fmt::format("{}: is {}; results are written to regular files only", path,
                                kind_of_special_file(existing.st_mode)));
  }
  return destination;
}

// Makes a rename in `folder` durable: without it a system crash soon after
// can leave the folder's old entry (the replaced file, or none).
void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // a folder we may not open: the rename stands, only not yet on disk
  ::fsync(fd);
  ::close(fd);
}

std::string folder_of(const std::string& destination) {
  const std::string folder = fs::path(destination).parent_path().string();
  return folder.empty() ? "." : folder;
}

void rename_into_place(const std::string& temporary, const std::string& destination,
                       const std::string& path) {
  if (std::rename(temporary.c_str(), destination.c_str()) != 0) {
    const int saved = errno;
    std::remove(temporary.c_str());
    detail::forget_temporary(temporary);
    throw FileError(fmt::format("{}: cannot write: {}", path, std::strerror(saved)));
  }
  detail::forget_temporary(temporary);
  sync_folder(folder_of(destination));
}

// The permission bits a new file gets (0666 less the umask), read without
// changing the process's umask (another thread may be creating files).
mode_t new_file_mode() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0)
      return 0666 & ~static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 0644;
}

// A temporary in the destination's folder, created exclusively (O_EXCL)
// under a name no one can predict (mkstemp): a link planted at a guessed
// name is never followed. The name stays short whatever the destination's
// length, so a legal destination name never fails for its temporary.
struct Temporary {
  std::string path;
  int fd = -1;
};

Temporary create_temporary(const std::string& destination, const std::string& path) {
  constexpr std::size_t kStemChars = 64;
  const std::string stem = fs::path(destination).filename().string().substr(0, kStemChars);
  std::string name = (fs::path(folder_of(destination)) / ("." + stem + ".tmpXXXXXX")).string();
  std::vector<char> buffer(name.begin(), name.end());
  buffer.push_back('\0');
  const int fd = ::mkostemp(buffer.data(), O_CLOEXEC);
  if (fd < 0) throw FileError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  return {std::string(buffer.data()), fd};
}

}  // namespace

OutputGroup::OutputGroup() : staged_(std::make_unique<Staged>()), outer_(active_group) {
  active_group = this;
}

OutputGroup::~OutputGroup() {
  active_group = outer_;
  for (const auto& [temporary, destination] : staged_->renames) {
    std::remove(temporary.c_str());
    detail::forget_temporary(temporary);
  }
}

void OutputGroup::commit() {
  active_group = outer_;
  auto renames = std::move(staged_->renames);
  staged_->renames.clear();
  for (std::size_t i = 0; i < renames.size(); ++i) {
    try {
      rename_into_place(renames[i].first, renames[i].second, renames[i].second);
    } catch (...) {
      for (std::size_t j = i + 1; j < renames.size(); ++j) {
        std::remove(renames[j].first.c_str());
        detail::forget_temporary(renames[j].first);
      }
      throw;
    }
  }
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  struct stat existing {};
  bool exists = false;
  const std::string destination = destination_of(path, existing, exists);
  const Temporary created = create_temporary(destination, path);
  const std::string& temporary = created.path;
  detail::remember_temporary(temporary);
  try {
    // The buffer owns the descriptor and closes it.
    __gnu_cxx::stdio_filebuf<char> buffer(created.fd, std::ios::out | std::ios::binary);
    std::ostream out(&buffer);
    // The replaced file's permissions stay (a private result stays private);
    // a new file gets the usual ones (mkstemp's are 0600).
    const mode_t mode = exists ? (existing.st_mode & 07777) : new_file_mode();
    if (::fchmod(created.fd, mode) != 0) {
      throw FileError(
          fmt::format("{}: cannot keep the file's permissions: {}", path, std::strerror(errno)));
    }
    write(out);
    out.flush();
    if (!out) throw FileError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    // On disk before the rename makes it the result: "atomic" then holds
    // across a system crash too.
    if (::fsync(created.fd) != 0) {
      throw FileError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    }
  } catch (...) {
    std::remove(temporary.c_str());
    detail::forget_temporary(temporary);
    throw;
  }
  if (active_group != nullptr) {
    active_group->staged_->renames.emplace_back(temporary, destination);
    return;
  }
  rename_into_place(temporary, destination, path);
}

void check_output_writable(const std::string& path) {
  struct stat existing {};
  bool exists = false;
  const Temporary probe = create_temporary(destination_of(path, existing, exists), path);
  ::close(probe.fd);
  std::remove(probe.path.c_str());
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

}  // namespace topkfs
