#pragma once
// The detection protocol's data (the paper's Table 2): the original columns,
// as many noise columns (inject_noise_features), and every column in a seeded
// random order, so that no tie rule can favour the originals, which the
// injection puts first.
#include <cstdint>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct DetectionData {
  Dataset data;  // 2m columns in shuffled order
  // For each column of `data`, its column in the unshuffled noisy data:
  // below `original_columns` for an original feature, noise otherwise.
  std::vector<std::int64_t> unshuffled;
  int original_columns = 0;
};

// Noise from seed `seed`, the column order from derive_seed(seed, 1).
DetectionData make_detection_data(const Dataset& data, std::uint64_t seed);

// F1 in percent of `selected` (columns of detection.data) against the original
// columns. With |selected| = m it equals precision and recall.
double detection_f1(const DetectionData& detection, const std::vector<std::int64_t>& selected);

// `selected` mapped to the unshuffled column numbers.
std::vector<std::int64_t> unshuffled_columns(const DetectionData& detection,
                                             const std::vector<std::int64_t>& selected);

}  // namespace topkfs
