#pragma once
// One reader per format. read_dataset() dispatches to these; call them
// directly only when the format is known.
#include <memory>
#include <string>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs {

Dataset read_csv(const std::string& path, const ReadOptions& options);     // CSV and TSV
Dataset read_libsvm(const std::string& path, const ReadOptions& options);  // svmlight, 1-based
// A folder holding the four MNIST-style files, or one images file (with
// options.labels_path, or its sibling labels file found by name).
Dataset read_idx(const std::string& path, const ReadOptions& options);
// .mat v5 via matio here; v7.3 (HDF5) and HDF5 files via libhdf5 and matio
// in the HDF5 reader program, a process of its own (docs/reliability.md).
Dataset read_mat(const std::string& path, const ReadOptions& options);
Dataset read_hdf5(const std::string& path, const ReadOptions& options);
Dataset read_npy(const std::string& path, const ReadOptions& options);
Dataset read_npz(const std::string& path, const ReadOptions& options);

// A plain (not gzipped) CSV or TSV file without reading the features: the file is mapped, its
// records parsed once for the target and the checks, and `rows` parses the
// features again by row blocks on each pass.
Dataset read_csv_by_row_blocks(const std::string& path, const ReadOptions& options,
                               std::shared_ptr<const RowSource>& rows);
// LIBSVM likewise (plain files): the first pass finds the labels and the
// column count (the largest index), `rows` parses the lines again.
Dataset read_libsvm_by_row_blocks(const std::string& path, const ReadOptions& options,
                                  std::shared_ptr<const RowSource>& rows);
// IDX likewise: `rows` reads the images files by row blocks on each pass.
Dataset read_idx_by_row_blocks(const std::string& path, const ReadOptions& options,
                               std::shared_ptr<const RowSource>& rows);

}  // namespace topkfs
