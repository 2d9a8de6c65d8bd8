#pragma once
// Each subcommand registers its flags on the app and returns the function that
// runs it once the command line has been parsed.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <functional>
#include <string>

namespace topkfs::cli {

// The command's exit statuses: a data or runtime error, and a usage error (a
// bad flag or value; docs/bad-input.md).
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct Command {
  CLI::App* parser = nullptr;  // the subcommand within the app
  std::function<int()> run;    // called after parsing when this subcommand was given
};

// The check of a seed flag: a non-negative integer in 64 bits (CLI11 alone
// would read -1 as 2^64 - 1).
inline CLI::Validator non_negative_integer() {
  return CLI::Validator(
      [](std::string& text) {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto parsed = std::from_chars(text.data(), end, value);
        const bool whole = !text.empty() && parsed.ec == std::errc() && parsed.ptr == end;
        return whole ? std::string() : "takes a non-negative integer, not '" + text + "'";
      },
      "UINT");
}

Command add_info_command(CLI::App& app);
Command add_select_command(CLI::App& app);
Command add_evaluate_command(CLI::App& app);
Command add_report_command(CLI::App& app);

// "fashion-mnist" for /usr/share/datasets/fashion-mnist/, "usps.h5" for a file:
// the name pictures are titled with.
std::string data_short_name(std::string path);
Command add_transform_command(CLI::App& app);
Command add_methods_command(CLI::App& app);
Command add_convert_command(CLI::App& app);

}  // namespace topkfs::cli
