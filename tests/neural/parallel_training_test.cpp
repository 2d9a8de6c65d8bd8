// The pieces of data-parallel training: the worker team's fork-join, the
// team step's gradients against one thread's, and the hand-written penalty
// node against plain autograd, and the default team size.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../cpp/busy_cores.hpp"
#include "neural/dnn_top/dnn_top_objective.hpp"
#include "neural/model/network.hpp"
#include "neural/ops/elastic_penalty.hpp"
#include "neural/ops/top_k_mask.hpp"
#include "neural/runtime/threads.hpp"
#include "neural/runtime/worker_team.hpp"
#include "neural/train/trainer.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/feature_matrix.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

TEST(WorkerTeamTest, EveryMemberRunsOncePerRunOnItsOwnThread) {
  WorkerTeam team(3);
  ASSERT_EQ(team.size(), 3);
  for (int round = 0; round < 200; ++round) {  // many fork-joins in a row
    std::vector<int> runs(3, 0);
    std::vector<std::thread::id> ids(3);
    team.run([&](int member) {
      ++runs[static_cast<std::size_t>(member)];
      ids[static_cast<std::size_t>(member)] = std::this_thread::get_id();
    });
    EXPECT_EQ(runs, (std::vector<int>{1, 1, 1}));
    EXPECT_EQ(ids[0], std::this_thread::get_id());  // member 0 is the caller
    EXPECT_NE(ids[1], ids[0]);
    EXPECT_NE(ids[2], ids[1]);
  }
}

TEST(WorkerTeamTest, RethrowsTheLowestMembersFailureAfterAllFinished) {
  WorkerTeam team(2);
  std::atomic<int> finished{0};
  try {
    team.run([&](int member) {
      ++finished;
      throw std::runtime_error("member " + std::to_string(member));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "member 0");
  }
  EXPECT_EQ(finished.load(), 2);
  // The team is still usable after a failure.
  std::atomic<int> ran{0};
  team.run([&](int) { ++ran; });
  EXPECT_EQ(ran.load(), 2);
}

// The default team takes the cores that other work leaves free: beside as
// many spinning processes as this process has cores, it has one member; a
// count given explicitly is kept.
TEST(ThreadsTest, TheDefaultTeamLeavesBusyCoresAlone) {
  const int cores = configure_threads(0, ThreadUse::All);
  int by_default = 0, given = 0, started = 0;
  {
    const test::BusyCores busy(cores);
    started = busy.started();
    by_default = configure_threads(0, ThreadUse::Team);
    given = configure_threads(cores, ThreadUse::Team);
  }
  configure_threads(1);
  ASSERT_EQ(started, cores) << "fork failed";
  EXPECT_EQ(by_default, 1);
  EXPECT_EQ(given, cores);
}

TEST(ElasticPenaltyTest, ValueAndGradientMatchPlainAutograd) {
  Rng rng(5);
  Tensor w = torch::empty({37});
  for (std::int64_t j = 0; j < w.numel(); ++j) w[j] = static_cast<float>(rng.normal());
  w[3] = 0.0f;  // |w|'s gradient at 0 is 0, as libtorch's abs has it
  const Tensor ours_w = w.clone().requires_grad_(true);
  const Tensor plain_w = w.to(torch::kDouble).requires_grad_(true);
  const Tensor ours = elastic_penalty(ours_w, 0.3, 0.7);
  const Tensor plain = 0.7 * plain_w.abs().sum() + 0.3 * plain_w.pow(2).sum();
  (2.0 * ours).backward();
  (2.0 * plain).backward();
  EXPECT_NEAR(ours.item<double>(), plain.item<double>(), 1e-5 * plain.item<double>());
  EXPECT_TRUE(torch::allclose(ours_w.grad().to(torch::kDouble), plain_w.grad(), 1e-5, 1e-6));
  EXPECT_EQ(ours_w.grad()[3].item<float>(), 0.0f);
}

TEST(ElasticPenaltyTest, OverflowIsInfiniteNotAnError) {
  // A diverging w: the trainer must see an infinite loss to report divergence.
  const Tensor w = torch::full({4}, 3e38f);
  EXPECT_TRUE(std::isinf(elastic_penalty(w, 1.0, 1.0).item<float>()));
}

TEST(SpinBarrierTest, NoMemberPassesBeforeAllArrive) {
  constexpr int kMembers = 3;
  WorkerTeam team(kMembers);
  SpinBarrier barrier(kMembers);
  std::atomic<int> arrived{0};
  std::vector<int> seen(kMembers * 100, 0);
  team.run([&](int member) {
    for (int phase = 1; phase <= 100; ++phase) {
      ++arrived;
      barrier.wait();
      seen[static_cast<std::size_t>((phase - 1) * kMembers + member)] = arrived.load();
      barrier.wait();  // nobody arrives at the next phase before all have looked
    }
  });
  for (int phase = 1; phase <= 100; ++phase) {
    for (int member = 0; member < kMembers; ++member) {
      EXPECT_EQ(seen[static_cast<std::size_t>((phase - 1) * kMembers + member)], kMembers * phase);
    }
  }
}

TEST(SpinBarrierTest, AbortReleasesTheWaitersUntilReset) {
  WorkerTeam team(2);
  SpinBarrier barrier(2);
  std::atomic<int> released{0};
  team.run([&](int member) {
    if (member == 1) {
      EXPECT_TRUE(barrier.abort());
      EXPECT_FALSE(barrier.abort());  // only the first caller is told it was first
      return;
    }
    EXPECT_THROW(barrier.wait(), BarrierAborted);
    ++released;
  });
  EXPECT_EQ(released.load(), 1);
  EXPECT_THROW(barrier.wait(), BarrierAborted);  // stays aborted
  barrier.reset(2);
  team.run([&](int) { barrier.wait(); });  // usable again
}

// A small MLP problem for the team step: `rows` rows of `inputs` normal
// features, three classes.
struct TeamProblem {
  TeamProblem(std::int64_t rows, std::int64_t inputs) : features(rows, inputs) {
    Rng rng(9);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < inputs; ++j) features(i, j) = static_cast<float>(rng.normal());
    }
    set.features = &features;
    set.task = NeuralTask::MultiClass;
    set.targets = torch::empty({rows}, torch::kLong);
    for (std::int64_t i = 0; i < rows; ++i) set.targets[i] = static_cast<std::int64_t>(i % 3);
    for (std::int64_t i = 0; i < rows; ++i) set.train_rows.push_back(i);
  }
  FeatureMatrix features;
  TrainingSet set;
};

struct TeamCase {
  int workers;
  std::int64_t rows;
  int first_hidden;
};

// One step of dnn-top on a team sees, at the gradient observer, the gradient of
// the whole minibatch: the same as one thread's, bit for bit. The cases
// cover an even split (two row blocks, two unit blocks), uneven rows and
// units, a member without unit blocks, and fewer row blocks than members.
TEST(ParallelStepTest, HookSeesTheWholeMinibatchGradient) {
  for (const TeamCase& c :
       {TeamCase{2, 128, 256}, TeamCase{3, 199, 300}, TeamCase{3, 130, 128}, TeamCase{3, 2, 8}}) {
    SCOPED_TRACE(fmt::format("{} workers, {} rows, {} units", c.workers, c.rows, c.first_hidden));
    const std::int64_t inputs = 20;
    const TeamProblem problem(c.rows, inputs);
    DnnTopOptions options;
    options.hidden = {c.first_hidden, 8};
    options.epochs = 1;
    options.batch = static_cast<int>(c.rows);  // one step
    options.lambda1 = 1e-3;
    options.lambda2 = 1e-3;
    options.lambda3 = 1.0;
    options.validation = 0;
    options.min_steps = 0;
    auto gradients_observed = [&](int workers) {
      Rng init(4);
      auto network = make_mlp(inputs, 3, options.hidden, init);
      std::vector<Tensor> seen;
      const GradientObserver observer = [&](const std::vector<Tensor>& parameters) {
        for (const auto& parameter : parameters) seen.push_back(parameter.grad().clone());
      };
      train_network(*network, problem.set, options, 5, {}, observer, workers);
      return seen;
    };
    const auto one = gradients_observed(1);
    const auto team = gradients_observed(c.workers);
    ASSERT_EQ(one.size(), team.size());
    ASSERT_FALSE(one.empty());
    for (std::size_t t = 0; t < one.size(); ++t) {
      SCOPED_TRACE(t);
      EXPECT_TRUE(torch::equal(one[t], team[t]));
    }
  }
}

// Training keeps the top k inputs first and moves them as the top k
// changes; the best epoch's weights come back in the inputs' own order, as
// the validation loss recorded for that epoch shows when measured again.
TEST(InputOrderTrainingTest, BestEpochComesBackInTheInputsOwnOrder) {
  const std::int64_t inputs = 20, k = 5;
  const TeamProblem problem(160, inputs);
  TrainingSet set = problem.set;
  set.validation_rows.assign(set.train_rows.begin() + 120, set.train_rows.end());
  set.train_rows.resize(120);
  DnnTopOptions options;
  options.hidden = {16, 8};
  options.epochs = 12;
  options.batch = 16;
  options.lr = 3e-2;  // w moves fast, so the top k changes along the way
  options.validation = 0;
  options.patience = 0;
  options.min_steps = 0;
  for (const int workers : {1, 2}) {
    SCOPED_TRACE(workers);
    Rng init(4);
    auto network = make_mlp(inputs, 3, options.hidden, init);
    const TrainingOutcome outcome = train_network(*network, set, options, k, {}, {}, workers);
    ASSERT_GE(outcome.best_epoch, 1);
    const double recorded =
        *outcome.history[static_cast<std::size_t>(outcome.best_epoch - 1)].val_loss;
    torch::NoGradGuard no_grad;
    const Tensor w = network->w.detach();
    const Tensor subset =
        torch::tensor(top_k_by_magnitude(w.data_ptr<float>(), w.numel(), k), torch::kLong);
    const Tensor x = gather_batch(set, set.validation_rows, 0, set.validation_rows.size());
    const Tensor y = gather_targets(set, set.validation_rows, 0, set.validation_rows.size());
    const double measured =
        lead_and_sub_loss(network->forward(x, subset), y, set.task, options.lambda3).item<double>();
    EXPECT_NEAR(measured, recorded, 1e-5 * recorded);
  }
}

// dnn-top's objective, but the loss of every member other than the caller's
// fails before the network runs: the members in lockstep with it must not
// wait for it forever.
class FailingOffTheMainThread final : public LoopModel {
 public:
  explicit FailingOffTheMainThread(TopKNetwork& network) : network_(network) {}
  std::vector<Tensor> parameters() override { return network_.parameters(); }
  Tensor batch_loss(const Tensor& x, const Tensor& y, const StepInfo&,
                    const FirstLayerSeat* seat) override {
    if (std::this_thread::get_id() != main_) throw std::runtime_error("the member's own failure");
    return loss(x, y, seat);
  }
  Tensor validation_loss(const Tensor& x, const Tensor& y, const Tensor&) override {
    return loss(x, y, nullptr);
  }
  bool batch_loss_is_pure() const override { return true; }

 private:
  // With the caller's seat, so that it waits in the team's first layer.
  Tensor loss(const Tensor& x, const Tensor& y, const FirstLayerSeat* seat) {
    const Tensor subset = torch::arange(3, torch::kLong);
    return lead_and_sub_loss(network_.forward(x, subset, seat), y, NeuralTask::MultiClass, 1.0);
  }
  TopKNetwork& network_;
  std::thread::id main_ = std::this_thread::get_id();
};

TEST(ParallelStepTest, AMembersFailureEndsTheStepWithItsOwnError) {
  const TeamProblem problem(128, 12);  // two row blocks: one per member
  Rng init(4);
  auto network = make_mlp(12, 3, {8}, init);
  FailingOffTheMainThread model(*network);
  LoopSettings settings;
  settings.epochs = 1;
  settings.batch = 128;
  settings.batch_workers = 2;
  try {
    train_loop(model, problem.set, settings, {});
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "the member's own failure");
  }
}

}  // namespace
}  // namespace topkfs
