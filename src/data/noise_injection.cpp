#include "topkfs/data/noise_injection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

struct NoiseLaw {
  double mean = 0.0;
  double stddev = 0.0;
};

// Normal(0.1 mean_j, 0.01 std_j) per feature, the statistics over `rows`.
std::vector<NoiseLaw> noise_laws(const FeatureMatrix& features,
                                 const std::vector<std::int64_t>& rows) {
  const double n = static_cast<double>(rows.size());
  std::vector<NoiseLaw> laws(static_cast<std::size_t>(features.cols()));
  for (Eigen::Index j = 0; j < features.cols(); ++j) {
    double sum = 0.0;
    for (auto row : rows) sum += features(row, j);
    const double mean = sum / n;
    double squares = 0.0;
    for (auto row : rows) {
      const double d = features(row, j) - mean;
      squares += d * d;
    }
    laws[static_cast<std::size_t>(j)] = {0.1 * mean, 0.01 * std::sqrt(squares / n)};
  }
  return laws;
}

}  // namespace

NoisyDataset inject_noise_features(const Dataset& data, std::uint64_t seed, int reference_samples) {
  if (reference_samples < 1) {
    throw OptionError(fmt::format(
        "noise injection: reference_samples is {}; it must be at least 1 (the paper uses 20)",
        reference_samples));
  }
  const std::int64_t n = data.rows();
  const std::int64_t m = data.cols();
  if (n < 1 || m < 1) {
    throw DataError(
        fmt::format("{}: cannot inject noise features into data of {} rows x {} "
                    "columns",
                    data.source, n, m));
  }
  if (static_cast<std::int64_t>(data.feature_names.size()) != m) {
    throw DataError(fmt::format("{}: {} feature names for {} columns", data.source,
                                data.feature_names.size(), m));
  }
  Rng rng(seed);
  const std::int64_t reference = std::min<std::int64_t>(reference_samples, n);
  const auto rows = rng.sample_without_replacement(n, reference);
  const auto laws = noise_laws(data.features, rows);

  NoisyDataset out;
  Dataset& noisy = out.data;
  noisy = data;
  noisy.image_shape.reset();
  noisy.features.resize(n, 2 * m);
  noisy.features.leftCols(m) = data.features;
  // Row-major draws match the storage order, so the stream is read once.
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) {
      const auto& law = laws[static_cast<std::size_t>(j)];
      noisy.features(i, m + j) = static_cast<float>(rng.normal(law.mean, law.stddev));
    }
  }
  for (std::int64_t j = 0; j < m; ++j) {
    noisy.feature_names.push_back("noise_" + data.feature_names[static_cast<std::size_t>(j)]);
    out.informative.push_back(j);
  }
  noisy.notes.push_back(fmt::format(
      "appended {} noise features, Normal(0.1 mean, 0.01 std) of each feature over {} random "
      "samples (seed {})",
      m, reference, seed));
  return out;
}

}  // namespace topkfs
