// The HDF5 reader program's side of reader_process.hpp: it reads one file
// with the readers that call libhdf5 and matio, and hands the rows back
// through shared memory.
#include <fmt/format.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "memory_budget.hpp"
#include "reader_process.hpp"
#include "reader_process_protocol.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/resource_limits.hpp"

namespace topkfs::detail {
namespace {

namespace protocol = reader_process;

// Writes all of `bytes`, or ends the program: the reading process, which
// watches the other end, then refuses the file.
void write_all(int fd, const void* bytes, std::size_t size) {
  const auto* at = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t wrote = ::write(fd, at, size);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) ::_exit(3);
    at += wrote;
    size -= static_cast<std::size_t>(wrote);
  }
}

void report_progress() { write_all(protocol::kMessageFd, &protocol::kProgress, 1); }

void announce_need(std::uint64_t bytes) {
  char message[1 + sizeof bytes];
  message[0] = protocol::kNeed;
  std::memcpy(message + 1, &bytes, sizeof bytes);
  write_all(protocol::kMessageFd, message, sizeof message);
}

// Ends the program with the report written: _exit, so that nothing at exit
// (a sanitizer's leak check of libhdf5's state after a corrupt file) adds a
// verdict of its own.
[[noreturn]] void finish(const std::string& report, int status) {
  write_all(protocol::kReportFd, report.data(), report.size());
  ::_exit(status);
}

// Writes all of `bytes` to the matrix's descriptor; a failed write (a full
// disk under the temporary folder) refuses the file with the reason.
void write_matrix(int fd, const void* bytes, std::size_t size, const std::string& path) {
  const auto* at = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t wrote = ::write(fd, at, size);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      throw FileError(fmt::format("{}: cannot write its feature rows for the reading process{}: {}",
                                  path, fd == protocol::kSpillFd ? " to a temporary file" : "",
                                  wrote < 0 ? std::strerror(errno) : "nothing written"));
    }
    at += wrote;
    size -= static_cast<std::size_t>(wrote);
  }
}

// The rows of `rows` into `fd`, block by block, each block a progress.
void write_rows(const RowSource& rows, int fd, const std::string& path) {
  const std::int64_t n = rows.row_count();
  const std::int64_t m = rows.column_count();
  if (n == 0 || m == 0) return;
  rows.for_each_block(
      0, n, rows.pass_block_rows(), [&](std::int64_t, std::int64_t count, const float* values) {
        write_matrix(fd, values, static_cast<std::size_t>(count * m) * sizeof(float), path);
        report_progress();
      });
}

// Where a matrix of `rows` x `cols` goes: to the unnamed file on disk when
// the request allows it and the matrix is above its threshold (the reading
// process then maps the file and holds none of it in its memory), else to
// the shared memory, which the reading process holds whole.
protocol::MatrixShape place(const protocol::Request& request, std::int64_t rows,
                            std::int64_t cols) {
  protocol::MatrixShape shape{rows, cols, false};
  const auto bytes = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) * 4;
  shape.spilled = request.spill && bytes > request.spill_above_bytes;
  return shape;
}

// The file's data, its matrix written to the descriptor `shape` names.
Dataset read(const protocol::Request& request, protocol::MatrixShape* shape) {
  const bool hdf5 = request.format == Format::Hdf5;
  std::shared_ptr<const RowSource> rows;
  Dataset data = hdf5 ? read_hdf5_here(request.path, request.options, &rows)
                      : read_mat_v73_here(request.path, request.options, &rows);
  if (!rows) {
    // A sparse MATLAB X (or the features of no target): read whole.
    data = hdf5 ? read_hdf5_here(request.path, request.options)
                : read_mat_v73_here(request.path, request.options);
    *shape = place(request, data.features.rows(), data.features.cols());
    write_rows(data.features, shape->spilled ? protocol::kSpillFd : protocol::kMatrixFd,
               request.path);
    return data;
  }
  *shape = place(request, rows->row_count(), rows->column_count());
  // The reading process holds the whole matrix in memory unless it is on
  // disk, so it must fit; on disk only the names count.
  check_feature_shape(static_cast<std::uint64_t>(rows->row_count()),
                      static_cast<std::uint64_t>(rows->column_count()),
                      fmt::format("{}x{}", rows->row_count(), rows->column_count()), request.path,
                      shape->spilled);
  // The row blocks' cache of decoded blocks (hdf5_row_blocks.hpp).
  announce_need(physical_memory_bytes() / 16 + (64u << 20));
  write_rows(*rows, shape->spilled ? protocol::kSpillFd : protocol::kMatrixFd, request.path);
  return data;
}

}  // namespace

int reader_program_main(int argc, char** argv) {
  // Ends with the reading process, which would otherwise not be there to
  // end a loop in libhdf5.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 1;
  report_progress();  // started: the reading process counts memory from here
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const protocol::Request request = protocol::parse_arguments(args);
    ResourceLimits limits;
    limits.memory_bytes = request.memory_bytes;
    limits.memory_name = request.memory_name;
    set_resource_limits(limits);
    set_allocation_observer(announce_need);
    protocol::MatrixShape shape;
    const Dataset data = read(request, &shape);
    finish(protocol::describe_dataset(data, shape), protocol::kExitRead);
  } catch (const FileError& error) {
    finish(protocol::describe_error("file", error.what()), protocol::kExitRefused);
  } catch (const DataError& error) {
    finish(protocol::describe_error("data", error.what()), protocol::kExitRefused);
  } catch (const OptionError& error) {
    finish(protocol::describe_error("option", error.what()), protocol::kExitRefused);
  } catch (const Error& error) {
    finish(protocol::describe_error("data", error.what()), protocol::kExitRefused);
  }
}

}  // namespace topkfs::detail
