#include "method_flags.hpp"

#include "command_spelling.hpp"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "topkfs/core/error.hpp"
#include "topkfs/methods/registry.hpp"

namespace topkfs::cli {

void MethodFlags::apply(Selector& selector) const {
  for (const auto& [option, text] : values) {
    if (!selector.has_option(option)) {
      throw OptionError(fmt::format("--{} does not apply to method {}", option, selector.name()));
    }
    selector.set_option(option, text);
  }
}

namespace {

// One option as the methods that have it describe it: its help texts (methods
// of different families word it differently: the linear models' --scaling
// takes fewer values than the neural ones') and, under each, which methods
// default to what.
struct SharedOption {
  struct Wording {
    std::string help;
    std::vector<std::string> choices;
    std::vector<std::pair<std::string, std::vector<std::string>>> defaults;  // value -> methods
  };
  std::vector<Wording> wordings;
  bool is_flag = false;

  void add(const std::string& method, const OptionInfo& given) {
    OptionInfo info = given;
    info.help = for_command_line(info.help);
    is_flag = is_flag || info.is_flag;
    auto wording = std::find_if(wordings.begin(), wordings.end(), [&](const Wording& w) {
      return w.help == info.help && w.choices == info.choices;
    });
    if (wording == wordings.end()) {
      wording = wordings.insert(wordings.end(), {info.help, info.choices, {}});
    }
    auto& defaults = wording->defaults;
    auto value = std::find_if(defaults.begin(), defaults.end(),
                              [&](const auto& d) { return d.first == info.default_text; });
    if (value == defaults.end()) value = defaults.insert(defaults.end(), {info.default_text, {}});
    value->second.push_back(method);
  }

  // "help (choices: a, b) [dnn-top, dfs: a] | other help [elastic-net-top, lasso: b]"
  std::string describe() const {
    std::vector<std::string> parts;
    for (const auto& wording : wordings) {
      std::vector<std::string> values;
      for (const auto& [value, methods] : wording.defaults) {
        values.push_back(fmt::format("{}: {}", fmt::join(methods, ", "), value));
      }
      const std::string choices =
          wording.choices.empty() ? std::string()
                                  : fmt::format(" (choices: {})", fmt::join(wording.choices, ", "));
      parts.push_back(fmt::format("{}{} [{}]", wording.help, choices, fmt::join(values, "; ")));
    }
    return fmt::format("{}", fmt::join(parts, " | "));
  }
};

}  // namespace

void add_method_flags(CLI::App& command, MethodFlags& flags) {
  std::string names;
  for (const auto& method : registered_methods())
    names += (names.empty() ? "" : ", ") + method.name;
  command
      .add_option("--method,-m", flags.name,
                  "Selection method: " + names +
                      "; or auto (dnn-top, elastic-net-top or random-forest, chosen on the "
                      "training rows by validation fits: docs/algorithms.md; in evaluate, "
                      "chosen again in every run and for each k)")
      ->capture_default_str();
  auto* group = command.add_option_group(
      "Method options",
      "Options of the methods (each applies to the methods that list it in "
      "`topkfs methods`); each default is given per method");
  // Every method's wording and default of each option, in registry order, so
  // that an option several methods share shows each one's default.
  std::vector<std::string> order;
  std::map<std::string, SharedOption> options;
  for (const auto& method : registered_methods()) {
    const auto selector = method.make();
    for (const auto& info : selector->describe_options()) {
      if (options.count(info.name) == 0) order.push_back(info.name);
      options[info.name].add(method.name, info);
    }
  }
  for (const auto& name : order) {
    // A data flag of the same name (--image-shape) already reaches the
    // method through the dataset.
    if (command.get_option_no_throw("--" + name) != nullptr) continue;
    const SharedOption& shared = options.at(name);
    auto* option = group->add_option_function<std::string>(
        "--" + name, [&flags, name](const std::string& text) { flags.values[name] = text; },
        shared.describe());
    if (shared.is_flag) option->expected(0, 1);
  }
}

}  // namespace topkfs::cli
