#pragma once
// The option-table entries of NeuralTrainingOptions, added to any method's
// table whose options struct derives from it (one help text per option).
#include <fmt/format.h>
#include <string>

#include "topkfs/core/option_ref.hpp"
#include "topkfs/neural/training_options.hpp"
#include "topkfs/select/option_table.hpp"

namespace topkfs {

// `hidden_help` lets a method say what its hidden sizes are sizes of.
template <typename Options>
void add_training_options(OptionTable<Options>& table, const std::string& hidden_help) {
  using Base = NeuralTrainingOptions;
  // The explicit template argument lets a pointer to a member of the base
  // convert to a pointer to the same member of Options.
  table.template add<std::vector<int>>("hidden", &Base::hidden, hidden_help)
      .template add<int>("epochs", &Base::epochs, "Maximum number of passes over the training rows")
      .template add<int>("min-steps", &Base::min_steps,
                         "Small data: raise the epochs (and the patience alike) so that training "
                         "makes at least this many minibatch steps (0 = never)")
      .template add<int>("batch", &Base::batch,
                         "Minibatch size (training rows per step); per rank in a data-parallel "
                         "fit, N x batch rows a step over N ranks")
      .template add<int>(
          "global-batch", &Base::global_batch,
          fmt::format("Data-parallel: the rows of each step over all the ranks, split among them, "
                      "so that N ranks follow one process (instead of {} per rank); 0 = off",
                      option_ref("batch")))
      .template add<double>("lr", &Base::lr, "Adam learning rate")
      .template add<double>(
          "validation", &Base::validation,
          "Fraction of the training rows held out (stratified) for early stopping; 0 = none")
      .template add<int>("patience", &Base::patience,
                         "Stop after this many epochs without a better validation loss (0 = "
                         "never); the best weights are restored")
      .template add<double>("clip", &Base::clip, "Clip the gradient norm to this value (0 = off)")
      .template add<InputScaling>(
          "scaling", &Base::scaling,
          "Input scaling fitted on the training rows: auto (image for image data, none for "
          "data already within [0, 1], else standard), standard, minmax, image (divide by the "
          "largest value), none")
      .template add<std::uint64_t>("seed", &Base::seed,
                                   "Seed of every random choice (init, shuffling, split, noise)")
      .template add<int>("threads", &Base::threads,
                         "Threads (0 = every core free when the fit starts): dnn-top and dfs "
                         "take them as a team, at most one per 64 rows of the minibatch; "
                         "concrete, stg and fir run on one. The result is the same for any "
                         "count");
}

}  // namespace topkfs
