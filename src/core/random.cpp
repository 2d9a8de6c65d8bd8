#include "topkfs/core/random.hpp"

#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

#include "topkfs/core/error.hpp"

namespace topkfs {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  // SplitMix64 of seed + golden-ratio multiples: nearby (seed, stream) pairs
  // give unrelated engine seeds.
  std::uint64_t z = seed + (stream + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::uniform_index(std::uint64_t n) {
  TOPKFS_ASSERT(n > 0);
  // Draws below 2^64 mod n would make the low residues more likely: reject them.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = next_u64();
    if (x >= threshold) return x % n;
  }
}

std::int64_t Rng::uniform_int(std::int64_t low, std::int64_t high) {
  TOPKFS_ASSERT(low <= high);
  const auto span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const std::uint64_t offset = span == UINT64_MAX ? next_u64() : uniform_index(span + 1);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + offset);
}

double Rng::normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  constexpr double two_pi = 6.283185307179586476925286766559;
  const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
  const double u2 = uniform();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  spare_normal_ = radius * std::sin(two_pi * u2);
  has_spare_normal_ = true;
  return radius * std::cos(two_pi * u2);
}

std::vector<std::int64_t> Rng::permutation(std::int64_t n) {
  TOPKFS_ASSERT(n >= 0);
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  std::iota(values.begin(), values.end(), std::int64_t{0});
  shuffle(values);
  return values;
}

std::vector<std::int64_t> Rng::sample_without_replacement(std::int64_t n, std::int64_t count) {
  TOPKFS_ASSERT(count >= 0 && count <= n);
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  std::iota(values.begin(), values.end(), std::int64_t{0});
  // Partial Fisher-Yates from the front: the first `count` slots are the sample.
  for (std::int64_t i = 0; i < count; ++i) {
    const auto j = i + static_cast<std::int64_t>(uniform_index(static_cast<std::uint64_t>(n - i)));
    std::swap(values[static_cast<std::size_t>(i)], values[static_cast<std::size_t>(j)]);
  }
  values.resize(static_cast<std::size_t>(count));
  return values;
}

std::string Rng::state() const {
  std::uint64_t spare_bits = 0;
  std::memcpy(&spare_bits, &spare_normal_, sizeof spare_bits);
  std::ostringstream out;
  out << engine_ << ' ' << (has_spare_normal_ ? 1 : 0) << ' ' << spare_bits;
  return out.str();
}

void Rng::set_state(const std::string& text) {
  std::istringstream in(text);
  std::mt19937_64 engine;
  int has_spare = 0;
  std::uint64_t spare_bits = 0;
  in >> engine >> has_spare >> spare_bits;
  if (!in || (has_spare != 0 && has_spare != 1) || !(in >> std::ws).eof()) {
    throw DataError("a random generator state that cannot be read");
  }
  engine_ = engine;
  has_spare_normal_ = has_spare == 1;
  std::memcpy(&spare_normal_, &spare_bits, sizeof spare_bits);
}

}  // namespace topkfs
