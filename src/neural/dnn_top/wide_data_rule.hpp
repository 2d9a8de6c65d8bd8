#pragma once
// dnn-top on wide, short data (many more inputs than training rows, as gene
// expression tables): the training budget that the image datasets tuned
// (docs/algorithms.md, "Defaults and why") leaves w far from where the L1
// penalty would put it, so the ranking by |w| is mostly noise there. This
// rule gives such data its own budget; docs/algorithms.md, "Wide, short
// data", has the reasoning and the measurements.
#include <cstdint>
#include <set>
#include <string>

#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {

// The rule applies from this many inputs per training row on. The paper's
// image datasets and the detection tables have at most 0.9 (COIL20: 1024
// pixels, 1152 training rows); gene expression tables have 20 to 200.
constexpr double kWideInputsPerRow = 2.0;

// True when `options.wide` is auto and there are at least kWideInputsPerRow
// inputs per training row.
bool wide_data_rule_applies(const DnnTopOptions& options, std::int64_t rows, std::int64_t inputs);

// Where the rule applies, `options` with the wide-data budget in every
// option of it that is not in `given` (the options the user set, by their
// command-line names, are kept whatever their value); returns the note for
// the result naming what changed, or an empty string when nothing did.
std::string apply_wide_data_rule(DnnTopOptions& options, const std::set<std::string>& given,
                                 std::int64_t rows, std::int64_t inputs);

}  // namespace topkfs
