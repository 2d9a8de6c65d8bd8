#include "topkfs/neural/training_options.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/core/thread_count.hpp"

namespace topkfs {

constexpr EnumName<InputScaling> kInputScalingNames[] = {{InputScaling::Auto, "auto"},
                                                         {InputScaling::Standard, "standard"},
                                                         {InputScaling::MinMax, "minmax"},
                                                         {InputScaling::Image, "image"},
                                                         {InputScaling::None, "none"}};

EnumNameList<InputScaling> names_of(InputScaling) { return kInputScalingNames; }

void NeuralTrainingOptions::validate_training() const {
  auto fail = [](const std::string& message) { throw OptionError(message); };
  // A layer wider than this is a typo, not a network: its weights alone
  // would be gigabytes for any real data, and libtorch would fail inside.
  constexpr int kMaxHidden = 1 << 20;
  for (int size : hidden) {
    if (size <= 0) fail(fmt::format("--hidden: sizes must be positive, got {}", size));
    if (size > kMaxHidden) {
      fail(fmt::format("--hidden: a layer of {} units is too wide (at most {})", size, kMaxHidden));
    }
  }
  if (epochs < 1) fail(fmt::format("--epochs must be at least 1, got {}", epochs));
  if (min_steps < 0) fail(fmt::format("--min-steps must not be negative, got {}", min_steps));
  if (batch < 1) fail(fmt::format("--batch must be at least 1, got {}", batch));
  if (global_batch < 0) {
    fail(fmt::format("--global-batch must not be negative (0 = --batch per rank), got {}",
                     global_batch));
  }
  if (!(lr > 0)) fail(fmt::format("--lr must be positive, got {}", lr));
  if (!(validation >= 0 && validation < 1)) {
    fail(fmt::format("--validation must be in [0, 1), got {}", validation));
  }
  if (patience < 0) fail("--patience must not be negative");
  if (!(clip >= 0)) fail("--clip must not be negative");
  check_thread_count(threads);
}

}  // namespace topkfs
