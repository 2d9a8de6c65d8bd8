#pragma once
// The detection protocol of the paper (Table 2, "Results for regression"):
// append as many noise features as there are original features, then score a
// selection of k = m features by F1 against the original ones.
#include <cstdint>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct NoisyDataset {
  Dataset data;
  // Columns of `data` that are original (informative) features: 0..m-1.
  std::vector<std::int64_t> informative;
};

// For each original feature j, mean_j and std_j (population std, ddof = 0, as
// numpy's default) are taken over the same `reference_samples` rows, drawn at
// random without replacement (all rows when there are fewer); then a column of
// independent Normal(0.1 mean_j, 0.01 std_j) values is appended for every row.
// The result has 2m columns, the originals first and unchanged, the noise
// column of feature "name" called "noise_name". Target, split and provenance
// are kept; the image shape is dropped; a note records what was done.
// Throws OptionError when reference_samples < 1, DataError on empty data.
NoisyDataset inject_noise_features(const Dataset& data, std::uint64_t seed,
                                   int reference_samples = 20);

}  // namespace topkfs
