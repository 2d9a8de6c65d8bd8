#pragma once
// Private to the readers: HDF5 files and MATLAB v7.3 files (HDF5 underneath)
// are read by libhdf5 in a process of their own, the HDF5 reader program
// (topkfs-hdf5-reader, apps/hdf5_reader), never in the process that asked.
//
// Why: libhdf5 1.10 trusts the structures it finds in a file, and fuzzing
// keeps finding null dereferences, reads past its buffers, divisions by zero,
// endless loops and endless allocations inside it (docs/reliability.md) that
// no check made from outside the library can anticipate one by one. In a
// process of its own, started with posix_spawn (a new program, not a copy of
// a multithreaded caller such as Python or libtorch), any of them ends that
// process, and the read is refused naming the file.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::detail {

// Where the reader program may put a feature matrix instead of memory
// shared with the reading process: an unnamed file (O_TMPFILE, or a file
// unlinked as soon as it is made) in `folder`, when the matrix is larger
// than `above_bytes`. The reading process maps it (RowStorage::Mapped): its
// rows are read from the page cache on demand and cost no anonymous memory;
// the file's blocks are freed when the last mapping goes.
struct MatrixOnDisk {
  std::string folder;
  std::uint64_t above_bytes = 0;
};

// Reads the file at `path` (`format`: Hdf5, or Mat for a v7.3 file) with
// `options` in the reader program and returns what its reader made of it:
// the features in memory shared with the program (or mapped from the file
// `on_disk` allows), the target, the names, the split, the notes. Rethrows
// the reader's own errors (FileError, DataError, OptionError) as they were;
// throws DataError naming the file when the program crashed, looped
// (processor time without progress) or took more memory than its reads
// announced, and FileError when the program cannot be found or started
// (ResourceLimits::reader_program names it; where it is looked for
// otherwise: reader_program_candidates), or when the file `on_disk` asks
// for cannot be made.
Dataset read_in_reader_process(Format format, const std::string& path, const ReadOptions& options,
                               const MatrixOnDisk* on_disk = nullptr);

// The readers' front doors for reading by rows (read_dataset_by_rows): an
// HDF5 file, or a .mat file (v5 read here, whole; v7.3 in the program).
Dataset read_hdf5_by_rows(const std::string& path, const ReadOptions& options,
                          const MatrixOnDisk& on_disk);
Dataset read_mat_by_rows(const std::string& path, const ReadOptions& options,
                         const MatrixOnDisk& on_disk);

// Where the reader program is looked for, in order, when
// ResourceLimits::reader_program is empty: beside the program or shared
// library the reading code is linked into, and ../libexec/topkfs and
// ../lib/topkfs from there (an installed prefix: bin/ and lib/, or a Python
// package), the install prefix it was built for, and the build tree it was
// built in.
std::vector<std::string> reader_program_candidates();

// The readers themselves, which call libhdf5 and matio: only the reader
// program calls them. With `rows`, the features are not read: *rows gets a
// source that reads them by row blocks (null when the variable cannot be
// read so: a sparse MATLAB matrix), and the Dataset's matrix is n x 0.
Dataset read_hdf5_here(const std::string& path, const ReadOptions& options,
                       std::shared_ptr<const RowSource>* rows = nullptr);
Dataset read_mat_v73_here(const std::string& path, const ReadOptions& options,
                          std::shared_ptr<const RowSource>* rows = nullptr);

// The reader program's main (apps/hdf5_reader/main.cpp): reads the file its
// command line names (reader_process_protocol.hpp) and writes the matrix and
// the report to the descriptors it was given. Its exit status: 0 read, 2
// refused (the report holds the error).
int reader_program_main(int argc, char** argv);

}  // namespace topkfs::detail
