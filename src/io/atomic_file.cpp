#include "topkfs/io/atomic_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

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

void rename_into_place(const std::string& temporary, const std::string& destination,
                       const std::string& path) {
  if (std::rename(temporary.c_str(), destination.c_str()) != 0) {
    const int saved = errno;
    std::remove(temporary.c_str());
    detail::forget_temporary(temporary);
    throw FileError(fmt::format("{}: cannot write: {}", path, std::strerror(saved)));
  }
  detail::forget_temporary(temporary);
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
  const std::string temporary = fmt::format("{}.tmp{}", destination, ::getpid());
  detail::remember_temporary(temporary);
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw FileError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    }
    // The replaced file's permissions stay (a private result stays private).
    if (exists && ::chmod(temporary.c_str(), existing.st_mode & 07777) != 0) {
      throw FileError(
          fmt::format("{}: cannot keep the file's permissions: {}", path, std::strerror(errno)));
    }
    write(out);
    out.flush();
    if (!out) throw FileError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    out.close();
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

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

}  // namespace topkfs
