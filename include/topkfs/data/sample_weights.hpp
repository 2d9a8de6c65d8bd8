#pragma once
// Sample and class weights (docs/data-preparation.md, "Weights"): a row of
// weight w counts as w copies of itself in every method's loss, in the
// trees' impurities and in the downstream scores; 0 removes it, 2 duplicates
// it. Weights are checked where they enter (a file, a column, Python), so
// that every method can take them as given.
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

// True when `data` carries sample or class weights.
bool has_weights(const Dataset& data);

// The weight of each of `rows`: the sample weight (1 without) times the
// class weight of its label, "balanced" counted over `rows`. Empty when
// `data` carries no weights, so that unweighted fits take their own path.
std::vector<double> row_weights(const Dataset& data, const std::vector<std::int64_t>& rows);

// The sample weights of `rows` alone (empty without): the weights of a
// score on test rows. Class weights shape what a model learns, not how its
// predictions are counted, as in scikit-learn.
std::vector<double> score_weights(const Dataset& data, const std::vector<std::int64_t>& rows);

// Throws DataError naming `source` and the 1-based row of the first weight
// that is negative, NaN or infinite, or when every weight is zero. `what`
// says where the weights came from ("column w", "weight file").
void check_sample_weights(const std::vector<double>& weights, const std::string& source,
                          const std::string& what);

// Throws DataError naming `source` when the weights of `rows` sum to zero
// (a training part left with no weight).
void check_rows_weigh(const std::vector<double>& weights, const std::string& source);

// One weight per line of FILE (an optional header line that is not a number
// first; blank lines are not rows), as many as `rows`. DataError naming the
// file and line otherwise.
std::vector<double> read_weight_file(const std::string& path, std::int64_t rows);

// Takes column `column` (a name of data's columns, else a 0-based index) out
// of the features as the sample weights (--sample-weight COL). DataError
// naming the column when it does not exist, is categorical, or holds a bad
// weight (check_sample_weights); the features must be in memory.
void take_weight_column(Dataset& data, const std::string& column);

// "balanced", or FILE: lines "class,weight" (class as the target's labels
// are named; an optional header), classes the file leaves out weighing 1.
// DataError naming the file and line for an unknown class, a repeated one or
// a weight that is negative or not a number.
ClassWeight read_class_weight(const std::string& spec, const Dataset& data);

// Sets data.sample_weight to `weights` (one per row, checked as
// check_sample_weights does; `what` names where they came from).
void apply_sample_weights(Dataset& data, std::vector<double> weights, const std::string& what);

}  // namespace topkfs
