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
#include <memory>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::detail {

// Reads the file at `path` (`format`: Hdf5, or Mat for a v7.3 file) with
// `options` in the reader program and returns what its reader made of it:
// the features in memory shared with the program, the target, the names,
// the split, the notes. Rethrows the reader's own errors (FileError,
// DataError, OptionError) as they were; throws DataError naming the file
// when the program crashed, looped (processor time without progress) or
// took more memory than its reads announced, and FileError when the
// program cannot be found or started (ResourceLimits::hdf5_reader names
// it; where it is looked for otherwise: reader_program_candidates).
Dataset read_in_reader_process(Format format, const std::string& path, const ReadOptions& options);

// Where the reader program is looked for, in order, when
// ResourceLimits::hdf5_reader is empty: beside the program or shared
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
