#pragma once
// Marginal screening before dnn-top trains on wide, short data
// (docs/algorithms.md, "Wide, short data"). With a few dozen rows and
// thousands of inputs the network fits the rows with almost any inputs, and
// which ones the L1 penalty leaves standing is decided by small differences;
// keeping first the columns that depend most on the target, each on its own
// (data/marginal_dependence.hpp), gives the network a problem of the shape it
// selects well on (fewer inputs than rows, a few times), as sure independence
// screening does for the lasso (Fan and Lv, JRSS-B 2008).
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {

// Auto keeps this many columns per training row (and at least twice k).
constexpr double kScreenColumnsPerRow = 3.0;

// How many columns a fit of `k` on `rows` training rows of `columns`
// columns keeps: 0 for none (off; auto where the wide-data rule does not
// apply, or the data groups its columns; a number at least the columns).
// Throws OptionError for a number below k.
std::int64_t screen_size(const DnnTopOptions& options, std::int64_t rows, std::int64_t columns,
                         int k, bool grouped);

// The training rows of `train` on the `keep` columns of the strongest
// marginal dependence, in memory, and which columns of `train` they are.
struct ScreenedData {
  Dataset data;
  std::vector<std::int64_t> columns;  // of train, in their order there
  std::vector<double> dependence;     // per column of train
};
ScreenedData screen_columns(const Dataset& train, const std::vector<std::int64_t>& rows,
                            std::int64_t keep);

// The note of a screened fit's result.
std::string screen_note(const ScreenedData& screened, std::int64_t columns);

}  // namespace topkfs
