#pragma once
// Output files are written to a temporary sibling and renamed into place, so a
// failure never leaves a half-written result, table or picture behind. The
// temporary is created exclusively under an unpredictable name (mkostemp)
// and synced before the rename; the folder is synced after it.
//
// What is at the path decides where the bytes go: a regular file is replaced
// and keeps its permission bits; a symbolic link is followed and its target
// replaced (the link stays); a directory, FIFO, device or socket is refused
// with a FileError, as replacing it would destroy it and writing into it
// would not be atomic. In a program that called
// remove_temporaries_on_termination (the command does), a signal that kills
// the process while temporaries exist (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
// removes them first; the library installs no signal handler of its own.
#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace topkfs {

// Calls `write` with a stream on a temporary file next to `path`, then renames
// it to `path`. If `write` throws or the stream fails, the temporary file is
// removed, `path` is left as it was, and the error propagates (FileError for
// I/O failures). Inside an OutputGroup the rename waits for its commit().
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// Same for content already in memory.
void write_file_atomically(const std::string& path, const std::string& content);

// Throws what write_file_atomically would throw for `path` before any byte
// is written, so that a command can check its outputs before its work: a
// directory, FIFO, device or socket at the path (FileError naming its kind),
// or a folder where no file can be created (missing, read-only, without
// write permission: the system's reason). Creates and removes a temporary.
void check_output_writable(const std::string& path);

// Installs handlers of SIGINT, SIGTERM, SIGHUP and SIGQUIT for the rest of the
// process (idempotent) that remove the temporaries, then end the process by
// the same signal. A signal the process ignores stays ignored; where the
// process had a handler of its own, the signal goes to it and the process
// goes on (the writes it unwinds remove their temporaries).
void remove_temporaries_on_termination();

// Makes the outputs of one command all-or-nothing: while a group is alive on
// this thread, write_file_atomically only writes temporaries; commit()
// renames them all into place, and a group destroyed before its commit (an
// error in a later output) removes them, leaving every path as it was.
class OutputGroup {
 public:
  OutputGroup();
  ~OutputGroup();
  OutputGroup(const OutputGroup&) = delete;
  OutputGroup& operator=(const OutputGroup&) = delete;

  void commit();

 private:
  friend void write_file_atomically(const std::string& path,
                                    const std::function<void(std::ostream&)>& write);
  struct Staged;
  std::unique_ptr<Staged> staged_;
  OutputGroup* outer_;
};

}  // namespace topkfs
