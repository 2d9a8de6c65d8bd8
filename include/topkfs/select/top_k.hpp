#pragma once
// The top-k rule of the method (docs/method.md, "The top-k rule"): the k
// entries of largest |w|, ties to the lower index. Exactly k are kept, also
// when many magnitudes are equal (w starts at 1 everywhere in dnn-top), so
// the rule must say which of equal entries win: the lower index, because it
// is deterministic and independent of the order in which entries are visited.
//
// Every place that needs the rule uses these: the neural sub-model's mask and
// the network's input order (src/neural), coordinate descent's top-k set and
// its choice of Gram columns (src/linear).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace topkfs {

// True when the entry (magnitude_a, index_a) ranks before (magnitude_b,
// index_b): a larger magnitude, or an equal one and a lower index. A NaN
// magnitude ranks before nothing and nothing ranks before it by magnitude.
template <typename T>
constexpr bool ranks_before(T magnitude_a, std::int64_t index_a, T magnitude_b,
                            std::int64_t index_b) {
  return magnitude_a > magnitude_b || (magnitude_a == magnitude_b && index_a < index_b);
}

// Keeps in `indices` the k that rank first by `magnitude(j)` (the caller's
// |w_j|), and sorts them in increasing index order (gathers over sorted
// indices are cache-friendly, and sets compare as vectors). With k or fewer
// indices, all are kept. O(size) on average.
template <typename Magnitude>
void keep_top_k(std::vector<std::int64_t>& indices, std::size_t k, const Magnitude& magnitude) {
  if (indices.size() > k) {
    const auto k_end = indices.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(indices.begin(), k_end, indices.end(), [&](std::int64_t a, std::int64_t b) {
      return ranks_before(magnitude(a), a, magnitude(b), b);
    });
    indices.erase(k_end, indices.end());
  }
  std::sort(indices.begin(), indices.end());
}

// The k of largest |w[j]| among j in 0..m-1, in increasing index order:
// the w^{max_k} mask of the method (all m when k >= m).
std::vector<std::int64_t> top_k_by_magnitude(const float* w, std::int64_t m, std::int64_t k);

}  // namespace topkfs
