#include "top_k_mask.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace topkfs {

std::vector<std::int64_t> top_k_by_magnitude(const float* w, std::int64_t m, std::int64_t k) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  auto before = [w](std::int64_t a, std::int64_t b) {
    const float ma = std::fabs(w[a]);
    const float mb = std::fabs(w[b]);
    return ma > mb || (ma == mb && a < b);
  };
  if (k < m) {
    std::nth_element(order.begin(), order.begin() + k, order.end(), before);
    order.resize(static_cast<std::size_t>(k));
  }
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace topkfs
