#pragma once
// Train/test and train/validation splits, seeded and reproducible.
//
// Sizes follow scikit-learn's (Stratified)ShuffleSplit: with n rows and test
// fraction f, n_test = ceil(f * n) (in double arithmetic, as numpy does it) and
// n_train = n - n_test. Row indices come back sorted ascending within each part,
// so that take_rows() keeps the file order; trainers shuffle on their own.
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

// Predefined: the split that came with the data (MNIST's 60000/10000), when
// there is one; Random: a seeded stratified split of all rows.
enum class SplitMode { Predefined, Random };

const char* to_string(SplitMode mode);
// Parses "predefined", "random" (case-insensitive); throws OptionError listing
// the choices otherwise.
SplitMode parse_split_mode(const std::string& name);

// A uniformly random split of rows 0..n-1. Throws OptionError unless
// 0 < test_fraction < 1, DataError when either part would be empty.
Split random_split(std::int64_t n, double test_fraction, std::uint64_t seed);

// Classes: per-class proportional allocation of the test rows (largest
// remainders, ties broken at random, as scikit-learn's StratifiedShuffleSplit),
// then adjusted so that every class with at least 2 samples has at least one
// sample in each part and a class with a single sample stays in the training
// part, where the part sizes allow it. Other targets: random_split().
Split stratified_split(const Dataset& data, double test_fraction, std::uint64_t seed);

struct TrainValTest {
  std::vector<std::int64_t> train;
  std::vector<std::int64_t> validation;
  std::vector<std::int64_t> test;
};

// The rows a split holds out of n at `fraction`: scikit-learn's size rule,
// ceil(fraction * n) (the rest are kept; each part needs at least one).
std::int64_t held_out_count(std::int64_t n, double fraction);

// Carves a validation part (fraction `validation_fraction` of `rows`, stratified
// as in stratified_split) out of `rows`, typically the training part of a split.
// The rows of `data` not in `rows` form the test part. Throws OptionError for a
// bad fraction or a row index out of range or repeated.
TrainValTest train_validation_split(const Dataset& data, const std::vector<std::int64_t>& rows,
                                    double validation_fraction, std::uint64_t seed);

// The predefined split when `mode` is Predefined and the data has one, a
// stratified_split() otherwise. Predefined on data without a split falls back to
// a random split silently: the caller checks data.predefined_split and tells
// the user. test_fraction is validated in both cases.
Split resolve_split(const Dataset& data, SplitMode mode, double test_fraction, std::uint64_t seed);

}  // namespace topkfs
