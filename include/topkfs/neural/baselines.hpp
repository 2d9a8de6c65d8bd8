#pragma once
// The neural baselines of the paper's comparison, each implemented from its
// own paper (docs/algorithms.md states their objectives and defaults):
//  concrete: concrete selector, supervised (Abid, Balin, Zou, ICML 2019)
//  stg:      stochastic gates (Yamada, Lindenbaum, Negahban, Kluger, ICML 2020)
//  fir:      feature importance ranking with an operator and a selector
//            network (Wojtas, Chen, NeurIPS 2020)
// This header keeps libtorch out: the implementations live in src/neural/.
#include <memory>
#include <vector>

#include "topkfs/neural/training_options.hpp"
#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

struct ConcreteOptions : NeuralTrainingOptions {
  double start_temp = 10.0;  // temperature of the first step
  double end_temp = 0.01;    // temperature of the last planned step
  ConcreteOptions();         // the method's own defaults of the shared options

  // Throws OptionError naming the offending field.
  void validate() const;
};

struct StgOptions : NeuralTrainingOptions {
  double sigma = 0.5;   // standard deviation of the gate noise
  double lambda = 2.0;  // weight of mean_d P(gate d open)
  StgOptions();

  void validate() const;
};

struct FirOptions : NeuralTrainingOptions {
  int masks = 8;         // masks per minibatch (each row is seen under each)
  double explore = 0.4;  // fraction of the steps with random masks only
  int perturb = 2;       // 1-swaps applied to the best mask per perturbed mask
  std::vector<int> selector_hidden = {100, 50, 10};  // sigmoid MLP: mask -> predicted loss
  int selector_every = 8;                            // operator steps per selector step
  int search_steps = 5;  // local-search steps of the mask optimiser in training
  FirOptions();

  void validate() const;
};

const OptionTable<ConcreteOptions>& concrete_option_table();
const OptionTable<StgOptions>& stg_option_table();
const OptionTable<FirOptions>& fir_option_table();

std::unique_ptr<Selector> make_concrete_selector();
std::unique_ptr<Selector> make_stg_selector();
std::unique_ptr<Selector> make_fir_selector();

}  // namespace topkfs
