#pragma once
// The flags of --k auto and --method auto that select and evaluate share:
// the grid's end, the validation folds and the rule that takes k from the
// curve (evaluation/auto_selection.hpp).
#include <CLI/CLI.hpp>
#include <string>

#include "topkfs/evaluation/auto_selection.hpp"

namespace topkfs::cli {

struct AutoFlags {
  int k_max = 0;
  int k_folds = 0;
  std::string k_rule = "1se";
};

// Adds --k-max, --k-folds and --k-rule in an option group of `command`.
void add_auto_flags(CLI::App& command, AutoFlags& flags);

// The flags as AutoOptions' k_max, folds and rule (the rest untouched);
// throws OptionError for a rule or a fold count it cannot take.
void apply_auto_flags(const AutoFlags& flags, AutoOptions& options);

}  // namespace topkfs::cli
