#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "topkfs/core/option_ref.hpp"
#include "topkfs/select/option_table.hpp"

namespace topkfs::option_parsing {
namespace {

template <typename T>
void parse_number(const std::string& name, const std::string& text, T& out, const char* kind) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin < end && *begin == '+') ++begin;
  const auto result = std::from_chars(begin, end, out);
  if (result.ec != std::errc() || result.ptr != end || text.empty()) {
    throw OptionError(fmt::format("{} takes {}, not '{}'", option_ref(name), kind, text));
  }
}

}  // namespace

void parse(const std::string& name, const std::string& text, bool& out) {
  if (text == "true" || text == "1" || text == "yes" || text == "on" || text.empty()) {
    out = true;
  } else if (text == "false" || text == "0" || text == "no" || text == "off") {
    out = false;
  } else {
    throw OptionError(fmt::format("{} takes true or false, not '{}'", option_ref(name), text));
  }
}

void parse(const std::string& name, const std::string& text, int& out) {
  parse_number(name, text, out, "an integer");
}

void parse(const std::string& name, const std::string& text, std::int64_t& out) {
  parse_number(name, text, out, "an integer");
}

void parse(const std::string& name, const std::string& text, std::uint64_t& out) {
  parse_number(name, text, out, "a non-negative integer");
}

void parse(const std::string& name, const std::string& text, double& out) {
  parse_number(name, text, out, "a number");
  if (!std::isfinite(out)) throw OptionError(fmt::format("{} must be finite", option_ref(name)));
}

void parse(const std::string&, const std::string& text, std::string& out) { out = text; }

void parse(const std::string& name, const std::string& text, std::vector<int>& out) {
  out.clear();
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string piece =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int value = 0;
    parse_number(name, piece, value, "a comma-separated list of integers (e.g. 256,128)");
    out.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

void refuse_choice(const std::string& name, const std::string& text,
                   const std::vector<std::string>& choices) {
  std::string listed;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    listed += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  throw OptionError(fmt::format("{} takes {}, not '{}'", option_ref(name), listed, text));
}

}  // namespace topkfs::option_parsing
