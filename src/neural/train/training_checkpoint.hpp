#pragma once
// Training checkpoints: train_loop's whole state at the end of an epoch, in
// one file written atomically, so that a run killed at any moment (even by
// SIGKILL) continues from its last checkpoint and ends exactly where the
// uninterrupted run would have: the same weights, scores and loss history,
// to the bit.
//
// What is kept: the model's state (LoopModel::state(): its parameters, and
// for dnn-top the order its inputs are in), Adam's moments and step count,
// the shuffling generator and the row order it shuffles, early stopping's
// best epoch, best validation loss and best weights, the loss history, and
// the identity of the run: the method's options, k, the loop's settings
// (team size included: a team of another size sums in another order) and a
// fingerprint of the training data. A checkpoint whose identity differs from
// the run's is refused, naming the first difference.
//
// The file is a libtorch archive (the format of --save-model), doubles and
// tensors stored exactly.
#include <torch/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "neural/train/early_stopping.hpp"
#include "neural/train/epoch_runner.hpp"
#include "neural/train/trainer.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs {

// The checkpoint format's version, which a reader requires (2 added the
// checksum of the contents).
constexpr std::int64_t kCheckpointVersion = 2;

// train_loop's state after epoch `epoch`.
struct LoopCheckpoint {
  nlohmann::json identity;
  int epoch = 0;  // epochs done
  std::vector<EpochRecord> history;
  std::optional<double> last_val;
  std::vector<torch::Tensor> model_state;   // LoopModel::state()
  std::vector<torch::Tensor> adam_moments;  // FusedAdam::moments()
  std::int64_t adam_steps = 0;
  std::string shuffle_state;  // Rng::state()
  std::vector<std::int64_t> row_order;
  StoppingState stopping;
};

// Writes `checkpoint` to `path` atomically (a temporary sibling renamed into
// place): the file holds the previous checkpoint or this one, never a mix.
// Throws FileError when it cannot be written.
void write_checkpoint(const std::string& path, const LoopCheckpoint& checkpoint);

// Throws FileError when `path` holds something other than a topkfs
// training checkpoint (a data file, a report, a folder): a fit with a
// checkpoint replaces the file, and a mistyped path must not destroy
// another file. A missing path, or a checkpoint of any run, passes.
void check_checkpoint_path(const std::string& path);

// Reads a checkpoint written by write_checkpoint. Throws FileError when the
// file cannot be read or is no topkfs checkpoint.
LoopCheckpoint read_checkpoint(const std::string& path);

// The identity of a train_loop run: `run` (what the caller adds: method,
// options, k), the loop's settings and the data's fingerprint; not the team
// size, since every team size trains alike (parallel_step.hpp).
nlohmann::json loop_identity(const nlohmann::json& run, const TrainingSet& data,
                             const LoopSettings& settings);

// Throws OptionError naming the first difference between a checkpoint's
// identity and the run's (e.g. "options.lr is 0.001 in the checkpoint, 0.01
// here").
void check_same_run(const std::string& path, const nlohmann::json& saved,
                    const nlohmann::json& current);

// train_loop's state after `history.size()` epochs. It holds the model's
// and the optimizer's own tensors, not copies: write it before training
// goes on.
LoopCheckpoint capture_loop(const nlohmann::json& identity, const std::vector<EpochRecord>& history,
                            const std::optional<double>& last_val, LoopModel& model,
                            EpochRunner& runner, const EarlyStopping& stopping);

// Puts a checkpoint read from `path` back into the loop's parts; throws
// DataError naming `path` when its tensors do not fit this run's.
void restore_loop(const std::string& path, LoopCheckpoint saved, LoopModel& model,
                  EpochRunner& runner, EarlyStopping& stopping);

}  // namespace topkfs
