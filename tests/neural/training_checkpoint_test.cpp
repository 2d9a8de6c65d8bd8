// Training checkpoints (src/neural/train/training_checkpoint.hpp): a dnn-top
// training stopped after some epochs and resumed from its checkpoint ends
// exactly where the uninterrupted training ends, on one thread and on a
// team; a checkpoint of another run is refused, naming the difference.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/serialize/archive.h>
#include <torch/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "neural/dnn_top/dnn_top_objective.hpp"
#include "neural/model/network.hpp"
#include "neural/train/trainer.hpp"
#include "neural/train/training_checkpoint.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/feature_matrix.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

constexpr std::int64_t kCheckpointInputs = 12;
constexpr std::int64_t kCheckpointK = 3;

// 240 rows of normal features, three classes decided by inputs 1 and 4; 180
// rows train, 60 validate.
struct Problem {
  Problem() : features(240, kCheckpointInputs) {
    Rng rng(21);
    for (std::int64_t i = 0; i < features.rows(); ++i) {
      for (std::int64_t j = 0; j < kCheckpointInputs; ++j)
        features(i, j) = static_cast<float>(rng.normal());
    }
    set.features = &features;
    set.task = NeuralTask::MultiClass;
    set.targets = torch::empty({features.rows()}, torch::kLong);
    for (std::int64_t i = 0; i < features.rows(); ++i) {
      const float score = features(i, 1) + features(i, 4);
      set.targets[i] = static_cast<std::int64_t>(score < -0.5f ? 0 : score < 0.5f ? 1 : 2);
      (i < 180 ? set.train_rows : set.validation_rows).push_back(i);
    }
  }
  FeatureMatrix features;
  TrainingSet set;
};

DnnTopOptions options() {
  DnnTopOptions out;
  out.hidden = {16, 8};
  out.epochs = 9;
  out.batch = 32;
  out.lr = 2e-2;  // w moves fast: the top k and the input order change on the way
  out.lambda1 = 1e-3;
  out.lambda2 = 1e-3;
  out.validation = 0;  // the problem's own validation rows
  out.patience = 0;
  out.min_steps = 0;
  out.seed = 5;
  return out;
}

CheckpointSettings checkpointing(const std::string& path, bool resume) {
  CheckpointSettings out;
  out.path = path;
  out.resume = resume;
  out.run = R"({"method": "dnn-top", "k": 3})";
  return out;
}

struct Trained {
  TrainingOutcome outcome;
  std::vector<Tensor> parameters;
};

// Trains a network initialised from `init_seed`; `stop_in_epoch` > 0 ends
// the training by an exception in that epoch's first minibatch, as a kill
// would, after the checkpoints of the epochs before it.
Trained train(const Problem& problem, const DnnTopOptions& opts, int workers,
              const CheckpointSettings& checkpoint, std::uint64_t init_seed = 4,
              int stop_in_epoch = 0) {
  Rng init(init_seed);
  auto network = make_mlp(kCheckpointInputs, 3, opts.hidden, init);
  FitCallbacks callbacks;
  callbacks.checkpoint = checkpoint;
  if (stop_in_epoch > 0) {
    callbacks.progress = [stop_in_epoch](const Progress& p) {
      if (p.epoch == stop_in_epoch) throw std::runtime_error("stopped");
    };
  }
  Trained out;
  out.outcome = train_network(*network, problem.set, opts, kCheckpointK, callbacks, {}, workers);
  for (const auto& parameter : network->parameters()) out.parameters.push_back(parameter.detach());
  return out;
}

TEST(TrainingCheckpointTest, AResumedTrainingEndsBitwiseWhereTheUninterruptedOneEnds) {
  const Problem problem;
  for (const int workers : {1, 2}) {
    SCOPED_TRACE(fmt::format("{} worker(s)", workers));
    const std::string folder = test::temp_dir() + fmt::format("/checkpoint_{}", workers);
    std::filesystem::create_directories(folder);
    const std::string path = folder + "/run.ckpt";
    std::filesystem::remove(path);
    const Trained whole = train(problem, options(), workers, {});

    EXPECT_THROW(train(problem, options(), workers, checkpointing(path, false), 4, 5),
                 std::runtime_error);
    ASSERT_TRUE(std::filesystem::exists(path));
    // Another initialisation: everything that matters must come from the file.
    const Trained resumed = train(problem, options(), workers, checkpointing(path, true), 99);

    ASSERT_EQ(resumed.outcome.history.size(), whole.outcome.history.size());
    for (std::size_t e = 0; e < whole.outcome.history.size(); ++e) {
      SCOPED_TRACE(fmt::format("epoch {}", e + 1));
      EXPECT_EQ(resumed.outcome.history[e].epoch, whole.outcome.history[e].epoch);
      EXPECT_EQ(resumed.outcome.history[e].loss, whole.outcome.history[e].loss);  // to the bit
      EXPECT_EQ(resumed.outcome.history[e].val_loss, whole.outcome.history[e].val_loss);
    }
    EXPECT_EQ(resumed.outcome.best_epoch, whole.outcome.best_epoch);
    ASSERT_EQ(resumed.parameters.size(), whole.parameters.size());
    for (std::size_t t = 0; t < whole.parameters.size(); ++t) {
      EXPECT_TRUE(torch::equal(resumed.parameters[t], whole.parameters[t])) << "parameter " << t;
    }
  }
}

// Every team size trains alike, so a checkpoint written by a team of 2
// resumes on one thread and ends where one thread's uninterrupted run ends.
// Minibatches of 128 rows and a first layer of 256 units: two row and two
// unit blocks, one of each per member.
TEST(TrainingCheckpointTest, ACheckpointResumesOnAnotherTeamSize) {
  const Problem problem;
  DnnTopOptions opts = options();
  opts.batch = 128;
  opts.hidden = {256, 8};
  const std::string folder = test::temp_dir() + "/checkpoint_other_team";
  std::filesystem::create_directories(folder);
  const std::string path = folder + "/run.ckpt";
  std::filesystem::remove(path);
  const Trained whole = train(problem, opts, 1, {});
  EXPECT_THROW(train(problem, opts, 2, checkpointing(path, false), 4, 5), std::runtime_error);
  const Trained resumed = train(problem, opts, 1, checkpointing(path, true), 99);
  ASSERT_EQ(resumed.outcome.history.size(), whole.outcome.history.size());
  for (std::size_t e = 0; e < whole.outcome.history.size(); ++e) {
    EXPECT_EQ(resumed.outcome.history[e].loss, whole.outcome.history[e].loss) << "epoch " << e + 1;
  }
  ASSERT_EQ(resumed.parameters.size(), whole.parameters.size());
  for (std::size_t t = 0; t < whole.parameters.size(); ++t) {
    EXPECT_TRUE(torch::equal(resumed.parameters[t], whole.parameters[t])) << "parameter " << t;
  }
}

TEST(TrainingCheckpointTest, ResumingAFinishedRunTrainsNoMore) {
  const Problem problem;
  const std::string path = test::temp_dir() + "/finished.ckpt";
  std::filesystem::remove(path);
  const Trained whole = train(problem, options(), 1, checkpointing(path, false));
  int steps = 0;
  Rng init(4);
  auto network = make_mlp(kCheckpointInputs, 3, options().hidden, init);
  FitCallbacks callbacks;
  callbacks.checkpoint = checkpointing(path, true);
  callbacks.progress = [&steps](const Progress&) { ++steps; };
  const TrainingOutcome again =
      train_network(*network, problem.set, options(), kCheckpointK, callbacks);
  EXPECT_EQ(steps, 0);
  EXPECT_EQ(again.history.size(), whole.outcome.history.size());
  EXPECT_EQ(again.best_epoch, whole.outcome.best_epoch);
  EXPECT_TRUE(torch::equal(network->w.detach(), whole.parameters.front()));
}

TEST(TrainingCheckpointTest, ACheckpointOfAnotherRunIsRefusedNamingTheDifference) {
  const Problem problem;
  const std::string path = test::temp_dir() + "/other_run.ckpt";
  std::filesystem::remove(path);
  EXPECT_THROW(train(problem, options(), 1, checkpointing(path, false), 4, 3), std::runtime_error);

  DnnTopOptions other_lr = options();
  other_lr.lr = 1e-3;
  const std::string lr_message =
      test::error_of<OptionError>([&] { train(problem, other_lr, 1, checkpointing(path, true)); });
  EXPECT_NE(lr_message.find("loop.lr is 0.02 in the checkpoint, 0.001 here"), std::string::npos)
      << lr_message;

  CheckpointSettings other_k = checkpointing(path, true);
  other_k.run = R"({"method": "dnn-top", "k": 4})";
  const std::string k_message =
      test::error_of<OptionError>([&] { train(problem, options(), 1, other_k); });
  EXPECT_NE(k_message.find("run.k is 3 in the checkpoint, 4 here"), std::string::npos) << k_message;

  Problem other_data;
  other_data.features(7, 2) += 1.0f;
  const std::string data_message = test::error_of<OptionError>(
      [&] { train(other_data, options(), 1, checkpointing(path, true)); });
  EXPECT_NE(data_message.find("data.fingerprint"), std::string::npos) << data_message;
}

TEST(TrainingCheckpointTest, AFileThatIsNoCheckpointIsAFileError) {
  const Problem problem;
  const std::string path = test::write_temp_file("not_a_checkpoint.ckpt", "hello\n");
  const std::string message =
      test::error_of<FileError>([&] { train(problem, options(), 1, checkpointing(path, true)); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

// A fresh fit replaces an earlier run's checkpoint, but nothing else: a
// mistyped path must not destroy a data file (it did).
TEST(TrainingCheckpointTest, AFreshFitReplacesOnlyACheckpoint) {
  const Problem problem;
  const std::string data = test::write_temp_file("data_not_checkpoint.csv", "a,b\n1,2\n");
  const std::string message =
      test::error_of<FileError>([&] { train(problem, options(), 1, checkpointing(data, false)); });
  EXPECT_NE(message.find(data + ": exists and is not a topkfs training checkpoint"),
            std::string::npos)
      << message;
  EXPECT_EQ(test::read_text(data), "a,b\n1,2\n");
  const std::string folder = test::temp_dir();
  EXPECT_THROW(train(problem, options(), 1, checkpointing(folder, false)), FileError);

  const std::string earlier = test::temp_dir() + "/replaced.ckpt";
  std::filesystem::remove(earlier);
  EXPECT_THROW(train(problem, options(), 1, checkpointing(earlier, false), 4, 2),
               std::runtime_error);
  DnnTopOptions other = options();
  other.lr = 1e-3;
  EXPECT_NO_THROW(train(problem, other, 1, checkpointing(earlier, false)));
  EXPECT_EQ(read_checkpoint(earlier).identity.at("loop").at("lr"), 1e-3);
}

TEST(TrainingCheckpointTest, ATensorReachingPastItsStoredValuesIsRefused) {
  // libtorch loads a tensor's shape as the file states it, whatever the
  // values stored with it: here a loss history of 2 epochs' values that
  // claims 2000 epochs (read, it was a heap over-read; found by mutating a
  // checkpoint's bytes). The archive has the checkpoint's leading entries.
  torch::Tensor history = torch::zeros({2, 5}, torch::kDouble);
  history.unsafeGetTensorImpl()->set_sizes_contiguous({2000, 5});
  torch::serialize::OutputArchive archive;
  archive.write("format", c10::IValue(std::string("topkfs training checkpoint")));
  archive.write("version", c10::IValue(kCheckpointVersion));
  archive.write("identity", c10::IValue(std::string("{}")));
  archive.write("epoch", c10::IValue(static_cast<std::int64_t>(2000)));
  archive.write("history", history, /*is_buffer=*/true);
  const std::string path = test::temp_dir() + "/past_its_values.ckpt";
  archive.save_to(path);

  const Problem problem;
  const std::string message =
      test::error_of<FileError>([&] { train(problem, options(), 1, checkpointing(path, true)); });
  EXPECT_NE(message.find(path + ": is corrupt: 'history' (shape 2000 x 5) reaches past the values"),
            std::string::npos)
      << message;
}

// A checkpoint written by write_checkpoint that holds only `model_state`
// (no training ran), in temp_dir(); returns its path.
std::string write_small_checkpoint(const std::string& name, std::vector<Tensor> model_state) {
  LoopCheckpoint checkpoint;
  checkpoint.identity = {{"run", "test"}};
  checkpoint.model_state = std::move(model_state);
  checkpoint.shuffle_state = "not read here";
  const std::string path = test::temp_dir() + "/" + name;
  write_checkpoint(path, checkpoint);
  return path;
}

TEST(TrainingCheckpointTest, AValueChangedOnDiskIsRefusedByTheChecksum) {
  // One weight of a written checkpoint changed in the file, as a bad disk
  // or a careless edit would: libtorch reads it without complaint, the
  // checksum does not match.
  const std::string path =
      write_small_checkpoint("changed_on_disk.ckpt", {torch::full({64}, 1234.5f)});
  EXPECT_EQ(read_checkpoint(path).model_state.at(0)[7].item<float>(), 1234.5f);

  std::string bytes = test::read_text(path);
  const float weight = 1234.5f;
  const float changed = 1234.25f;
  const std::string pattern(reinterpret_cast<const char*>(&weight), sizeof weight);
  const auto at = bytes.find(pattern);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, sizeof changed, reinterpret_cast<const char*>(&changed), sizeof changed);
  const std::string changed_path = test::write_temp_file("changed_on_disk_2.ckpt", bytes);
  const std::string message = test::error_of<FileError>([&] { read_checkpoint(changed_path); });
  EXPECT_NE(message.find(changed_path + ": is corrupt: what it holds does not match the checksum"),
            std::string::npos)
      << message;
}

TEST(TrainingCheckpointTest, DamagedPickledDataIsAFileErrorNamingTheFile) {
  // libtorch's reader throws more than c10::Error on a damaged archive: a
  // memo index past the unpickler's memo (pickle's BINGET, opcode 'h' and
  // an index byte) ends in std::out_of_range. Every byte after an 'h' in
  // the pickled data (a BINGET's index, or a letter of a name) is made 255
  // in turn: each read either succeeds or names the file.
  const std::string path =
      write_small_checkpoint("pickled.ckpt", {torch::zeros({4}), torch::ones({2})});
  const std::string bytes = test::read_text(path);
  // The zip entry's local header: its name, then an extra field, then the
  // data (stored, not deflated), up to the next entry's header.
  const std::string name = "archive/data.pkl";
  const auto name_at = bytes.find(name);
  ASSERT_NE(name_at, std::string::npos);
  const auto extra_length = static_cast<unsigned char>(bytes[name_at - 2]) +
                            256 * static_cast<unsigned char>(bytes[name_at - 1]);
  const std::size_t begin = name_at + name.size() + extra_length;
  const std::size_t end = bytes.find("PK\x03\x04", begin);
  ASSERT_NE(end, std::string::npos);
  int damaged = 0;
  for (std::size_t at = begin; at + 1 < end; ++at) {
    if (bytes[at] != 'h') continue;
    std::string changed = bytes;
    changed[at + 1] = '\xff';
    const std::string changed_path = test::write_temp_file("pickled_damaged.ckpt", changed);
    ++damaged;
    try {
      read_checkpoint(changed_path);
    } catch (const FileError& error) {
      EXPECT_EQ(std::string(error.what()).rfind(changed_path + ": ", 0), 0u) << error.what();
    } catch (const std::exception& error) {
      ADD_FAILURE() << "byte " << at + 1 << ": not a FileError: " << error.what();
    }
  }
  EXPECT_GT(damaged, 3);
}

TEST(TrainingCheckpointTest, ATruncatedCheckpointOrASavedModelIsSaidInPlainWords) {
  const std::string path = write_small_checkpoint("whole.ckpt", {torch::zeros({256})});
  const std::string bytes = test::read_text(path);
  const std::string cut = test::write_temp_file("cut.ckpt", bytes.substr(0, bytes.size() / 2));
  const std::string truncated = test::error_of<FileError>([&] { read_checkpoint(cut); });
  EXPECT_NE(truncated.find(cut + ": cannot be read as a checkpoint: the file is truncated"),
            std::string::npos)
      << truncated;
  EXPECT_EQ(truncated.find("PytorchStreamReader"), std::string::npos) << truncated;

  // What --save-model writes: an archive with the model and its metadata.
  torch::serialize::OutputArchive model;
  model.write("topkfs_metadata", c10::IValue(std::string("{}")));
  const std::string saved = test::temp_dir() + "/saved-model.pt";
  model.save_to(saved);
  const std::string message = test::error_of<FileError>([&] { read_checkpoint(saved); });
  EXPECT_NE(message.find("is a model written by --save-model, not a training checkpoint"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace topkfs
