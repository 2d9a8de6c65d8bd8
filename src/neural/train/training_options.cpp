#include "topkfs/neural/training_options.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
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
    if (size <= 0)
      fail(fmt::format("{}: sizes must be positive, got {}", option_ref("hidden"), size));
    if (size > kMaxHidden) {
      fail(fmt::format("{}: a layer of {} units is too wide (at most {})", option_ref("hidden"),
                       size, kMaxHidden));
    }
  }
  if (epochs < 1) fail(fmt::format("{} must be at least 1, got {}", option_ref("epochs"), epochs));
  if (min_steps < 0)
    fail(fmt::format("{} must not be negative, got {}", option_ref("min-steps"), min_steps));
  if (batch < 1) fail(fmt::format("{} must be at least 1, got {}", option_ref("batch"), batch));
  if (global_batch < 0) {
    fail(fmt::format("{} must not be negative (0 = {} per rank), got {}",
                     option_ref("global-batch"), option_ref("batch"), global_batch));
  }
  if (!(lr > 0)) fail(fmt::format("{} must be positive, got {}", option_ref("lr"), lr));
  if (!(validation >= 0 && validation < 1)) {
    fail(fmt::format("{} must be in [0, 1), got {}", option_ref("validation"), validation));
  }
  if (patience < 0) fail(fmt::format("{} must not be negative", option_ref("patience")));
  if (!(clip >= 0)) fail(fmt::format("{} must not be negative", option_ref("clip")));
  check_thread_count(threads);
}

}  // namespace topkfs
