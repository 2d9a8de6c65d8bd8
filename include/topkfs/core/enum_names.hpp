#pragma once
// Names of enum values for options given as text (CLI flags, Python keywords,
// JSON): one table per enum serves both directions, so a choice is spelled
// the same everywhere and the error lists every choice.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>

#include "topkfs/core/error.hpp"

namespace topkfs {

template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;  // the first entry of a value is its canonical name; later ones are aliases
};

inline std::string to_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

template <typename Enum, std::size_t N>
const char* enum_name(Enum value, const EnumName<Enum> (&names)[N]) {
  for (const auto& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// Case-insensitive; throws OptionError "unknown <what> 'text'; choose one of
// a, b, c" (canonical names only) otherwise.
template <typename Enum, std::size_t N>
Enum parse_enum(const std::string& text, const EnumName<Enum> (&names)[N], const char* what) {
  const std::string key = to_lower(text);
  std::string choices;
  for (const auto& entry : names) {
    if (key == entry.name) return entry.value;
    if (enum_name(entry.value, names) == entry.name) {
      choices += (choices.empty() ? "" : ", ") + std::string(entry.name);
    }
  }
  throw OptionError(fmt::format("unknown {} '{}'; choose one of {}", what, text, choices));
}

}  // namespace topkfs
