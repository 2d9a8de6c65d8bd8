#pragma once
// Integer class labels read exactly. A double holds every integer up to
// 2^53 in magnitude and no more, so labels such as 2^53 and 2^53 + 1 (or
// 64-bit identifiers) merge once parsed as doubles; the readers that have
// the label's text or its 64-bit integer keep such labels exact here
// (docs/bad-input.md, "Targets").
#include <string>
#include <string_view>
#include <vector>

namespace topkfs::detail {

// 2^53: the magnitude from which a double no longer holds every integer.
constexpr double kExactIntegerBound = 9007199254740992.0;

// An integer label: its value and its canonical decimal text (no '+', no
// leading zeros, "-0" as "0").
struct IntegerLabel {
  __int128 value = 0;
  std::string text;
};

// Parses an integer literal (optional sign, then at most 38 digits;
// surrounding blanks ignored). False for anything else ("2.0", "1e3").
bool parse_integer_label(std::string_view text, IntegerLabel& label);

// True when some finite value of `values` is at least kExactIntegerBound in
// magnitude (every such double is integral): labels there may have merged.
bool has_inexact_integers(const std::vector<double>& values);

}  // namespace topkfs::detail
