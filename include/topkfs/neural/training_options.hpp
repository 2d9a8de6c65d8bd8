#pragma once
// The options every neural method shares (dnn-top, dfs and the neural
// baselines): the body's size, the minibatch loop, the data preparation.
// Each method's options struct derives from this one and adds its own; one
// set of names, checks and help texts keeps the CLI flags alike across methods.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/core/enum_names.hpp"

namespace topkfs {

// The rows of one step over `ranks` ranks (one process: 1): `global_batch`
// when above 0, else `batch` per rank.
inline int minibatch_rows(int batch, int global_batch, int ranks) {
  return global_batch > 0 ? global_batch : batch * std::max(1, ranks);
}

// How the inputs are scaled before training (docs/algorithms.md, "Input
// scaling"): auto picks image, none or standard from the data.
enum class InputScaling { Auto, Standard, MinMax, Image, None };
EnumNameList<InputScaling> names_of(InputScaling);

struct NeuralTrainingOptions {
  std::vector<int> hidden = {256, 128};  // hidden sizes of the MLP
  int epochs = 20;
  // Small data: the epochs (and the patience) are raised so that training
  // makes at least this many minibatch steps; 20 epochs of a 74-row table
  // would be 20 steps. 0 = take --epochs as it is.
  int min_steps = 1000;
  // Rows per step of each rank: a data-parallel fit over N ranks takes N x
  // batch rows a step (PyTorch DDP's convention); one process, batch.
  int batch = 128;
  // When above 0: the rows of every step over all the ranks, split among
  // them, whatever their number (`batch` is then not used), so that N ranks
  // follow one process's steps up to the order of the sums.
  int global_batch = 0;
  double lr = 1e-3;
  double validation = 0.1;  // fraction of the training rows held out for early stopping
  int patience = 5;         // epochs without validation improvement before stopping; 0 = never
  double clip = 5.0;        // gradient-norm clipping; 0 = off
  InputScaling scaling = InputScaling::Auto;
  std::uint64_t seed = 0;
  int threads = 0;  // 0 = every core, in the way that measured fastest

  // Throws OptionError naming the offending field.
  void validate_training() const;
  // The rows of one step over `ranks` ranks, and one rank's share of them.
  int step_rows(int ranks) const { return minibatch_rows(batch, global_batch, ranks); }
  int rank_rows(int ranks) const {
    return (step_rows(ranks) + std::max(1, ranks) - 1) / std::max(1, ranks);
  }
};

}  // namespace topkfs
