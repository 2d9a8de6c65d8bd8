#pragma once
// The one source of randomness in topkfs: an explicit, seeded generator that is
// passed around (no global RNG state).
//
// Reproducibility across platforms: std::mt19937_64 seeded from a 64-bit value
// is specified bit-for-bit by the C++ standard, but std::uniform_int_distribution,
// std::normal_distribution and std::shuffle are not (libstdc++, libc++ and MSVC
// give different numbers from the same engine state). Rng therefore turns the
// raw engine output into numbers itself:
//  - uniform(): the top 53 bits of one draw, scaled to [0, 1);
//  - uniform_index(n): rejection sampling (unbiased, no modulo bias);
//  - normal(): Box-Muller on two uniforms, the second variate cached;
//  - shuffle(): Fisher-Yates from the back with uniform_index.
// A seed thus gives the same sequence with every standard library. normal()
// calls std::log, std::sqrt, std::cos and std::sin; glibc, musl and macOS agree
// on these to the last bit in practice, but the C++ standard does not promise
// it, so a normal variate may in principle differ in its last bit elsewhere.
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace topkfs {

// A 64-bit seed for stream `stream` derived from `seed` (SplitMix64 mixing), for
// independent generators per split, fold or thread that still follow one
// user-given seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  // Raw 64-bit engine output.
  std::uint64_t next_u64() { return engine_(); }

  // Uniform on [0, 1), 53 random bits.
  double uniform();
  // Uniform on [low, high).
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [0, n); n must be positive.
  std::uint64_t uniform_index(std::uint64_t n);
  // Uniform integer in [low, high], both ends included; low <= high.
  std::int64_t uniform_int(std::int64_t low, std::int64_t high);

  // Standard normal variate.
  double normal();
  double normal(double mean, double stddev) { return mean + stddev * normal(); }

  // Uniformly random order of `values` (Fisher-Yates).
  template <class T>
  void shuffle(std::vector<T>& values) {
    for (std::size_t i = values.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(uniform_index(i));
      std::swap(values[i - 1], values[j]);
    }
  }

  // 0..n-1 in random order.
  std::vector<std::int64_t> permutation(std::int64_t n);
  // `count` distinct values of 0..n-1 in random order; count <= n.
  std::vector<std::int64_t> sample_without_replacement(std::int64_t n, std::int64_t count);

  // The whole state as text (the engine's standard text form and the cached
  // normal variate, to the bit), for training checkpoints: a generator set to
  // it continues the same sequence. set_state throws DataError on text that
  // state() did not write.
  std::string state() const;
  void set_state(const std::string& text);

 private:
  std::mt19937_64 engine_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

}  // namespace topkfs
