// inffs (baselines/inffs.hpp): the closed form against the truncated power
// series it sums, the graph, relevances and scores against an independent
// numpy implementation of the authors' formulas (and of the documented
// extensions), recovery of a planted support for classes and real targets,
// exactly k, determinism, option errors, and one run through the CLI.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "baselines_test_support.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/baselines/inffs.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs {
namespace {

using Target = SyntheticOptions::Target;
using nlohmann::json;

// sum_{l=1..L} (r A)^l 1, term by term.
Eigen::VectorXd power_series(const Eigen::MatrixXd& a, double r, int length) {
  Eigen::VectorXd term = Eigen::VectorXd::Ones(a.rows());
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(a.rows());
  for (int l = 1; l <= length; ++l) {
    term = r * (a * term);
    sum += term;
  }
  return sum;
}

void expect_close(const Eigen::VectorXd& actual, const Eigen::VectorXd& expected, double rel) {
  ASSERT_EQ(actual.size(), expected.size());
  for (Eigen::Index i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], rel * std::max(1.0, std::abs(expected[i])))
        << "entry " << i;
  }
}

Eigen::MatrixXd random_graph(Eigen::Index m, std::uint64_t seed) {
  Rng rng(seed);
  Eigen::MatrixXd a(m, m);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index j = 0; j <= i; ++j) a(i, j) = a(j, i) = rng.uniform();
  }
  return a;
}

TEST(InfFs, ClosedFormEqualsThePowerSeries) {
  // A random dense graph, and a bipartite path graph (eigenvalues +-sqrt(5)
  // and 0: power iteration without a shift would oscillate).
  Eigen::MatrixXd path(3, 3);
  path << 0, 1, 0, 1, 0, 2, 0, 2, 0;
  for (const Eigen::MatrixXd& a : {random_graph(7, 1), path}) {
    const double rho =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues().cwiseAbs().maxCoeff();
    for (const double factor : {0.5, 0.9}) {
      // factor^600 < 1e-27: the tail is far below the tolerance.
      const Eigen::VectorXd expected = power_series(a, factor / rho, 600);
      for (const auto solver : {InfFsSolver::ConjugateGradient, InfFsSolver::Cholesky}) {
        SCOPED_TRACE(fmt::format("m = {}, factor {}, {}", a.rows(), factor, to_string(solver)));
        const InfFsPathSums sums = inffs_path_sums(a, factor, solver);
        EXPECT_NEAR(sums.spectral_radius, rho, 1e-10 * rho);
        EXPECT_TRUE(sums.eigen_converged);
        EXPECT_LT(sums.solver_residual, 1e-11);
        expect_close(sums.scores, expected, 1e-9);
      }
    }
  }
}

TEST(InfFs, GraphWithoutEdgesScoresZero) {
  const InfFsPathSums sums =
      inffs_path_sums(Eigen::MatrixXd::Zero(4, 4), 0.9, InfFsSolver::ConjugateGradient);
  EXPECT_EQ(sums.spectral_radius, 0.0);
  EXPECT_EQ(sums.scores, Eigen::VectorXd::Zero(4));
}

// The authors' formulas (their MATLAB code, 2016) written independently in
// numpy on a small fixture: the two-class graph and scores, the unsupervised
// graph, and the documented relevances for three classes and a real target.
// Column 5 is constant, column 6 constant within each of the two classes
// (the zero-variance guard of the Fisher criterion).
const std::string& numpy_reference() {
  static const std::string path = test::python_fixture("inffs_reference.json", R"(
import json
from scipy.stats import spearmanr
rng = np.random.default_rng(3)
n = 40
two = np.arange(n) % 2
three = np.arange(n) % 3
x = rng.normal(size=(n, 7)) * np.array([1.0, 2.0, 0.5, 3.0, 1.0, 1.0, 1.0])
x[:, 1] += 1.5 * two
x[:, 2] += 0.7 * three
x[:, 5] = 3.0
x[:, 6] = 2.0 * two
x = x.astype(np.float32)
real = (x[:, 0] + 0.3 * x[:, 3] ** 2 + rng.normal(size=n)).astype(np.float32)
x = x.astype(np.float64)
real64 = real.astype(np.float64)

def write(suffix, target):
    with open(out + suffix, 'w') as f:
        f.write(','.join(f'x{j}' for j in range(7)) + ',y\n')
        for i in range(n):
            f.write(','.join(repr(float(v)) for v in x[i]) + ',' + str(target[i]) + '\n')
write('.two.csv', ['ab'[c] for c in two])
write('.three.csv', ['abc'[c] for c in three])
write('.real.csv', [repr(float(v)) for v in real])

def minmax(m):
    m = m - m.min()
    return m / m.max() if m.max() > 0 else m

def fisher(labels):
    groups = [x[labels == c] for c in np.unique(labels)]
    between = sum((groups[a].mean(0) - groups[b].mean(0)) ** 2
                  for a in range(len(groups)) for b in range(a + 1, len(groups)))
    within = sum(g.std(0, ddof=1) ** 2 for g in groups)
    within[within == 0] = 10000
    return between / within

def sigma():
    sd = x.std(0, ddof=1)
    return minmax(np.maximum.outer(sd, sd))

def scores(a, factor=0.9):
    r = factor / np.linalg.eigvalsh(a).max()
    eye = np.eye(len(a))
    return (np.linalg.inv(eye - r * a) - eye).sum(1)

alpha = 0.5
f2 = fisher(two)
a2 = alpha * sigma() + (1 - alpha) * minmax(np.outer(f2, f2))
c, _ = spearmanr(x)
c = np.nan_to_num(c)
au = alpha * sigma() + (1 - alpha) * (1 - np.abs(c))
rho = np.array([np.nan_to_num(spearmanr(x[:, j], real64)[0]) for j in range(7)])
json.dump({'f2': f2.tolist(), 'a2': a2.tolist(), 's2': scores(a2).tolist(),
           'rho2': float(np.linalg.eigvalsh(a2).max()), 'au': au.tolist(),
           'su': scores(au).tolist(), 'f3': fisher(three).tolist(),
           'fr': (rho ** 2 / (1 - rho ** 2)).tolist()}, open(out, 'w'))
)");
  return path;
}

Eigen::VectorXd vector_of(const json& values) {
  const auto list = values.get<std::vector<double>>();
  return Eigen::Map<const Eigen::VectorXd>(list.data(), static_cast<Eigen::Index>(list.size()));
}

Eigen::MatrixXd matrix_of(const json& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()),
                      static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < out.rows(); ++i)
    out.row(i) = vector_of(rows[static_cast<std::size_t>(i)]);
  return out;
}

class InfFsNumpy : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = numpy_reference();
    ASSERT_FALSE(HasFailure());
    std::ifstream in(path_);
    reference_ = json::parse(in);
  }
  Dataset data(const std::string& suffix) const { return read_dataset(path_ + suffix); }

  std::string path_;
  json reference_;
};

TEST_F(InfFsNumpy, TwoClassGraphAndScoresMatchTheAuthorsFormulas) {
  const Dataset two = data(".two.csv");
  ASSERT_EQ(two.num_classes(), 2);
  const auto rows = test::all_rows(two.rows());
  expect_close(inffs_relevance(two, rows), vector_of(reference_["f2"]), 1e-10);
  const Eigen::MatrixXd graph = inffs_graph(two, rows, InfFsOptions{});
  EXPECT_LT((graph - matrix_of(reference_["a2"])).cwiseAbs().maxCoeff(), 1e-12);
  for (const auto solver : {InfFsSolver::ConjugateGradient, InfFsSolver::Cholesky}) {
    const InfFsPathSums sums = inffs_path_sums(graph, 0.9, solver);
    EXPECT_NEAR(sums.spectral_radius, reference_["rho2"].get<double>(), 1e-10);
    expect_close(sums.scores, vector_of(reference_["s2"]), 1e-9);
  }
  // The selector gives the same scores.
  auto selector = make_inffs_selector();
  const SelectionResult result = test::fit_all_rows(*selector, two, 3);
  expect_close(Eigen::Map<const Eigen::VectorXd>(result.scores.data(), 7),
               vector_of(reference_["s2"]), 1e-9);
}

TEST_F(InfFsNumpy, UnsupervisedGraphUsesSpearmanCorrelation) {
  const Dataset two = data(".two.csv");
  InfFsOptions options;
  options.supervised = false;
  const Eigen::MatrixXd graph = inffs_graph(two, test::all_rows(two.rows()), options);
  EXPECT_LT((graph - matrix_of(reference_["au"])).cwiseAbs().maxCoeff(), 1e-12);
  expect_close(inffs_path_sums(graph, 0.9, InfFsSolver::ConjugateGradient).scores,
               vector_of(reference_["su"]), 1e-9);
}

TEST_F(InfFsNumpy, RelevanceOfSeveralClassesAndOfARealTarget) {
  const Dataset three = data(".three.csv");
  ASSERT_EQ(three.num_classes(), 3);
  expect_close(inffs_relevance(three, test::all_rows(three.rows())), vector_of(reference_["f3"]),
               1e-10);
  const Dataset real = data(".real.csv");
  ASSERT_EQ(real.target_kind, TargetKind::Real);
  expect_close(inffs_relevance(real, test::all_rows(real.rows())), vector_of(reference_["fr"]),
               1e-10);
}

// The relevance term alone (alpha 0) finds the support. On this data every
// feature has unit variance, so at the default alpha the spread term, whose
// min-max normalisation stretches sampling noise in the standard deviations
// to [0, 1], decides the ranking instead (docs/algorithms.md): the next test.
TEST(InfFs, RelevanceTermRecoversThePlantedSupport) {
  for (const auto& [target, classes] : std::vector<std::pair<Target, int>>{
           {Target::Classes, 2}, {Target::Classes, 4}, {Target::Real, 2}}) {
    const SyntheticData made = test::planted(target, classes);
    auto selector = make_inffs_selector();
    selector->set_option("alpha", "0");
    const SelectionResult result = test::fit_all_rows(*selector, made.data, 6);
    test::expect_well_formed(result, made.data.cols(), 6);
    // Chance: 6 x 6 / 60 = 0.6 of the 6.
    EXPECT_EQ(test::recovered(result.selected, made.informative), 6)
        << to_string(made.data.target_kind) << " " << classes << ": "
        << fmt::format("{}", fmt::join(result.selected, ","));
  }
}

// The spread term prefers the widest features: with alpha 1 the columns
// scaled up come first, in the order of their spread.
TEST(InfFs, SpreadTermRanksByStandardDeviation) {
  SyntheticData made = test::planted(Target::Classes, 2, 200, 20);
  made.data.features.col(7) *= 3.0F;
  made.data.features.col(2) *= 2.0F;
  auto selector = make_inffs_selector();
  selector->set_option("alpha", "1");
  const SelectionResult result = test::fit_all_rows(*selector, made.data, 2);
  EXPECT_EQ(result.selected, (std::vector<std::int64_t>{7, 2}));
}

TEST(InfFs, ExactlyKAndTheSameResultEveryTime) {
  const SyntheticData made = test::planted(Target::Classes, 3, 150, 25);
  auto selector = make_inffs_selector();
  const SelectionResult first = test::fit_all_rows(*selector, made.data, 4);
  for (const int k : {1, 4, 25})
    test::expect_well_formed(test::fit_all_rows(*selector, made.data, k), 25, k);
  EXPECT_EQ(test::fit_all_rows(*selector, made.data, 4).scores, first.scores);
  selector->set_option("solver", "cholesky");
  const SelectionResult exact = test::fit_all_rows(*selector, made.data, 4);
  EXPECT_EQ(exact.ranking, first.ranking);
  EXPECT_EQ(first.options.at("solver"), "cg");
  EXPECT_GT(first.options.at("solver_iterations").get<int>(), 0);
}

TEST(InfFs, BadOptionsAndDataNameTheProblem) {
  auto message = [](const std::string& option, const std::string& value) {
    auto selector = make_inffs_selector();
    // A choice is refused when set, a number out of range when checked.
    return test::error_of<OptionError>([&] {
      selector->set_option(option, value);
      selector->check_options();
    });
  };
  EXPECT_TRUE(test::contains(message("alpha", "1.5"), "--alpha"));
  EXPECT_TRUE(test::contains(message("factor", "1"), "--factor"));
  EXPECT_TRUE(test::contains(message("factor", "0"), "--factor"));
  EXPECT_TRUE(test::contains(message("tol", "0"), "--tol"));
  EXPECT_TRUE(test::contains(message("solver", "lu"), "--solver"));
  auto selector = make_inffs_selector();
  EXPECT_TRUE(test::contains(
      test::error_of<OptionError>([&] { selector->set_option("factor", "x"); }), "--factor"));
  SyntheticData made = test::planted(Target::Real, 2, 30, 5, 2);
  EXPECT_TRUE(test::contains(
      test::error_of<OptionError>([&] { test::fit_all_rows(*selector, made.data, 0); }), "--k 0"));
  // Without a target: supervised is refused, unsupervised runs.
  made.data.target_kind = TargetKind::None;
  made.data.targets.resize(0, 0);
  EXPECT_TRUE(test::contains(
      test::error_of<DataError>([&] { test::fit_all_rows(*selector, made.data, 2); }), "target"));
  selector->set_option("supervised", "false");
  EXPECT_EQ(test::fit_all_rows(*selector, made.data, 2).selected.size(), 2u);
}

TEST(InfFs, SelectThroughTheCli) {
  const SyntheticData made = test::planted(Target::Classes, 2, 200, 10, 3);
  const std::string csv = test::write_csv(made.data, "inffs_cli.csv");
  const std::string out = test::temp_dir() + "/inffs_cli.json";
  const auto run =
      test::run_cli(fmt::format("select '{}' --method inffs --k 3 -q --output '{}'", csv, out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ifstream in(out);
  const json result = json::parse(in);
  EXPECT_EQ(result["method"], "inffs");
  EXPECT_EQ(result["selected"].size(), 3u);
  EXPECT_EQ(result["options"]["alpha"], 0.5);
  EXPECT_GT(result["options"]["spectral_radius"].get<double>(), 0.0);
}

}  // namespace
}  // namespace topkfs
