#include "topkfs/core/epoch_lines.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace topkfs {
namespace {

Progress epoch_end(int epoch, int epochs, double elapsed_seconds) {
  Progress progress;
  progress.epoch = epoch;
  progress.epochs = epochs;
  progress.elapsed_seconds = elapsed_seconds;
  progress.epoch_done = true;
  return progress;
}

// The epochs kept of a fit of `epochs` epochs of `seconds_each`.
std::vector<int> kept_epochs(EpochLineSchedule& schedule, int epochs, double seconds_each) {
  std::vector<int> kept;
  for (int e = 1; e <= epochs; ++e) {
    if (schedule.keep(epoch_end(e, epochs, e * seconds_each))) kept.push_back(e);
  }
  return kept;
}

TEST(EpochLineSchedule, QuickEpochsKeepTheFirstTheLastAndOneEveryInterval) {
  EpochLineSchedule schedule(2.0);
  // 2048 epochs of 1/256 s (exact in binary): 8 s in all.
  const std::vector<int> kept = kept_epochs(schedule, 2048, 1.0 / 256);
  EXPECT_EQ(kept, (std::vector<int>{1, 513, 1025, 1537, 2048}));
}

TEST(EpochLineSchedule, EpochsAsLongAsTheIntervalEachKeepALine) {
  EpochLineSchedule schedule(2.0);
  const std::vector<int> kept = kept_epochs(schedule, 5, 2.5);
  EXPECT_EQ(kept, (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST(EpochLineSchedule, ReportsWithinAnEpochAreNeverLines) {
  EpochLineSchedule schedule(2.0);
  Progress progress = epoch_end(1, 3, 10.0);
  progress.epoch_done = false;
  EXPECT_FALSE(schedule.keep(progress));
}

TEST(EpochLineSchedule, ANewFitStartsTheScheduleAgain) {
  // `evaluate` runs fit after fit through one display: each fit's first
  // epoch gets its line, though its clock starts again at 0.
  EpochLineSchedule schedule(2.0);
  EXPECT_EQ(kept_epochs(schedule, 10, 0.5), (std::vector<int>{1, 5, 9, 10}));
  EXPECT_EQ(kept_epochs(schedule, 10, 0.5), (std::vector<int>{1, 5, 9, 10}));
}

}  // namespace
}  // namespace topkfs
