#pragma once
// Private to the readers. What the reading process and the HDF5 reader
// program (apps/hdf5_reader, reader_process.hpp) tell each other: the read
// options on the program's command line, its messages while it reads, and
// the dataset it read, described in JSON beside the matrix it wrote.
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::detail::reader_process {

// The descriptors the program is started with: the matrix it writes (row-
// major float32, nothing else), the report it writes (reader_report), and
// its messages (a pipe whose end tells the reading process it has ended);
// and, when the request allows it, an unnamed file on disk that it writes a
// matrix above Request::spill_above_bytes to instead of the first.
constexpr int kMatrixFd = 3;
constexpr int kReportFd = 4;
constexpr int kMessageFd = 5;
constexpr int kSpillFd = 6;

// Its messages: progress (a part of the file read), and the memory a read
// it is about to make may take (8 bytes follow, native order).
constexpr char kProgress = 0;
constexpr char kNeed = 1;

// Its exit statuses other than a crash: read, or refused (the report then
// holds the error).
constexpr int kExitRead = 0;
constexpr int kExitRefused = 2;

// The command line after the program's name, and its reading: the format
// (Hdf5, or Mat for a v7.3 file), the memory limit the reader holds to (0:
// the machine's), whether and above what size the matrix goes to kSpillFd,
// the read options a reader of these formats uses, the path last.
// parse_arguments throws OptionError on anything else.
struct Request {
  Format format = Format::Hdf5;
  std::uint64_t memory_bytes = 0;
  std::string memory_name = "the memory limit";  // ResourceLimits::memory_name
  bool spill = false;
  std::uint64_t spill_above_bytes = 0;
  ReadOptions options;
  std::string path;
};
std::vector<std::string> arguments(const Request& request);
Request parse_arguments(const std::vector<std::string>& arguments);

// Everything of `data` but its feature values, in CBOR; and back, with the
// features left empty. The matrix's shape, and whether it was written to
// kSpillFd, travel beside it. dataset_from_description throws DataError
// naming `path` (the file the program read) for an answer it cannot decode
// or whose shape no matrix can have; the rest is Dataset::validate's.
struct MatrixShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  bool spilled = false;
};
std::string describe_dataset(const Dataset& data, const MatrixShape& shape);
Dataset dataset_from_description(const std::string& bytes, MatrixShape* shape,
                                 const std::string& path);

// A refusal: the error's kind ("file", "data", "option") and its message;
// and back, rethrown as the same type. Anything unreadable is a DataError
// naming `path`.
std::string describe_error(const char* kind, const std::string& message);
[[noreturn]] void rethrow_error(const std::string& json, const std::string& path);

}  // namespace topkfs::detail::reader_process
