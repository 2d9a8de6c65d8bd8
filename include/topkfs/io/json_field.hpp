#pragma once
// Typed fields of the JSON files topkfs reads back (selection results,
// evaluation reports), with errors that name the file and the field. A
// hand-edited or corrupt file is refused here: nlohmann's own conversions
// would cast 1e12 to an int (wrapping it) and throw exceptions of their own.
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "topkfs/core/error.hpp"

namespace topkfs::json_field {

namespace detail {

template <typename T>
struct IsIntegerVector : std::false_type {};
template <typename T>
struct IsIntegerVector<std::vector<T>> : std::is_integral<T> {};

// An integer of T's range, or DataError: 3.5, 1e12 and "7" are refused.
template <typename T>
T checked_integer(const nlohmann::json& value, const char* key, const std::string& where) {
  const bool in_range =
      (value.is_number_unsigned() &&
       value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) ||
      (value.is_number_integer() && !value.is_number_unsigned() &&
       value.get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
       value.get<std::int64_t>() <= static_cast<std::int64_t>(std::numeric_limits<T>::max()));
  if (!in_range) {
    throw DataError(fmt::format("{}: field '{}' holds {}, not an integer from {} to {}", where, key,
                                value.dump().substr(0, 40), std::numeric_limits<T>::min(),
                                std::numeric_limits<T>::max()));
  }
  return value.get<T>();
}

}  // namespace detail

// The field `key` of `object`; `kind` names what the file should be ("a
// topkfs selection result") for the message about a missing field.
template <typename T>
T get(const nlohmann::json& object, const char* key, const std::string& where, const char* kind) {
  if (!object.is_object() || !object.contains(key)) {
    throw DataError(fmt::format("{}: not {}: field '{}' is missing", where, kind, key));
  }
  const nlohmann::json& value = object.at(key);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return detail::checked_integer<T>(value, key, where);
  } else if constexpr (detail::IsIntegerVector<T>::value) {
    if (!value.is_array()) throw DataError(fmt::format("{}: field '{}' is not a list", where, key));
    T items;
    items.reserve(value.size());
    for (const auto& item : value) {
      items.push_back(detail::checked_integer<typename T::value_type>(item, key, where));
    }
    return items;
  } else {
    try {
      return value.get<T>();
    } catch (const nlohmann::json::exception&) {
      // nlohmann's own text ("[json.exception.type_error.302] ...") is not
      // for the user: say what the field holds.
      throw DataError(fmt::format("{}: field '{}' has the wrong type: it holds {} ({})", where, key,
                                  value.type_name(), value.dump().substr(0, 40)));
    }
  }
}

// The JSON document `text` of the file `where`, or DataError saying where
// it breaks (nlohmann's own message is not for the user).
inline nlohmann::json parse(const std::string& text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    const bool cut = error.byte >= text.size();
    throw DataError(fmt::format("{}: not valid JSON: {} at byte {} of {}", where,
                                cut ? "the text ends too early" : "malformed text", error.byte,
                                text.size()));
  } catch (const nlohmann::json::exception&) {  // out_of_range: a number beyond double
    throw DataError(fmt::format("{}: not valid JSON: a number is out of range", where));
  }
}

// `value` as indented JSON text. A string that is not UTF-8 (which the
// readers do not let through: utf8_text.hpp) is written with U+FFFD in
// place of its bad bytes rather than failing after the work is done.
template <typename Json>
std::string indented_text(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace topkfs::json_field
