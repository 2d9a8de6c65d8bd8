#include "topkfs/io/side_file.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

std::string side_file_field(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r");
  std::string out = text.substr(begin, end - begin + 1);
  if (out.size() >= 2 && out.front() == '"' && out.back() == '"')
    out = out.substr(1, out.size() - 2);
  return out;
}

}  // namespace

std::vector<SideFileLine> read_side_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw DataError(fmt::format("{}: cannot open the {}", path, what));
  std::vector<SideFileLine> lines;
  std::string line;
  std::int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (side_file_field(line).empty()) continue;
    SideFileLine out;
    out.number = number;
    std::size_t start = 0;
    while (true) {
      const auto comma = line.find(',', start);
      out.fields.push_back(side_file_field(line.substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    lines.push_back(std::move(out));
  }
  if (in.bad()) throw DataError(fmt::format("{}: reading the {} failed", path, what));
  return lines;
}

std::int64_t column_named(const Dataset& data, const std::string& spec) {
  for (std::size_t j = 0; j < data.feature_names.size(); ++j) {
    if (data.feature_names[j] == spec) return static_cast<std::int64_t>(j);
  }
  std::int64_t index = -1;
  const auto [end, error] = std::from_chars(spec.data(), spec.data() + spec.size(), index);
  if (error != std::errc() || end != spec.data() + spec.size() || index < 0 ||
      index >= data.cols()) {
    return -1;
  }
  return index;
}

}  // namespace topkfs
