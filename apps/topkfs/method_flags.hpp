#pragma once
// Command-line flags for method options, generated from the options tables of
// every registered method: a flag is accepted when the chosen method has it.
#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "topkfs/select/selector.hpp"

namespace topkfs::cli {

struct MethodFlags {
  std::string name = "dnn-top";
  std::map<std::string, std::string> values;  // option name -> text, filled by CLI11

  // Sets every given option on `selector`; throws OptionError when one does
  // not belong to the chosen method.
  void apply(Selector& selector) const;
};

void add_method_flags(CLI::App& command, MethodFlags& flags);

}  // namespace topkfs::cli
