#pragma once
// One selection from a data file, as `topkfs select` and Python's
// topkfs.select run it: read the file (HDF5 by row blocks for a method that
// reads by rows), read k in the forms the command takes, set up the training
// checkpoints, choose the rows and fit. Each face parses its own arguments
// into the request and keeps its own outputs (the command's files, progress
// bar and ranks; Python's dict).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "topkfs/core/callbacks.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"
#include "topkfs/select/run_selection.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

struct FileSelectionRequest {
  std::string path;
  ReadOptions read;         // parse_read_options (io/read_option_scope.hpp)
  std::string image_shape;  // "28x28" when the data carries none; empty: the file's own
  // The method, its options set; checked again before the file is read.
  Selector* selector = nullptr;
  std::string k;  // a whole number or a percentage ("10%"): parse_k
  SelectionSplitOptions split;
  // Training checkpoints (checkpoint_settings): none when `checkpoint` is
  // empty; `resume` continues from it.
  std::string checkpoint;
  int checkpoint_every = 1;
  bool resume = false;
  // True when the caller needs the whole matrix after the fit (a downstream
  // score, the reduced data): HDF5 is then read whole, not by row blocks.
  bool whole_matrix = false;
  // The caller's own steps on the data once read, before k is read from it
  // (the command's weights, groups and padded images); may be empty.
  std::function<void(Dataset&)> prepare;
  // Called with the data as the method will see it, before the fit (the
  // command checks its picture and the ranks agree on the data); may be empty.
  std::function<void(const Dataset&)> check;
  // Progress, log and ranks of the fit; the checkpoint is set from the above.
  FitCallbacks callbacks;
};

struct FileSelection {
  Dataset data;                            // as read and prepared
  std::vector<std::int64_t> learned_rows;  // the rows the method learned from
  SelectionResult result;
};

// Runs `request`. Bad options, k text and checkpoint settings fail before
// the file is read (OptionError naming the option); the reading and the fit
// throw as read_dataset and run_selection do.
FileSelection select_from_file(const FileSelectionRequest& request);

}  // namespace topkfs
