#pragma once
// Seeded synthetic data with a planted informative set and correlated decoys,
// for tests and for measuring recovery of a known support.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct SyntheticOptions {
  // How the target depends on the informative features (see make_synthetic).
  enum class Relation { Linear, Nonlinear };
  enum class Target { Classes, Real };

  std::int64_t samples = 1000;
  std::int64_t features = 100;
  int informative = 10;
  // Noisy copies of informative features: correlated with the target but
  // carrying nothing beyond their source.
  int correlated_decoys = 10;
  // Correlation of each decoy with its source feature, in [-1, 1].
  double decoy_correlation = 0.9;
  Relation relation = Relation::Linear;
  Target target = Target::Classes;
  int classes = 2;  // Target::Classes only
  // Standard deviation of the Gaussian noise added to the score, as a fraction
  // of the standard deviation of the noise-free score.
  double noise = 0.1;
  std::uint64_t seed = 0;

  // Throws OptionError naming the offending field.
  void validate() const;
};

struct SyntheticData {
  Dataset data;
  std::vector<std::int64_t> informative;  // columns the target depends on, ascending
  std::vector<std::int64_t> decoys;       // ascending
  // decoy_sources[i]: the informative column decoys[i] copies.
  std::vector<std::int64_t> decoy_sources;
  // One coefficient per informative column (in the order of `informative`).
  Eigen::VectorXd coefficients;
};

// Features: independent standard normals, stored as float. Informative and
// decoy columns sit at seeded random positions. Decoy i copies informative
// feature i mod informative: x_decoy = r x_source + sqrt(1 - r^2) z, z a fresh
// standard normal, so corr(x_decoy, x_source) = r.
// Score s (from the stored float values of the informative columns x_1..x_p
// with coefficients b_1..b_p, |b_t| in [0.5, 1.5], random sign):
//  Linear:    s = sum_t b_t x_t.
//  Nonlinear: s = sum_t b_t g_t, by t mod 3 (t counted from 0):
//             0: sin(x_t) / sd, 1: (x_t^2 - 1) / sqrt(2), 2: x_t x_{t-1};
//             each term has unit variance (sd = sqrt((1 - e^-2) / 2)).
// y = s + noise * std(s) * e, e standard normal.
//  Real:    one target column "y".
//  Classes: y cut at its (classes - 1) equally spaced quantiles, so each class
//           has n / classes samples (+-1); class names "0".."C-1".
SyntheticData make_synthetic(const SyntheticOptions& options);

// The noise-free score s of every row of `features` (laid out as in `made`),
// the formula above; it reads only the informative columns.
Eigen::VectorXd synthetic_score(const SyntheticOptions& options, const SyntheticData& made,
                                const FeatureMatrix& features);

}  // namespace topkfs
