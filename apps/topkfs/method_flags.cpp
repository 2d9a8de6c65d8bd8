#include "method_flags.hpp"

#include <fmt/format.h>

#include <set>

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

void add_method_flags(CLI::App& command, MethodFlags& flags) {
  std::string names;
  for (const auto& method : registered_methods())
    names += (names.empty() ? "" : ", ") + method.name;
  command.add_option("--method,-m", flags.name, "Selection method: " + names)
      ->capture_default_str();
  auto* group = command.add_option_group(
      "Method options",
      "Options of the methods (each applies to the methods that list it in "
      "`topkfs methods`); defaults are the chosen method's");
  std::set<std::string> seen;
  for (const auto& method : registered_methods()) {
    const auto selector = method.make();
    for (const auto& info : selector->describe_options()) {
      if (!seen.insert(info.name).second) continue;
      // A data flag of the same name (--image-shape) already reaches the
      // method through the dataset.
      if (command.get_option_no_throw("--" + info.name) != nullptr) continue;
      auto* option = group->add_option_function<std::string>(
          "--" + info.name,
          [&flags, name = info.name](const std::string& text) { flags.values[name] = text; },
          fmt::format("{} [{}: {}]", info.help, method.name, info.default_text));
      if (info.is_flag) option->expected(0, 1);
    }
  }
}

}  // namespace topkfs::cli
