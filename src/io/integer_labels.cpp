#include "integer_labels.hpp"

#include <cmath>

namespace topkfs::detail {

bool parse_integer_label(std::string_view text, IntegerLabel& label) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && (text[begin] == ' ' || text[begin] == '\t')) ++begin;
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r'))
    --end;
  bool negative = false;
  if (begin < end && (text[begin] == '+' || text[begin] == '-')) {
    negative = text[begin] == '-';
    ++begin;
  }
  while (begin + 1 < end && text[begin] == '0') ++begin;
  // 38 digits stay below 2^127: no overflow of the 128-bit value.
  if (begin == end || end - begin > 38) return false;
  __int128 value = 0;
  for (std::size_t i = begin; i < end; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  const bool zero = value == 0;
  label.value = negative ? -value : value;
  label.text =
      std::string(negative && !zero ? "-" : "") + std::string(text.substr(begin, end - begin));
  return true;
}

bool has_inexact_integers(const std::vector<double>& values) {
  for (double v : values) {
    if (std::isfinite(v) && std::fabs(v) >= kExactIntegerBound) return true;
  }
  return false;
}

}  // namespace topkfs::detail
