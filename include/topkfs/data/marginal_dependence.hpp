#pragma once
// How strongly each column depends on the target on its own, whatever the
// shape of the dependence: a chi-square test of independence between the
// column's quantile bin and the target (its class, or the quantile bin of a
// real target). A location shift, a change of spread or a U-shaped relation
// all move rows between bins, where a correlation sees only the first
// (docs/algorithms.md, "Wide, short data", says what uses it and why).
#include <cstdint>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

// Quantile bins of a column (values[i * stride], i < count): with `bins` bins,
// a value's bin is floor(bins * (weight of the values below it) / total
// weight), so equal values share a bin and a column of few distinct values
// takes fewer bins; each value weighs 1 without `weights` (one per value),
// and a weight w counts a value as w copies. NaN is -1.
std::vector<int> quantile_bins(const float* values, std::int64_t count, std::int64_t stride,
                               int bins, const double* weights = nullptr);

// Per column of `data`, over `rows` (weighted by row_weights when the data
// carries weights): the chi-square statistic of independence between the
// column's quantile bins and the target (classes, or each output's quantile
// bins, statistics and degrees of freedom summed over the outputs), as a
// standard normal deviate (Wilson and Hilferty's cube-root transform), so
// that columns with fewer bins compare with the rest. -infinity for a column
// with one value over the rows. The bins: 4, fewer when the rows would leave
// fewer than 5 expected per cell.
std::vector<double> marginal_dependence(const Dataset& data, const std::vector<std::int64_t>& rows);

}  // namespace topkfs
