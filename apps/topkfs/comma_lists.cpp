#include "comma_lists.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"

namespace topkfs::cli {

std::vector<std::string> comma_list(const std::string& flag,
                                    const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const auto& value : values) {
    std::size_t start = 0;
    while (true) {
      const auto comma = value.find(',', start);
      const auto item =
          value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (item.empty()) {
        throw OptionError(fmt::format(
            "{} '{}': an empty item in the list (give names separated by single commas)", flag,
            value));
      }
      items.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return items;
}

}  // namespace topkfs::cli
