#pragma once
// One table per options struct: each entry names an option, documents it and
// knows how to set it from text and report it as JSON. The CLI builds its flags
// from these tables, the Python package its keyword arguments, docs their lists.
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
}  // namespace option_parsing

struct OptionInfo {
  std::string name;  // as on the command line without dashes, e.g. "lambda3"
  std::string help;
  std::string default_text;
  bool is_flag = false;  // a bool option
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
    entry.set = [name, member](Options& options, const std::string& text) {
      option_parsing::parse(name, text, options.*member);
    };
    entry.get = [member](const Options& options) { return nlohmann::json(options.*member); };
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
    } else if constexpr (std::is_same_v<T, std::vector<int>>) {
      return fmt::format("{}", fmt::join(value, ","));
    } else {
      return fmt::format("{}", value);
    }
  }

  std::vector<Entry> entries_;
};

}  // namespace topkfs
