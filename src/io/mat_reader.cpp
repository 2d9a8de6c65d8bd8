#include "topkfs/core/error.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {

// Placeholder while the reader is being written.
Dataset read_mat(const std::string& path, const ReadOptions&) {
  throw DataError(path + ": reader not available yet");
}

}  // namespace topkfs
