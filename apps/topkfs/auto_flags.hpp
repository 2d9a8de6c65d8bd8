#pragma once
// The flags of --k auto and --method auto that select and evaluate share:
// the grid's end, the validation folds and the rule that takes k from the
// curve (evaluation/auto_selection.hpp).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "topkfs/evaluation/auto_selection.hpp"

namespace topkfs::cli {

struct AutoFlags {
  int k_max = 0;
  int k_folds = 0;
  std::string k_rule = "1se";
  std::vector<std::string> candidates;  // --candidates, as given
};

// Adds --k-max, --k-folds, --k-rule and --candidates in an option group of
// `command`.
void add_auto_flags(CLI::App& command, AutoFlags& flags);

// The flags as AutoOptions' k_max, folds and rule (the rest untouched);
// throws OptionError for a rule or a fold count it cannot take.
void apply_auto_flags(const AutoFlags& flags, AutoOptions& options);

// --candidates as a list of names (empty when not given); the names are
// checked by candidate_names.
std::vector<std::string> candidate_list(const AutoFlags& flags);

}  // namespace topkfs::cli
