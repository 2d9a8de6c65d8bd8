#include "baseline_support.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"

namespace topkfs::baselines_detail {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void check_fit_request(const Dataset& data, int k, const std::string& method, bool needs_target) {
  if (k < 1 || k > data.cols()) {
    throw OptionError(fmt::format("--k {} is out of range: {} has {} feature columns", k,
                                  data.source, data.cols()));
  }
  if (needs_target && data.target_kind == TargetKind::None) {
    throw DataError(fmt::format(
        "{}: {} is supervised and needs a target, and this data has none; name it with --target",
        data.source, method));
  }
}

}  // namespace topkfs::baselines_detail
