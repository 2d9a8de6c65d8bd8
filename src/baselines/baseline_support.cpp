#include "baseline_support.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs::baselines_detail {

void check_fit_request(const Dataset& data, int k, const std::string& method, bool needs_target) {
  check_k(data, k);
  if (needs_target && data.target_kind == TargetKind::None) {
    throw DataError(fmt::format(
        "{}: {} is supervised and needs a target, and this data has none; name it with {}",
        data.source, method, option_ref("target")));
  }
}

}  // namespace topkfs::baselines_detail
