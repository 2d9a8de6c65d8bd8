#pragma once
// The front door of the data layer: one call that picks the reader by
// extension and magic bytes (or ReadOptions::format) and returns a Dataset.
#include <memory>
#include <string>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs {

// Reads `path` (a file, or a folder holding MNIST-style IDX files).
// Throws FileError when the path cannot be opened, DataError when the content
// is malformed, OptionError when the options contradict the file.
Dataset read_dataset(const std::string& path, const ReadOptions& options = {});

// The data for a method that reads the feature rows by index rather than the
// whole matrix (Selector::streams_rows). Today what read_dataset gives: a
// float32 .npy is mapped, the text formats and IDX are read whole, and HDF5
// and v7.3 .mat files come whole from the HDF5 reader program, in memory it
// shares with this process (docs/scale.md).
Dataset read_dataset_by_rows(const std::string& path, const ReadOptions& options = {});

// The data with its feature rows as a RowSource, for one pass over the rows
// (`topkfs convert`): HDF5 features are read by row blocks, never whole
// (`data` then has an n x 0 matrix: everything but the features); other
// formats are read by read_dataset, and `rows` is their matrix (mapped for a
// float32 .npy). A target with missing values, or NanPolicy::Drop, needs
// the rows dropped at reading time: such HDF5 data is read whole too.
struct RowStream {
  std::shared_ptr<Dataset> data;
  std::shared_ptr<const RowSource> rows;
};
RowStream open_row_stream(const std::string& path, const ReadOptions& options = {});

// The format read_dataset would use for `path` (never Format::Auto).
Format detect_format(const std::string& path);

}  // namespace topkfs
