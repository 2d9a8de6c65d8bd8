#include "topkfs/data/synthetic.hpp"

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <set>

#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using Relation = SyntheticOptions::Relation;
using Target = SyntheticOptions::Target;

SyntheticOptions real_options(Relation relation) {
  SyntheticOptions options;
  options.samples = 400;
  options.features = 30;
  options.informative = 7;
  options.correlated_decoys = 5;
  options.relation = relation;
  options.target = Target::Real;
  options.noise = 0.0;
  options.seed = 12;
  return options;
}

double correlation(const FeatureMatrix& x, std::int64_t a, std::int64_t b) {
  const Eigen::VectorXd u = x.col(a).cast<double>();
  const Eigen::VectorXd v = x.col(b).cast<double>();
  const Eigen::VectorXd du = u.array() - u.mean();
  const Eigen::VectorXd dv = v.array() - v.mean();
  return du.dot(dv) / std::sqrt(du.squaredNorm() * dv.squaredNorm());
}

TEST(Synthetic, ShapesAndLayout) {
  SyntheticOptions options;  // the defaults: 1000 x 100, 10 informative, 10 decoys
  const SyntheticData made = make_synthetic(options);
  const Dataset& data = made.data;
  EXPECT_EQ(data.rows(), 1000);
  EXPECT_EQ(data.cols(), 100);
  EXPECT_EQ(data.feature_names.front(), "x0");
  EXPECT_EQ(data.feature_names.back(), "x99");
  EXPECT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.num_classes(), 2);
  EXPECT_NO_THROW(data.validate());

  ASSERT_EQ(made.informative.size(), 10u);
  ASSERT_EQ(made.decoys.size(), 10u);
  ASSERT_EQ(made.decoy_sources.size(), 10u);
  ASSERT_EQ(made.coefficients.size(), 10);
  EXPECT_TRUE(std::is_sorted(made.informative.begin(), made.informative.end()));
  EXPECT_TRUE(std::is_sorted(made.decoys.begin(), made.decoys.end()));
  std::set<std::int64_t> columns(made.informative.begin(), made.informative.end());
  columns.insert(made.decoys.begin(), made.decoys.end());
  EXPECT_EQ(columns.size(), 20u);  // distinct positions
  EXPECT_GE(*columns.begin(), 0);
  EXPECT_LT(*columns.rbegin(), 100);
  const std::set<std::int64_t> informative(made.informative.begin(), made.informative.end());
  for (auto source : made.decoy_sources) EXPECT_EQ(informative.count(source), 1u);
  // Each informative feature has exactly one decoy here (10 decoys, 10 sources).
  EXPECT_EQ(std::set<std::int64_t>(made.decoy_sources.begin(), made.decoy_sources.end()).size(),
            10u);
  for (Eigen::Index t = 0; t < made.coefficients.size(); ++t) {
    EXPECT_GE(std::abs(made.coefficients[t]), 0.5);
    EXPECT_LE(std::abs(made.coefficients[t]), 1.5);
  }
}

TEST(Synthetic, DecoyCorrelationAsAsked) {
  for (double r : {0.9, 0.5}) {
    SyntheticOptions options;
    options.samples = 20000;
    options.features = 20;
    options.informative = 4;
    options.correlated_decoys = 8;
    options.decoy_correlation = r;
    options.seed = 3;
    const SyntheticData made = make_synthetic(options);
    for (std::size_t d = 0; d < made.decoys.size(); ++d) {
      // Standard error of a sample correlation: (1 - r^2) / sqrt(n) <= 0.006.
      EXPECT_NEAR(correlation(made.data.features, made.decoys[d], made.decoy_sources[d]), r, 0.03)
          << "decoy " << made.decoys[d];
    }
    // Unrelated columns stay uncorrelated.
    EXPECT_NEAR(correlation(made.data.features, made.informative[0], made.informative[1]), 0.0,
                0.03);
  }
}

TEST(Synthetic, LinearTargetIsExactlyLeastSquaresOnTheInformativeColumns) {
  const SyntheticData made = make_synthetic(real_options(Relation::Linear));
  const Dataset& data = made.data;
  Eigen::MatrixXd a(data.rows(), static_cast<Eigen::Index>(made.informative.size()));
  for (std::size_t t = 0; t < made.informative.size(); ++t) {
    a.col(static_cast<Eigen::Index>(t)) = data.features.col(made.informative[t]).cast<double>();
  }
  const Eigen::VectorXd y = data.targets.col(0);
  const Eigen::VectorXd beta = a.colPivHouseholderQr().solve(y);
  EXPECT_LT((a * beta - y).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((beta - made.coefficients).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(Synthetic, TargetIgnoresTheOtherColumns) {
  for (auto relation : {Relation::Linear, Relation::Nonlinear}) {
    const SyntheticOptions options = real_options(relation);
    const SyntheticData made = make_synthetic(options);
    const Eigen::VectorXd y = made.data.targets.col(0);
    EXPECT_LT((synthetic_score(options, made, made.data.features) - y).cwiseAbs().maxCoeff(),
              1e-12);

    // Shuffle every column that is not informative (decoys included): the
    // score stays; shuffling one informative column changes it.
    FeatureMatrix shuffled = made.data.features;
    const std::set<std::int64_t> informative(made.informative.begin(), made.informative.end());
    Rng rng(1);
    for (Eigen::Index j = 0; j < shuffled.cols(); ++j) {
      if (informative.count(j)) continue;
      const auto order = rng.permutation(shuffled.rows());
      for (Eigen::Index i = 0; i < shuffled.rows(); ++i)
        shuffled(i, j) = made.data.features(order[i], j);
    }
    EXPECT_EQ(synthetic_score(options, made, shuffled), y);
    const auto order = rng.permutation(shuffled.rows());
    for (Eigen::Index i = 0; i < shuffled.rows(); ++i) {
      shuffled(i, made.informative[0]) = made.data.features(order[i], made.informative[0]);
    }
    EXPECT_GT((synthetic_score(options, made, shuffled) - y).cwiseAbs().maxCoeff(), 0.1);
  }
}

TEST(Synthetic, NonlinearTargetIsNotLinear) {
  // x^2 and product terms: least squares on the informative columns leaves
  // most of the variance unexplained.
  const SyntheticData made = make_synthetic(real_options(Relation::Nonlinear));
  Eigen::MatrixXd a(made.data.rows(), static_cast<Eigen::Index>(made.informative.size()) + 1);
  a.col(0).setOnes();
  for (std::size_t t = 0; t < made.informative.size(); ++t) {
    a.col(static_cast<Eigen::Index>(t) + 1) =
        made.data.features.col(made.informative[t]).cast<double>();
  }
  const Eigen::VectorXd y = made.data.targets.col(0);
  const Eigen::VectorXd residual = a * a.colPivHouseholderQr().solve(y) - y;
  const double variance = (y.array() - y.mean()).square().mean();
  EXPECT_GT(residual.squaredNorm() / static_cast<double>(y.size()), 0.3 * variance);
}

TEST(Synthetic, NoiseHasTheAskedScale) {
  SyntheticOptions options = real_options(Relation::Linear);
  options.samples = 20000;
  const SyntheticData clean = make_synthetic(options);
  options.noise = 0.5;
  const SyntheticData noisy = make_synthetic(options);
  EXPECT_EQ(clean.data.features, noisy.data.features);
  const Eigen::VectorXd s = clean.data.targets.col(0);
  const Eigen::VectorXd e = noisy.data.targets.col(0) - s;
  const double sd_s = std::sqrt((s.array() - s.mean()).square().mean());
  const double sd_e = std::sqrt((e.array() - e.mean()).square().mean());
  EXPECT_NEAR(sd_e / sd_s, 0.5, 0.02);
}

TEST(Synthetic, ClassesAreBalanced) {
  SyntheticOptions options;
  options.classes = 3;
  options.relation = Relation::Nonlinear;
  const SyntheticData made = make_synthetic(options);
  auto counts = class_counts(made.data);
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<std::int64_t>{333, 333, 334}));
  EXPECT_EQ(made.data.class_names, (std::vector<std::string>{"0", "1", "2"}));
}

TEST(Synthetic, ClassesFollowTheScore) {
  // Without noise the labels are the score's quantile bins.
  SyntheticOptions options = real_options(Relation::Linear);
  options.target = Target::Classes;
  options.classes = 4;
  const SyntheticData made = make_synthetic(options);
  const Eigen::VectorXd s = synthetic_score(options, made, made.data.features);
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    for (Eigen::Index k = 0; k < s.size(); ++k) {
      if (s[i] < s[k]) ASSERT_LE(made.data.labels[i], made.data.labels[k]);
    }
  }
}

TEST(Synthetic, DeterministicBySeed) {
  SyntheticOptions options;
  options.samples = 200;
  const SyntheticData a = make_synthetic(options);
  const SyntheticData b = make_synthetic(options);
  EXPECT_EQ(a.data.features, b.data.features);
  EXPECT_EQ(a.data.labels, b.data.labels);
  EXPECT_EQ(a.informative, b.informative);
  options.seed = 1;
  const SyntheticData c = make_synthetic(options);
  EXPECT_NE(a.data.features, c.data.features);
  EXPECT_NE(a.informative, c.informative);
}

void expect_option_error(const SyntheticOptions& options, const std::string& field) {
  try {
    options.validate();
    ADD_FAILURE() << "no exception for " << field;
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(Synthetic, ValidateNamesTheField) {
  EXPECT_NO_THROW(SyntheticOptions{}.validate());
  SyntheticOptions o;
  o.samples = 1;
  expect_option_error(o, "samples");
  o = {};
  o.features = 0;
  expect_option_error(o, "features");
  o = {};
  o.informative = 0;
  expect_option_error(o, "informative");
  o = {};
  o.informative = 101;
  expect_option_error(o, "informative");
  o = {};
  o.correlated_decoys = 91;
  expect_option_error(o, "correlated_decoys");
  o = {};
  o.decoy_correlation = 1.5;
  expect_option_error(o, "decoy_correlation");
  o = {};
  o.classes = 1;
  expect_option_error(o, "classes");
  o = {};
  o.noise = -0.1;
  expect_option_error(o, "noise");
  o = {};
  o.samples = 1'000'000;
  o.features = 1'000'000;
  expect_option_error(o, "samples");
  o = {};
  o.target = Target::Real;
  o.classes = 1;  // ignored for real targets
  EXPECT_NO_THROW(o.validate());
  o = {};
  o.informative = 0;
  EXPECT_THROW(make_synthetic(o), OptionError);
}

}  // namespace
}  // namespace topkfs
