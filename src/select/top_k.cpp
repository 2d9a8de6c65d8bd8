#include "topkfs/select/top_k.hpp"

#include <cmath>
#include <numeric>

namespace topkfs {

std::vector<std::int64_t> top_k_by_magnitude(const float* w, std::int64_t m, std::int64_t k) {
  std::vector<std::int64_t> indices(static_cast<std::size_t>(m));
  std::iota(indices.begin(), indices.end(), 0);
  keep_top_k(indices, static_cast<std::size_t>(k), [w](std::int64_t j) { return std::fabs(w[j]); });
  return indices;
}

}  // namespace topkfs
