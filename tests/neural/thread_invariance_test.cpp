// Same data, options and seed give bitwise the same selection, scores and
// loss history for any thread count (docs/reliability.md, "Same selection
// for any thread count").
//
// Two levels, because the team's size is not always the count asked for:
// a fit's `threads` becomes a team of at most the cores the process may use
// (configure_threads), so on a 2-core machine threads 3 runs a team of 2.
//  - ThreadInvarianceTest.* fit each method through the registry with
//    threads 1, 2 and 3, as a user would: what the machine gives (and
//    result.options["threads_used"] records) for dnn-top and dfs, the pools'
//    and OpenBLAS's threads of the autograd methods, the linear methods' BLAS
//    and OpenMP threads, the forest's tree threads.
//  - TeamStepInvarianceTest.* train dnn-top's network with teams of 1, 2 and
//    3 members whatever the cores (train_network's batch_workers is the
//    team's size as given), so that a team of 3 runs even on 2 cores.
#include <gtest/gtest.h>
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "neural/dnn_top/dnn_top_objective.hpp"
#include "neural/model/network.hpp"
#include "neural/runtime/threads.hpp"
#include "selection_test_support.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/synthetic.hpp"

namespace topkfs {
namespace {

using namespace test;  // NOLINT: the suite's helpers
using Target = SyntheticOptions::Target;

// Bitwise equality of what a user reads of a fit: the selection, every
// column's score and every epoch's losses (not its seconds).
void expect_same_fit(const SelectionResult& one, const SelectionResult& other) {
  EXPECT_EQ(one.selected, other.selected);
  EXPECT_EQ(one.ranking, other.ranking);
  ASSERT_EQ(one.scores.size(), other.scores.size());
  for (std::size_t j = 0; j < one.scores.size(); ++j) {
    // EXPECT_EQ on doubles: bit for bit, not up to rounding.
    EXPECT_EQ(one.scores[j], other.scores[j]) << "score of column " << j;
  }
  ASSERT_EQ(one.history.size(), other.history.size());
  for (std::size_t e = 0; e < one.history.size(); ++e) {
    EXPECT_EQ(one.history[e].loss, other.history[e].loss) << "loss of epoch " << e + 1;
    EXPECT_EQ(one.history[e].val_loss, other.history[e].val_loss)
        << "validation loss of epoch " << e + 1;
  }
}

// Fits `method` with threads 1, 2 and 3 and compares each with one thread.
void expect_thread_invariant(const std::string& method, const Dataset& data, int k,
                             const OptionValues& options) {
  const SelectionResult one = fit_method(method, data, k, with(options, {{"threads", "1"}}));
  ASSERT_FALSE(one.history.empty() && method.find("forest") == std::string::npos);
  for (const char* threads : {"2", "3"}) {
    SCOPED_TRACE(std::string(method) + ", threads " + threads);
    const SelectionResult many = fit_method(method, data, k, with(options, {{"threads", threads}}));
    expect_same_fit(one, many);
  }
  configure_threads(1);  // the next test starts from one thread, as the suite does
}

// A few epochs: enough steps (some 40) for the rounding of one step to reach
// the scores if it differed, in a few seconds. dnn-top's minibatch of 128
// rows and first layer of 256 units are cut in 2 blocks each
// (step_blocks.hpp), so that a team of 2 has a block for each member.
const OptionValues kFewEpochs = with(kSmallNetwork, {{"epochs", "3"}, {"batch", "128"}});
const OptionValues kTeamNetwork = with(kFewEpochs, {{"hidden", "256,32"}});

SyntheticData classes_problem() { return planted_problem(Target::Classes, 3, 71, 2000); }

TEST(ThreadInvarianceTest, DnnTopWithTheTeamsFirstLayer) {
  // One sub-model on the top k: the team shares the MLP's first layer.
  expect_thread_invariant("dnn-top", classes_problem().data, 5, kTeamNetwork);
}

TEST(ThreadInvarianceTest, DnnTopWithSeveralSubModels) {
  // --sub-k-min: several sub-models a step, outside the team's first layer.
  expect_thread_invariant("dnn-top", classes_problem().data, 5,
                          with(kTeamNetwork, {{"sub-k-min", "2"}}));
}

TEST(ThreadInvarianceTest, DfsOnRealTargets) {
  const SyntheticData made = planted_problem(Target::Real, 0, 72, 1500);
  expect_thread_invariant("dfs", made.data, 5, kTeamNetwork);
}

TEST(ThreadInvarianceTest, Stg) {
  expect_thread_invariant("stg", classes_problem().data, 5, kFewEpochs);
}

TEST(ThreadInvarianceTest, Concrete) {
  expect_thread_invariant("concrete", classes_problem().data, 5, kFewEpochs);
}

TEST(ThreadInvarianceTest, ElasticNetTopOnRealTargets) {
  const SyntheticData made =
      planted_problem(Target::Real, 0, 73, 3000, SyntheticOptions::Relation::Linear, 300);
  expect_thread_invariant("elastic-net-top", made.data, 5, {});
}

TEST(ThreadInvarianceTest, ElasticNetTopOnClasses) {
  // The multinomial family (proximal Newton).
  const SyntheticData made =
      planted_problem(Target::Classes, 3, 74, 3000, SyntheticOptions::Relation::Linear, 300);
  expect_thread_invariant("elastic-net-top", made.data, 5, {});
}

TEST(ThreadInvarianceTest, RandomForest) {
  expect_thread_invariant("random-forest", classes_problem().data, 5,
                          {{"n-estimators", "24"}, {"seed", "3"}});
}

// dnn-top's trainer with a team of `members` threads as given, however many
// cores there are: the network's weights and the loss history after a few
// epochs.
struct TeamRun {
  std::vector<torch::Tensor> weights;
  std::vector<EpochRecord> history;
};

TeamRun train_with_team(const TrainingSet& set, std::int64_t inputs, const DnnTopOptions& options,
                        int members) {
  Rng init(4);
  auto network = make_mlp(inputs, 3, options.hidden, init);
  const TrainingOutcome outcome = train_network(*network, set, options, 5, {}, {}, members);
  TeamRun run;
  for (const auto& parameter : network->parameters()) run.weights.push_back(parameter.clone());
  run.history = outcome.history;
  return run;
}

void expect_same_run(const TeamRun& one, const TeamRun& other) {
  ASSERT_EQ(one.weights.size(), other.weights.size());
  for (std::size_t t = 0; t < one.weights.size(); ++t) {
    EXPECT_TRUE(torch::equal(one.weights[t], other.weights[t])) << "parameter " << t;
  }
  ASSERT_EQ(one.history.size(), other.history.size());
  for (std::size_t e = 0; e < one.history.size(); ++e) {
    EXPECT_EQ(one.history[e].loss, other.history[e].loss) << "loss of epoch " << e + 1;
    EXPECT_EQ(one.history[e].val_loss, other.history[e].val_loss);
  }
}

// Teams of 1, 2 and 3 members, on minibatches of 3 row blocks (200 rows: 66,
// 67 and 67) and a last one of 1 (55 rows), a first layer of 3 unit blocks
// (400 units), with the gradient clipped at every step, a validation set,
// and both the warm-up (no sub-model) and the sub-model's phases.
TEST(TeamStepInvarianceTest, TeamsOfOneTwoAndThreeTrainAlike) {
  const SyntheticData made =
      planted_problem(Target::Classes, 3, 75, 600, SyntheticOptions::Relation::Nonlinear, 30);
  const Dataset& data = made.data;
  FeatureMatrix features = data.features;
  TrainingSet set;
  set.features = &features;
  set.task = NeuralTask::MultiClass;
  set.targets = torch::empty({data.rows()}, torch::kLong);
  for (std::int64_t i = 0; i < data.rows(); ++i) {
    set.targets[i] = static_cast<std::int64_t>(data.labels[static_cast<std::size_t>(i)]);
  }
  for (std::int64_t i = 0; i < 455; ++i) set.train_rows.push_back(i);  // 2 x 200, + 55
  for (std::int64_t i = 455; i < data.rows(); ++i) set.validation_rows.push_back(i);
  DnnTopOptions options;
  options.hidden = {400, 16};
  options.epochs = 6;
  options.batch = 200;
  options.lr = 3e-3;
  options.clip = 0.5;  // small: most steps are clipped
  options.warmup = 0.25;
  options.validation = 0;
  options.min_steps = 0;
  options.patience = 0;
  configure_threads(1, ThreadUse::Team);
  const TeamRun one = train_with_team(set, data.cols(), options, 1);
  for (const int members : {2, 3}) {
    SCOPED_TRACE(members);
    expect_same_run(one, train_with_team(set, data.cols(), options, members));
  }
}

}  // namespace
}  // namespace topkfs
