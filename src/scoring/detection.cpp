#include "topkfs/scoring/detection.hpp"

#include "topkfs/core/random.hpp"
#include "topkfs/data/noise_injection.hpp"
#include "topkfs/scoring/metrics.hpp"

namespace topkfs {

DetectionData make_detection_data(const Dataset& data, std::uint64_t seed) {
  NoisyDataset noisy = inject_noise_features(data, seed);
  Rng rng(derive_seed(seed, 1));
  DetectionData detection;
  detection.unshuffled = rng.permutation(noisy.data.cols());
  detection.data = take_columns(noisy.data, detection.unshuffled);
  detection.original_columns = static_cast<int>(noisy.informative.size());
  return detection;
}

std::vector<std::int64_t> unshuffled_columns(const DetectionData& detection,
                                             const std::vector<std::int64_t>& selected) {
  std::vector<std::int64_t> columns;
  columns.reserve(selected.size());
  for (const auto column : selected) {
    columns.push_back(detection.unshuffled[static_cast<std::size_t>(column)]);
  }
  return columns;
}

double detection_f1(const DetectionData& detection, const std::vector<std::int64_t>& selected) {
  std::vector<std::int64_t> originals(static_cast<std::size_t>(detection.original_columns));
  for (std::size_t j = 0; j < originals.size(); ++j) originals[j] = static_cast<std::int64_t>(j);
  return 100.0 * selection_agreement(unshuffled_columns(detection, selected), originals).f1;
}

}  // namespace topkfs
