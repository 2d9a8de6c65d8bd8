#pragma once
// Names of enum values for options given as text (CLI flags, Python keywords,
// JSON): one table per enum serves both directions, so a choice is spelled
// the same everywhere and the error lists every choice.
//
// An enum used as a method option declares its table once, next to the enum:
//   enum class WStep { Adam, Shared };
//   EnumNameList<WStep> names_of(WStep);  // found by argument-dependent lookup
// and the option table (select/option_table.hpp), enum_name(value) and
// parse_choice() then read it.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <vector>

#include "topkfs/core/error.hpp"

namespace topkfs {

template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;  // the first entry of a value is its canonical name; later ones are aliases
};

// A view of a constexpr table of EnumName, so that the table can live in one
// source file and be handed out by a function its header declares.
template <typename Enum>
class EnumNameList {
 public:
  template <std::size_t N>
  constexpr EnumNameList(const EnumName<Enum> (&names)[N])  // NOLINT: converts implicitly
      : first_(names), count_(N) {}
  const EnumName<Enum>* begin() const { return first_; }
  const EnumName<Enum>* end() const { return first_ + count_; }

 private:
  const EnumName<Enum>* first_;
  std::size_t count_;
};

inline std::string to_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

template <typename Enum>
const char* enum_name(Enum value, EnumNameList<Enum> names) {
  for (const auto& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

template <typename Enum, std::size_t N>
const char* enum_name(Enum value, const EnumName<Enum> (&names)[N]) {
  return enum_name(value, EnumNameList<Enum>(names));
}

// The canonical name of an option enum's value, from its names_of() table.
template <typename Enum>
const char* enum_name(Enum value) {
  return enum_name(value, names_of(Enum{}));
}

// The canonical names, in the table's order (aliases left out).
template <typename Enum>
std::vector<std::string> enum_choices(EnumNameList<Enum> names) {
  std::vector<std::string> out;
  for (const auto& entry : names) {
    if (enum_name(entry.value, names) == entry.name) out.emplace_back(entry.name);
  }
  return out;
}

// Case-insensitive lookup of `text` (a canonical name or an alias); false
// when it names no value.
template <typename Enum>
bool find_enum(const std::string& text, EnumNameList<Enum> names, Enum& out) {
  const std::string key = to_lower(text);
  for (const auto& entry : names) {
    if (key == entry.name) {
      out = entry.value;
      return true;
    }
  }
  return false;
}

// Case-insensitive; throws OptionError "unknown <what> 'text'; choose one of
// a, b, c" (canonical names only) otherwise.
template <typename Enum>
Enum parse_enum(const std::string& text, EnumNameList<Enum> names, const std::string& what) {
  Enum value{};
  if (find_enum(text, names, value)) return value;
  throw OptionError(fmt::format("unknown {} '{}'; choose one of {}", what, text,
                                fmt::join(enum_choices(names), ", ")));
}

template <typename Enum, std::size_t N>
Enum parse_enum(const std::string& text, const EnumName<Enum> (&names)[N],
                const std::string& what) {
  return parse_enum(text, EnumNameList<Enum>(names), what);
}

}  // namespace topkfs
