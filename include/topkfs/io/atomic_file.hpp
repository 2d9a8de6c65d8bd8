#pragma once
// Output files are written to a temporary sibling and renamed into place, so a
// failure never leaves a half-written result, table or picture behind.
#include <functional>
#include <ostream>
#include <string>

namespace topkfs {

// Calls `write` with a stream on a temporary file next to `path`, then renames
// it to `path`. If `write` throws or the stream fails, the temporary file is
// removed, `path` is left as it was, and the error propagates (FileError for
// I/O failures).
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// Same for content already in memory.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace topkfs
