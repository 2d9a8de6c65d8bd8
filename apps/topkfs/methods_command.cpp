// `topkfs methods`: every registered method with its options and defaults.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>

#include "command_spelling.hpp"
#include "commands.hpp"
#include "topkfs/methods/registry.hpp"

namespace topkfs::cli {

Command add_methods_command(CLI::App& app) {
  auto* command = app.add_subcommand("methods", "List the selection methods and their options");
  auto names_only = std::make_shared<bool>(false);
  command->add_flag("--names", *names_only,
                    "Print the method names only, one per line (for scripts)");
  return {
      command, [names_only] {
        for (const auto& method : registered_methods()) {
          if (*names_only) {
            fmt::print("{}\n", method.name);
            continue;
          }
          fmt::print("{}\n  {}\n", method.name, method.summary);
          for (const auto& info : method.make()->describe_options()) {
            const std::string choices =
                info.choices.empty() ? std::string()
                                     : fmt::format("choices: {}; ", fmt::join(info.choices, ", "));
            fmt::print("    --{:<14} {} ({}default: {})\n", info.name, for_command_line(info.help),
                       choices, info.default_text.empty() ? "none" : info.default_text);
          }
          fmt::print("\n");
        }
        return 0;
      }};
}

}  // namespace topkfs::cli
