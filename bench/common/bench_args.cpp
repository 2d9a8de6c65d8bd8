#include "bench_args.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "topkfs/core/error.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs::bench {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= text.size();) {
    const auto comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

template <typename T>
T number(const std::string& flag, const std::string& text) {
  try {
    std::size_t used = 0;
    T value{};
    if constexpr (std::is_same_v<T, int>) {
      value = std::stoi(text, &used);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      value = std::stoll(text, &used);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      // std::stoull would wrap "-1" around to 2^64 - 1.
      if (text.find('-') == std::string::npos) value = std::stoull(text, &used);
    } else {
      value = std::stod(text, &used);
    }
    if (used > 0 && used == text.size()) return value;
  } catch (const std::logic_error&) {  // std::invalid_argument, std::out_of_range
  }
  const char* what = std::is_floating_point_v<T> ? "a number"
                     : std::is_unsigned_v<T>     ? "a whole number (0 or more)"
                                                 : "an integer";
  throw OptionError(fmt::format("{} takes {}, not '{}'", flag, what, text));
}

template int number<int>(const std::string&, const std::string&);
template std::int64_t number<std::int64_t>(const std::string&, const std::string&);
template std::uint64_t number<std::uint64_t>(const std::string&, const std::string&);
template double number<double>(const std::string&, const std::string&);

std::vector<int> int_list(const std::string& flag, const std::string& text) {
  std::vector<int> values;
  for (const auto& item : split_list(text)) values.push_back(number<int>(flag, item));
  return values;
}

std::string flag_value(int argc, char** argv, int& i) {
  if (i + 1 >= argc) throw OptionError(fmt::format("{} needs a value", argv[i]));
  return argv[++i];
}

void parse_flag_pairs(int argc, char** argv,
                      const std::function<bool(const std::string&, const std::string&)>& take) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const std::string value = flag_value(argc, argv, i);
    if (!take(flag, value)) throw OptionError(fmt::format("unknown argument '{}'", flag));
  }
}

bool SeededRunArgs::take(const std::string& flag, const std::string& value) {
  if (flag == "--seeds") {
    seeds = number<int>(flag, value);
  } else if (flag == "--first-seed") {
    first_seed = number<std::uint64_t>(flag, value);
  } else if (flag == "--methods") {
    methods = split_list(value);
  } else if (flag == "--threads") {
    threads = number<int>(flag, value);
  } else if (flag == "--set") {
    const auto equals = value.find('=');
    if (equals == std::string::npos) throw OptionError("--set takes NAME=VALUE");
    options[value.substr(0, equals)] = value.substr(equals + 1);
  } else {
    return false;
  }
  return true;
}

bool TimedRunArgs::take(const std::string& flag, int argc, char** argv, int& i) {
  if (flag == "--repeat") {
    repeat = number<int>(flag, flag_value(argc, argv, i));
  } else if (flag == "--tol") {
    tol = number<double>(flag, flag_value(argc, argv, i));
  } else if (flag == "--coef-out") {
    coef_out = flag_value(argc, argv, i);
  } else {
    return false;
  }
  return true;
}

int SeededRunArgs::thread_count() const { return threads > 0 ? threads : omp_get_num_procs(); }

std::unique_ptr<Selector> configured_selector(const std::string& method,
                                              const std::map<std::string, std::string>& options) {
  auto selector = make_linear_selector(method);
  selector->set_option("threads", "1");
  for (const auto& [name, value] : options) {
    if (selector->has_option(name)) selector->set_option(name, value);
  }
  return selector;
}

}  // namespace topkfs::bench
