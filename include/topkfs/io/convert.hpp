#pragma once
// `topkfs convert`: any readable dataset to the form that is mapped instead
// of loaded, a little-endian float32 C-order .npy of the features (with the
// target in a second .npy), or one .npz holding X and Y stored without
// compression, each member aligned so that X maps in place. The features are
// written in row blocks from the source's RowSource, and every output is
// written atomically (all of them or none).
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs {

struct ConvertOptions {
  std::string output;    // .npy (features only) or .npz (X and Y)
  std::string y_output;  // .npy of the target; only with an .npy output
  // Rows per block written (0: about 4 MB of rows).
  std::int64_t block_rows = 0;
};

struct ConvertSummary {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::vector<std::string> written;  // the paths, in order
  std::vector<std::string> notes;    // what the user should know (class codes, a dropped split)
  RowStorage storage = RowStorage::InMemory;  // how the source's rows were read
};

// Reads `path` with open_row_stream (HDF5 by row blocks, a float32 .npy
// mapped, other formats whole) and writes it. Throws OptionError for outputs
// that do not fit the data (not .npy/.npz, a target without --y-output for an
// .npy output, an output naming the input), FileError / DataError as the
// readers and writers do.
ConvertSummary convert_dataset(const std::string& path, const ReadOptions& read,
                               const ConvertOptions& options);

// write_streamable, or, for a table with categorical columns or missing
// cells, its rows encoded (data/table_encoding.hpp, learned from every row
// in two passes by row blocks) with the encoding and the groups written to
// encoding_sidecar(options.output), which read_dataset reads back beside an
// .npy or .npz: a selection then counts k in the table's columns.
ConvertSummary write_encoded_if_needed(const Dataset& data, const RowSource& rows,
                                       const ConvertOptions& options);

// "X.encoding.json" beside "X.npy" or "X.npz".
std::string encoding_sidecar(const std::string& output);

// The checks convert_dataset makes before reading: output extensions, an
// output naming the input (the data, `read.y_file` or `read.labels_path`)
// or both outputs one file (OptionError).
void check_convert_outputs(const std::string& input, const ReadOptions& read,
                           const ConvertOptions& options);

// Writes the rows of `rows` (in row blocks) with the target, image shape and
// split of `data`, as described by `options`: the work of convert_dataset
// once the data is open.
ConvertSummary write_streamable(const Dataset& data, const RowSource& rows,
                                const ConvertOptions& options);
// The same with data.features as the rows.
ConvertSummary write_streamable(const Dataset& data, const ConvertOptions& options);

}  // namespace topkfs
