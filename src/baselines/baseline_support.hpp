#pragma once
// What the baseline selectors share: the checks before a fit.
#include <string>

#include "topkfs/data/dataset.hpp"

namespace topkfs::baselines_detail {

// Throws OptionError for k outside 1..columns and, when `needs_target`,
// DataError for data without a target, both naming `method`.
void check_fit_request(const Dataset& data, int k, const std::string& method,
                       bool needs_target = true);

}  // namespace topkfs::baselines_detail
