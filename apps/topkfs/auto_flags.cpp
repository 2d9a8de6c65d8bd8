#include "auto_flags.hpp"

#include <fmt/format.h>

#include "comma_lists.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs::cli {

void add_auto_flags(CLI::App& command, AutoFlags& flags) {
  auto* choosing = command.add_option_group(
      "Choosing k and the method",
      "--k auto and --method auto (by default between dnn-top, elastic-net-top, "
      "random-forest and elastic-net): validation fits on the training rows, judged by the "
      "downstream model "
      "(docs/algorithms.md)");
  choosing
      ->add_option("--k-max", flags.k_max,
                   "--k auto: the grid's end (1, 2, 3, 5, 8, ... x1.5 to it); 0 = the smaller of "
                   "the columns and 100")
      ->capture_default_str();
  choosing
      ->add_option("--k-folds", flags.k_folds,
                   "Validation: 0 = 5 folds below 500 training rows, else 2 folds for "
                   "--method auto and one part for one method; 1 = one stratified part of 20% "
                   "of the training rows; F >= 2: F folds")
      ->capture_default_str();
  choosing
      ->add_option("--k-rule", flags.k_rule,
                   "--k auto: 1se (the smallest k within one standard error of the best, as "
                   "cv.glmnet's lambda.1se) or best")
      ->capture_default_str();
  choosing->add_option(
      "--candidates", flags.candidates,
      "--method auto: the methods to choose between, as a comma list (default "
      "dnn-top,elastic-net-top,random-forest,elastic-net); their options apply to those that "
      "have them");
}

std::vector<std::string> candidate_list(const AutoFlags& flags) {
  return comma_list("--candidates", flags.candidates);
}

void apply_auto_flags(const AutoFlags& flags, AutoOptions& options) {
  options.k_max = flags.k_max;
  options.folds = flags.k_folds;
  options.rule = parse_k_rule(flags.k_rule);
  if (flags.k_folds < 0)
    throw OptionError(fmt::format("--k-folds must not be negative, got {}", flags.k_folds));
}

}  // namespace topkfs::cli
