#pragma once
// The limits the readers hold to, chosen by the program that uses the
// library: the library itself reads no environment variable. The command
// (apps/topkfs/main.cpp) and the Python package (at import) set them from
// the environment with resource_limits_from_environment(); a program that
// embeds the library calls set_resource_limits() itself, or keeps the
// defaults (docs/reliability.md, "Sizes").
#include <cstdint>
#include <string>

namespace topkfs {

struct ResourceLimits {
  // The memory a reader may plan for, in bytes; 0: the machine's physical
  // memory and the process limits (RLIMIT_AS, RLIMIT_DATA) alone. Unlike
  // `ulimit -v`, it works under the sanitizers (whose shadow memory a
  // process limit counts).
  std::uint64_t memory_bytes = 0;
  // How a message names the limit: "TOPKFS_MEMORY_LIMIT allows 1.1 GB".
  std::string memory_name = "the memory limit";
  // The HDF5 reader program, the process that reads HDF5 and v7.3 .mat
  // files (docs/reliability.md): the processor time without progress after
  // which libhdf5 is taken to loop, and the memory it may take beyond what
  // the data's reads announce; 0: 10 s and 1 GB.
  double reader_cpu_seconds = 0;
  std::uint64_t reader_memory_bytes = 0;
  // The reader program's path; empty: looked for beside the code that reads
  // (an installed prefix's libexec/topkfs or lib/topkfs), then where it was
  // installed or built (reader_process.hpp in src/io).
  std::string reader_program;
  // The folder where the reader program writes an HDF5 or v7.3 .mat feature
  // matrix read by rows that is above half the memory budget (or a rank's
  // shard), as an unnamed file that is mapped, not held in memory
  // (docs/scale.md, "HDF5 above the budget"); the command's TMPDIR,
  // Python's tempfile.gettempdir().
  std::string temporary_folder = "/tmp";
};

// The limits every read from now on holds to, in every thread.
void set_resource_limits(const ResourceLimits& limits);

// The limits in force (the defaults until set_resource_limits is called).
ResourceLimits resource_limits();

// The limits the environment asks for: TOPKFS_MEMORY_LIMIT (bytes, or a
// number with a K, M or G suffix, powers of 1024 as ulimit counts: "2G"),
// TOPKFS_HDF5_READER_CPU_SECONDS, TOPKFS_HDF5_READER_MEMORY_MB and
// TOPKFS_HDF5_READER_PROGRAM (the reader program's path), and TMPDIR
// (temporary_folder). Unset or
// empty variables keep the defaults. Throws OptionError naming the variable
// for a memory limit that is not a positive size.
ResourceLimits resource_limits_from_environment();

}  // namespace topkfs
