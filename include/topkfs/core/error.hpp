#pragma once
// The project's exception types. User errors (bad files, bad options, bad data)
// are exceptions whose message names the input, the place and the fix; broken
// internal invariants abort instead (see TOPKFS_ASSERT).
#include <stdexcept>
#include <string>

#include "topkfs/core/utf8_text.hpp"

namespace topkfs {

// Base of every error the library reports to its user. Its message is
// kept printable (utf8_text.hpp): messages quote the user's data, and a NUL
// byte there would cut what() short, raw binary reach the terminal.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(printable_text(message)) {}
  explicit Error(const char* message) : Error(std::string(message)) {}
};

// A file that cannot be opened or read at the operating-system level
// (missing, unreadable, a directory where a file was expected).
// The Python package raises these as OSError.
class FileError : public Error {
 public:
  using Error::Error;
};

// Content that is malformed or unusable: ragged rows, NaN, wrong magic,
// a target with one class. The Python package raises these as ValueError.
class DataError : public Error {
 public:
  using Error::Error;
};

// An option with an invalid value or an impossible combination of options
// (k larger than the number of features, an unknown method). The CLI exits
// with status 2 on these.
class OptionError : public Error {
 public:
  using Error::Error;
};

// Raised when training diverges (NaN/Inf loss) or a solver cannot proceed.
class TrainingError : public Error {
 public:
  using Error::Error;
};

// A data-parallel fit that cannot go on: a rank died, stopped answering or
// could not be reached, or the ranks disagree about the data. The message
// names the rank (or the address).
class DistributedError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] void assertion_failed(const char* expr, const char* file, int line);

}  // namespace topkfs

// Internal invariant: a failure is a bug in topkfs, not a user error.
#define TOPKFS_ASSERT(expr) \
  ((expr) ? static_cast<void>(0) : ::topkfs::assertion_failed(#expr, __FILE__, __LINE__))
