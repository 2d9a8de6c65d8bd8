#include "topkfs/select/file_selection.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs {
namespace {

// Everything about the request that can be refused without the data, so
// that a mistake costs no read of a large file.
void check_before_reading(const FileSelectionRequest& request) {
  TOPKFS_ASSERT(request.selector != nullptr);
  request.selector->check_options();
  if (request.resume && request.checkpoint.empty()) {
    throw OptionError(fmt::format("{} continues from a {} file: give one", option_ref("resume"),
                                  option_ref("checkpoint")));
  }
  check_k_text(request.k);
  // k is not known yet; any k gives the same refusals.
  if (!request.checkpoint.empty()) {
    checkpoint_settings(*request.selector, 1, request.checkpoint, request.checkpoint_every,
                        request.resume);
  }
}

// A method that reads by rows reads HDF5 by row blocks, unless the caller
// needs the whole matrix.
Dataset read_for_selection(const FileSelectionRequest& request) {
  const bool by_rows = request.selector->streams_rows() && !request.whole_matrix;
  Dataset data = by_rows ? read_dataset_by_rows(request.path, request.read)
                         : read_dataset(request.path, request.read);
  if (!request.image_shape.empty()) {
    data.image_shape = checked_image_shape(request.image_shape, option_ref("image-shape"),
                                           data.cols(), request.path);
  }
  return data;
}

}  // namespace

FileSelection select_from_file(const FileSelectionRequest& request) {
  check_before_reading(request);
  FileSelection out;
  out.data = read_for_selection(request);
  if (request.prepare) request.prepare(out.data);
  Selector& selector = *request.selector;
  const int k = parse_k(request.k, out.data.group_count(), request.path);
  FitCallbacks callbacks = request.callbacks;
  if (!request.checkpoint.empty()) {
    callbacks.checkpoint = checkpoint_settings(selector, k, request.checkpoint,
                                               request.checkpoint_every, request.resume);
  }
  if (request.check) request.check(out.data);
  out.result = run_selection(out.data, selector, k, request.split, callbacks, &out.learned_rows);
  return out;
}

}  // namespace topkfs
