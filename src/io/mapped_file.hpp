#pragma once
// Private to the readers. A file mapped read-only into memory, so that a
// float32 matrix stored in it is used where it lies: its pages belong to the
// page cache (shared, reclaimable), not to the process's anonymous memory,
// and only the rows touched are read from disk.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace topkfs::detail {

class MappedFile {
 public:
  // Maps the whole of `path`; throws FileError naming the path when it
  // cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  // Maps the whole of the open file `fd` (kept open by the mapping, not by
  // this), named `name` in messages.
  MappedFile(int fd, const std::string& name);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(address_); }
  std::uint64_t size() const { return size_; }

 private:
  void map(int fd, const std::string& path);

  void* address_ = nullptr;
  std::uint64_t size_ = 0;
};

// Whether `offset` into a mapping can be read as float32 values in place
// (4-byte aligned; the mapping itself starts on a page).
inline bool float_aligned(std::uint64_t offset) { return offset % alignof(float) == 0; }

}  // namespace topkfs::detail
