#pragma once
// The w^{max_k} operator: the k entries of largest |w|, ties to the lower index.
#include <cstdint>
#include <vector>

namespace topkfs {

// Indices of the k largest |w[j]|, in increasing index order (the order does
// not matter to the model; sorted indices make gathers cache-friendly).
// O(m) on average (nth_element).
std::vector<std::int64_t> top_k_by_magnitude(const float* w, std::int64_t m, std::int64_t k);

}  // namespace topkfs
