// The topkfs command: parse, load, call the library, write results. The one
// place where exceptions become exit codes: 0 success, 2 usage error,
// 1 data or runtime error.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "command_spelling.hpp"
#include "commands.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/utf8_text.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/mapping_faults.hpp"
#include "topkfs/io/resource_limits.hpp"
#include "topkfs/version.hpp"

namespace {

using topkfs::cli::kExitFailure;
using topkfs::cli::kExitUsage;

// The command's one error-mapping point. Messages quote the user's data: a
// NUL byte there must not cut the line, nor raw binary reach the terminal
// (utf8_text.hpp); their option references become flags (command_spelling.hpp).
int report(const char* kind, const std::string& message, int code) {
  const std::string line = fmt::format(
      "topkfs: {}{}\n", kind, topkfs::printable_text(topkfs::cli::for_command_line(message)));
  std::fwrite(line.data(), 1, line.size(), stderr);
  return code;
}

// An option given an empty value (`-o ""`, `--target ""`) names nothing: it
// would silently mean "not given" (no output written, the default target).
// No option of the command takes an empty value, so it is a usage error.
void refuse_empty_values(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || option->get_type_size() == 0) continue;  // flags take no value
    for (const std::string& value : option->results()) {
      if (!value.empty()) continue;
      throw topkfs::OptionError(
          fmt::format("{} '': an empty value names nothing; give a value or leave the option out",
                      option->get_name()));
    }
  }
  // The option groups ("Data", "Output", ...) are nameless subcommands.
  for (const CLI::App* group :
       command.get_subcommands([](const CLI::App* sub) { return sub->get_name().empty(); })) {
    refuse_empty_values(*group);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A mapped input truncated under a read: a message naming it, not "Bus error".
  topkfs::handle_mapping_faults();
  // Ctrl-C or a kill during a write: no ".NAME.tmp*" file left behind.
  topkfs::remove_temporaries_on_termination();
  CLI::App app{
      "topkfs: supervised feature selection with top-k regularization.\n"
      "Give it a table of samples and a target; get back the k features that best serve a "
      "learning model, with the evidence.\n\n"
      "Example:\n"
      "  topkfs info /usr/share/datasets/fashion-mnist\n"};
  app.name("topkfs");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("topkfs ") + topkfs::kVersion);

  const std::vector<topkfs::cli::Command> commands = {
      topkfs::cli::add_info_command(app),      topkfs::cli::add_select_command(app),
      topkfs::cli::add_evaluate_command(app),  topkfs::cli::add_report_command(app),
      topkfs::cli::add_transform_command(app), topkfs::cli::add_methods_command(app),
      topkfs::cli::add_convert_command(app),
  };

  // CLI11 takes an unknown first word for a stray argument and says only
  // that a subcommand is required.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto& command : commands) names.push_back(command.parser->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      return report("error: ",
                    fmt::format("unknown command '{}'; the commands are {}; run with --help",
                                argv[1], fmt::join(names, ", ")),
                    kExitUsage);
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::Success& done) {
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    // CLI11's own printing lacks the "topkfs: error:" prefix of every other
    // failure, which scripts and the tests look for.
    return report("error: ", fmt::format("{}; run with --help for the options", error.what()),
                  kExitUsage);
  } catch (const topkfs::OptionError& error) {
    return report("error: ", error.what(), kExitUsage);
  }

  try {
    // The library reads no environment variable: its limits are set here.
    topkfs::set_resource_limits(topkfs::resource_limits_from_environment());
    for (const auto& command : commands) {
      if (!command.parser->parsed()) continue;
      refuse_empty_values(*command.parser);
      return command.run();
    }
    return kExitUsage;
  } catch (const topkfs::OptionError& error) {
    return report("error: ", error.what(), kExitUsage);
  } catch (const topkfs::Error& error) {
    return report("error: ", error.what(), kExitFailure);
  } catch (const std::bad_alloc&) {
    return report("error: ", "out of memory", kExitFailure);
  } catch (const std::exception& error) {
    // The first line only: libtorch's errors carry a stack trace after it.
    const std::string message = error.what();
    return report("error: ", message.substr(0, message.find('\n')), kExitFailure);
  }
}
