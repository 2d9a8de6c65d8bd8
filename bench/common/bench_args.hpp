#pragma once
// Command-line parsing shared by the benches: "--flag value" pairs, comma
// lists, the options of the seeded linear benches (linear_detection_bench,
// linear_recovery_bench), which fit each method once per seed in parallel,
// and those of the timed ones.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/select/selector.hpp"

namespace topkfs::bench {

// "a,b,c" -> {"a", "b", "c"}; every item is kept, empty ones too.
std::vector<std::string> split_list(const std::string& text);

// "1,2" -> {1, 2}; throws OptionError naming `flag` on an item that is no integer.
std::vector<int> int_list(const std::string& flag, const std::string& text);

// `text` as a T (int, std::int64_t, std::uint64_t or double), all of it;
// throws OptionError naming `flag` otherwise.
template <typename T>
T number(const std::string& flag, const std::string& text);

// The argument after argv[i] (the flag's value), advancing i; throws
// OptionError naming the flag when there is none.
std::string flag_value(int argc, char** argv, int& i);

// Walks argv[1..] as "--flag value" pairs; `take` returns false for a flag it
// does not know, which throws OptionError.
void parse_flag_pairs(
    int argc, char** argv,
    const std::function<bool(const std::string& flag, const std::string& value)>& take);

// --seeds, --first-seed, --methods, --set NAME=VALUE and --threads.
struct SeededRunArgs {
  int seeds = 10;
  std::uint64_t first_seed = 0;
  std::vector<std::string> methods;
  std::map<std::string, std::string> options;  // --set, passed to every method that has them
  int threads = 0;                             // 0: one per processor

  // Takes `flag` with `value` when it is one of the above; false otherwise.
  bool take(const std::string& flag, const std::string& value);
  // The threads the seeds run on.
  int thread_count() const;
};

// --repeat, --tol and --coef-out of the timed linear benches (linear_bench,
// linear_class_bench), which compare against references in one run.
struct TimedRunArgs {
  int repeat = 3;        // the fastest of this many runs is reported
  double tol = 1e-6;     // the solver's --tol
  std::string coef_out;  // prefix of the coefficient files; empty: none

  // Takes argv[i] (and its value, advancing i) when it is one of the above.
  bool take(const std::string& flag, int argc, char** argv, int& i);
};

// A linear selector of `method` with the options that apply to it and one
// BLAS thread (the seeds run in parallel instead).
std::unique_ptr<Selector> configured_selector(const std::string& method,
                                              const std::map<std::string, std::string>& options);

}  // namespace topkfs::bench
