#pragma once
// File access shared by the readers: opening with errors that name the path,
// whole-file reads, and gzip decompression (whole or streamed).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace topkfs {

// Deflate cannot expand data by more than about 1032:1, so compressed data
// of C bytes never holds more than kMaxDeflateRatio * C: a header claiming
// more is corrupt and is refused before anything is allocated.
constexpr std::uint64_t kMaxDeflateRatio = 1032;

// "a FIFO (named pipe)", "a character device", ... for a st_mode that is
// not a regular file.
const char* kind_of_special_file(unsigned mode);

// Throws FileError if `path` does not exist, is a directory or another file
// that is not regular (opening a FIFO would block), or cannot be opened for
// reading; DataError if it is empty.
void require_readable_file(const std::string& path);

// Size in bytes of a readable file (after require_readable_file).
std::uint64_t file_size(const std::string& path);

// The whole file as bytes.
std::string read_file_bytes(const std::string& path);

// The whole file as text, decompressed when it starts with the gzip magic.
std::string read_text_maybe_gzip(const std::string& path);

// True when the bytes start with the gzip magic 1f 8b.
bool has_gzip_magic(const std::string& path);

// Streams the decompressed content of a gzip file (or the plain content of a
// file without the gzip magic), so a large file never sits in memory twice.
class GzipStream {
 public:
  explicit GzipStream(const std::string& path);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Reads up to `size` bytes; returns how many were read (0 at the end).
  // Throws DataError naming the file when the stream is corrupt or truncated.
  std::size_t read_some(void* buffer, std::size_t size);
  // Reads exactly `size` bytes or throws DataError ("truncated: expected N
  // bytes of <what>, found M").
  void read_exact(void* buffer, std::size_t size, const char* what);
  // True once the end of the decompressed data has been reached.
  bool at_end();
  const std::string& path() const { return path_; }

 private:
  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

// Inflates a raw DEFLATE stream (as inside zip archives) of known output size.
std::string inflate_raw(const char* data, std::size_t size, std::size_t expected_size,
                        const std::string& where);

}  // namespace topkfs
