#include "topkfs/io/file_util.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "memory_budget.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {

const char* kind_of_special_file(unsigned mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

void require_readable_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw FileError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(info.st_mode)) {
    throw FileError(fmt::format("{}: is a directory, expected a file", path));
  }
  // Opening a FIFO blocks until a writer comes, and a device has no size:
  // only regular files (or symbolic links to them) are read.
  if (!S_ISREG(info.st_mode)) {
    throw FileError(fmt::format("{}: is {}, not a regular file; save the data to a file first",
                                path, kind_of_special_file(info.st_mode)));
  }
  std::ifstream probe(path, std::ios::binary);
  if (!probe) {
    throw FileError(fmt::format("{}: cannot open for reading: {}", path, std::strerror(errno)));
  }
  if (info.st_size == 0) {
    throw DataError(fmt::format("{}: the file is empty", path));
  }
}

std::uint64_t file_size(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw FileError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  return static_cast<std::uint64_t>(info.st_size);
}

std::string read_file_bytes(const std::string& path) {
  require_readable_file(path);
  const std::uint64_t size = file_size(path);
  detail::check_fits_in_memory(size, fmt::format("the whole file ({} bytes)", size), path);
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size, '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw FileError(fmt::format("{}: read failed: {}", path, std::strerror(errno)));
  }
  return bytes;
}

std::string read_text_maybe_gzip(const std::string& path) {
  if (!has_gzip_magic(path)) return read_file_bytes(path);
  GzipStream stream(path);
  // Deflate expands at most about 1032:1 (a gzip file of several members
  // too), so more than that is corrupt; and the text may take at most a
  // third of the memory: growing it holds the old and the new buffer at
  // once, and the values parsed from it need room too.
  const std::uint64_t stored = file_size(path);
  const std::uint64_t limit =
      std::min(kMaxDeflateRatio * stored, detail::physical_memory_bytes() / 3);
  std::string text(std::min<std::uint64_t>(std::max<std::uint64_t>(stored * 4, 1 << 16), limit + 1),
                   '\0');
  std::size_t used = 0;
  for (;;) {
    if (used > limit) {
      throw DataError(fmt::format(
          "{}: the gzip data expands to more than {} bytes, {}", path, limit,
          limit == kMaxDeflateRatio * stored
              ? fmt::format("{} times the {} bytes of the file: more than deflate can produce, so "
                            "the file is corrupt",
                            kMaxDeflateRatio, stored)
              : "more than a third of the memory this process has; decompress a subset of it"));
    }
    if (used == text.size()) text.resize(std::min<std::uint64_t>(text.size() * 2, limit + 1));
    const std::size_t got = stream.read_some(text.data() + used, text.size() - used);
    if (got == 0) break;
    used += got;
  }
  text.resize(used);
  return text;
}

bool has_gzip_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

struct GzipStream::State {
  gzFile file = nullptr;
  bool eof = false;
};

GzipStream::GzipStream(const std::string& path) : path_(path), state_(std::make_unique<State>()) {
  require_readable_file(path);
  state_->file = gzopen(path.c_str(), "rb");
  if (state_->file == nullptr) {
    throw FileError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  gzbuffer(state_->file, 1 << 18);
}

GzipStream::~GzipStream() {
  if (state_ && state_->file != nullptr) gzclose(state_->file);
}

std::size_t GzipStream::read_some(void* buffer, std::size_t size) {
  if (state_->eof || size == 0) return 0;
  // gzread takes an unsigned int count: read in bounded chunks.
  std::size_t total = 0;
  auto* out = static_cast<char*>(buffer);
  while (total < size) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(size - total, 1u << 30));
    const int got = gzread(state_->file, out + total, chunk);
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(state_->file, &code);
      throw DataError(fmt::format("{}: corrupt gzip data: {}", path_, message));
    }
    if (got == 0) {
      int code = 0;
      const char* message = gzerror(state_->file, &code);
      // zlib reports a stream cut short as Z_BUF_ERROR (gzdirect is 0 for
      // gzip data); check it before the generic corruption case.
      if (gzdirect(state_->file) == 0 && code == Z_BUF_ERROR) {
        throw DataError(fmt::format("{}: truncated gzip file (unexpected end of data)", path_));
      }
      if (code != Z_OK && code != Z_STREAM_END) {
        throw DataError(fmt::format("{}: corrupt gzip data: {}", path_, message));
      }
      state_->eof = true;
      break;
    }
    total += static_cast<std::size_t>(got);
  }
  return total;
}

void GzipStream::read_exact(void* buffer, std::size_t size, const char* what) {
  const std::size_t got = read_some(buffer, size);
  if (got != size) {
    throw DataError(
        fmt::format("{}: truncated: expected {} bytes of {}, found {}", path_, size, what, got));
  }
}

bool GzipStream::at_end() {
  if (state_->eof) return true;
  const int next = gzgetc(state_->file);
  if (next < 0) {
    int code = 0;
    gzerror(state_->file, &code);
    if (code == Z_BUF_ERROR && gzdirect(state_->file) == 0) {
      throw DataError(fmt::format("{}: truncated gzip file (unexpected end of data)", path_));
    }
    state_->eof = true;
    return true;
  }
  gzungetc(next, state_->file);
  return false;
}

std::string inflate_raw(const char* data, std::size_t size, std::size_t expected_size,
                        const std::string& where) {
  // The output grows with what the stream really produces (never past
  // expected_size), so a member claiming far more than its data inflates to
  // is found corrupt before that much is allocated.
  std::string out(std::min<std::size_t>(expected_size, 4 * size + (1 << 16)), '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
    throw DataError(fmt::format("{}: cannot initialise zlib", where));
  }
  constexpr std::size_t kStep = 1u << 30;  // zlib counts in unsigned int
  std::size_t consumed = 0;
  std::size_t produced = 0;
  int status = Z_OK;
  while (status == Z_OK) {
    if (produced == out.size()) {
      if (out.size() == expected_size) break;  // more data than claimed
      out.resize(std::min(expected_size, 2 * out.size()));
    }
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data + consumed));
    stream.avail_in = static_cast<uInt>(std::min(size - consumed, kStep));
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(std::min(out.size() - produced, kStep));
    const uInt offered_in = stream.avail_in;
    const uInt offered_out = stream.avail_out;
    status = inflate(&stream, Z_NO_FLUSH);
    consumed += offered_in - stream.avail_in;
    produced += offered_out - stream.avail_out;
    // No progress for want of room: grow the output (or stop at the top).
    if (status == Z_BUF_ERROR && produced == out.size()) status = Z_OK;
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END || produced != expected_size) {
    throw DataError(fmt::format(
        "{}: corrupt or truncated compressed data (it inflates to {}{} bytes, the archive claims "
        "{})",
        where, status == Z_STREAM_END ? "" : "at least ", produced, expected_size));
  }
  return out;
}

}  // namespace topkfs
