#pragma once
// Scores of the evaluation protocols (docs/method.md §3): downstream
// accuracy and errors, agreement of a selection with a known true set, and
// stability of selections across splits.
//
// Every function throws OptionError, naming the argument, on inputs of
// mismatched or empty sizes, feature indices out of range or repeated.
#include <cstdint>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

// Share of equal entries of two label vectors of the same, non-zero length;
// with `weights` (one per entry, as scikit-learn's sample_weight), the share
// of the weight.
double accuracy(const std::vector<std::int32_t>& truth, const std::vector<std::int32_t>& predicted,
                const std::vector<double>& weights = {});

// Mean absolute error and root mean squared error of predicted real targets,
// computed per output and averaged over outputs (scikit-learn's
// multioutput="uniform_average"; for RMSE, the mean of the per-output RMSEs);
// with `weights` (one per row), weighted means.
double mean_absolute_error(const TargetMatrix& truth, const TargetMatrix& predicted,
                           const std::vector<double>& weights = {});
double root_mean_squared_error(const TargetMatrix& truth, const TargetMatrix& predicted,
                               const std::vector<double>& weights = {});
// Coefficient of determination 1 - SS_res / SS_tot per output, averaged over
// outputs; an output with constant truth scores 1 when predicted exactly and
// 0 otherwise (scikit-learn's convention).
double r2_score(const TargetMatrix& truth, const TargetMatrix& predicted);

// Agreement of a selected set of features with the true (informative) set.
struct SetAgreement {
  double precision = 0.0;  // |selected ∩ truth| / |selected|; 0 when nothing is selected
  double recall = 0.0;     // |selected ∩ truth| / |truth|; 0 when the truth is empty
  double f1 = 0.0;         // 2 p r / (p + r); 0 when p + r = 0
};
SetAgreement selection_agreement(const std::vector<std::int64_t>& selected,
                                 const std::vector<std::int64_t>& truth);

// |A ∩ B| / |A ∪ B|; 1 for two empty sets (they agree entirely).
double jaccard_index(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// Kuncheva's consistency index of two selections of k features out of m
// (L. I. Kuncheva, "A stability index for feature selection", AIAP 2007):
// (r m - k^2) / (k (m - k)) with r = |A ∩ B|. It is 1 for identical sets, near
// 0 for independent random sets, and corrects the overlap for chance, which
// grows with k. When k = m (or k = 0) every pair of selections is the same by
// necessity and the formula is 0/0: the index is then defined as 0, agreement
// no better than chance. The sets must have the same size k <= m and hold
// features 0..m-1.
double kuncheva_index(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                      std::int64_t m);

// Means over all pairs i < j of at least two sets.
double mean_pairwise_jaccard(const std::vector<std::vector<std::int64_t>>& sets);
double mean_pairwise_kuncheva(const std::vector<std::vector<std::int64_t>>& sets, std::int64_t m);

}  // namespace topkfs
