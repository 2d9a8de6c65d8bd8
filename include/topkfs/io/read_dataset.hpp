#pragma once
// The front door of the data layer: one call that picks the reader by
// extension and magic bytes (or ReadOptions::format) and returns a Dataset.
#include <string>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs {

// Reads `path` (a file, or a folder holding MNIST-style IDX files).
// Throws FileError when the path cannot be opened, DataError when the content
// is malformed, OptionError when the options contradict the file.
Dataset read_dataset(const std::string& path, const ReadOptions& options = {});

// The format read_dataset would use for `path` (never Format::Auto).
Format detect_format(const std::string& path);

}  // namespace topkfs
