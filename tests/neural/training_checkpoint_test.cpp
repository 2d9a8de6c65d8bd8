// Training checkpoints (src/neural/training_checkpoint.hpp): a dnn-top
// training stopped after some epochs and resumed from its checkpoint ends
// exactly where the uninterrupted training ends, on one thread and on a
// team; a checkpoint of another run is refused, naming the difference.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "neural/network.hpp"
#include "neural/trainer.hpp"
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

  const std::string team_message =
      test::error_of<OptionError>([&] { train(problem, options(), 2, checkpointing(path, true)); });
  EXPECT_NE(team_message.find("loop.team_size is 1 in the checkpoint, 2 here"), std::string::npos)
      << team_message;
}

TEST(TrainingCheckpointTest, AFileThatIsNoCheckpointIsAFileError) {
  const Problem problem;
  const std::string path = test::write_temp_file("not_a_checkpoint.ckpt", "hello\n");
  const std::string message =
      test::error_of<FileError>([&] { train(problem, options(), 1, checkpointing(path, true)); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

}  // namespace
}  // namespace topkfs
