#pragma once
// One table per options struct: each entry names an option, documents it and
// knows how to set it from text and report it as JSON. The CLI builds its flags
// from these tables, the Python package its keyword arguments, docs their lists.
//
// A choice option is typed: an enum whose names are declared once beside it
// (core/enum_names.hpp: names_of), or a small struct for a choice that may
// also be a number (a `Choice` below). Parsing, the JSON value (the canonical
// name), the help's default and OptionInfo::choices all come from that one
// declaration.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {

namespace option_parsing {
void parse(const std::string& name, const std::string& text, bool& out);
void parse(const std::string& name, const std::string& text, int& out);
void parse(const std::string& name, const std::string& text, std::int64_t& out);
void parse(const std::string& name, const std::string& text, std::uint64_t& out);
void parse(const std::string& name, const std::string& text, double& out);
void parse(const std::string& name, const std::string& text, std::string& out);
void parse(const std::string& name, const std::string& text, std::vector<int>& out);  // "256,128"
// Throws OptionError "--name takes a, b or c, not 'text'".
[[noreturn]] void refuse_choice(const std::string& name, const std::string& text,
                                const std::vector<std::string>& choices);
}  // namespace option_parsing

// A choice that may also be a number (dnn-top's `screen`: auto, off or a
// count; the forests' `max_features`): a struct with
//   static T parse_option(const std::string& option, const std::string& text);
//   std::string to_string() const;  // what parse_option reads back to the same value
//   static std::vector<std::string> choices();  // its named values
template <typename T, typename = void>
struct IsChoice : std::false_type {};
template <typename T>
struct IsChoice<T,
                std::void_t<decltype(T::choices()), decltype(std::declval<const T&>().to_string()),
                            decltype(T::parse_option(std::string(), std::string()))>>
    : std::true_type {};

struct OptionInfo {
  std::string name;  // as on the command line without dashes, e.g. "lambda3"
  std::string help;
  std::string default_text;
  bool is_flag = false;  // a bool option
  // The named values of a choice option, canonical names first declared
  // first (aliases are accepted but not listed); empty for other options. A
  // choice that may also be a number says so in its help.
  std::vector<std::string> choices;
};

template <typename Options>
class OptionTable {
 public:
  // Adds an option stored in `member`; `help` should say what it does, its
  // unit or range, and why the default is what it is when that is not obvious.
  template <typename T>
  OptionTable& add(const std::string& name, T Options::*member, const std::string& help) {
    Entry entry;
    entry.info.name = name;
    entry.info.help = help;
    entry.info.is_flag = std::is_same_v<T, bool>;
    if constexpr (std::is_enum_v<T>) {
      const EnumNameList<T> names = names_of(T{});
      entry.info.choices = enum_choices(names);
      entry.set = [name, member, names](Options& options, const std::string& text) {
        if (!find_enum(text, names, options.*member)) {
          option_parsing::refuse_choice(name, text, enum_choices(names));
        }
      };
    } else if constexpr (IsChoice<T>::value) {
      entry.info.choices = T::choices();
      entry.set = [name, member](Options& options, const std::string& text) {
        options.*member = T::parse_option(name, text);
      };
    } else {
      entry.set = [name, member](Options& options, const std::string& text) {
        option_parsing::parse(name, text, options.*member);
      };
    }
    if constexpr (std::is_enum_v<T> || IsChoice<T>::value) {
      entry.get = [member](const Options& options) {
        return nlohmann::json(to_text(options.*member));
      };
    } else {
      entry.get = [member](const Options& options) { return nlohmann::json(options.*member); };
    }
    entry.text = [member](const Options& options) { return to_text(options.*member); };
    entry.info.default_text = entry.text(Options{});
    entries_.push_back(std::move(entry));
    return *this;
  }

  // Sets option `name` from text; throws OptionError for an unknown name
  // (listing the known ones) or a malformed value.
  void set(Options& options, const std::string& name, const std::string& text) const {
    for (const auto& entry : entries_) {
      if (entry.info.name == name) {
        entry.set(options, text);
        return;
      }
    }
    std::string known;
    for (const auto& entry : entries_) known += (known.empty() ? "" : ", ") + entry.info.name;
    throw OptionError(fmt::format("unknown option '{}'; this method takes: {}", name, known));
  }

  bool has(const std::string& name) const {
    for (const auto& entry : entries_) {
      if (entry.info.name == name) return true;
    }
    return false;
  }

  // The defaults shown in the help become `defaults`' values: for a method
  // that shares another's options with other defaults (dfs and dnn-top).
  OptionTable& with_defaults(const Options& defaults) {
    for (auto& entry : entries_) entry.info.default_text = entry.text(defaults);
    return *this;
  }

  nlohmann::json to_json(const Options& options) const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& entry : entries_) out[entry.info.name] = entry.get(options);
    return out;
  }

  std::vector<OptionInfo> describe() const {
    std::vector<OptionInfo> out;
    for (const auto& entry : entries_) out.push_back(entry.info);
    return out;
  }

 private:
  struct Entry {
    OptionInfo info;
    std::function<void(Options&, const std::string&)> set;
    std::function<nlohmann::json(const Options&)> get;
    std::function<std::string(const Options&)> text;
  };

  template <typename T>
  static std::string to_text(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      return value ? "true" : "false";
    } else if constexpr (std::is_same_v<T, std::string>) {
      return value;
    } else if constexpr (std::is_enum_v<T>) {
      return enum_name(value);
    } else if constexpr (IsChoice<T>::value) {
      return value.to_string();
    } else if constexpr (std::is_same_v<T, std::vector<int>>) {
      return fmt::format("{}", fmt::join(value, ","));
    } else {
      return fmt::format("{}", value);
    }
  }

  std::vector<Entry> entries_;
};

}  // namespace topkfs
