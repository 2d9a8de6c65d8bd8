#pragma once
// The units a neural baseline selects among: the inputs, or with column
// groups (TrainingSet::input_groups: a categorical column's one-hot inputs)
// the groups, so that stg's gates, concrete's nodes and fir's masks act on a
// group's inputs together and k counts groups (docs/algorithms.md, "Groups").
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "neural/train/neural_problem.hpp"

namespace topkfs {

class InputUnits {
 public:
  explicit InputUnits(const NeuralProblem& problem);

  bool grouped() const { return grouped_; }
  std::int64_t count() const { return count_; }
  std::int64_t inputs() const { return inputs_; }
  // The widest unit's inputs (1 without groups).
  std::int64_t width() const { return width_; }
  const std::string& name(std::int64_t unit) const;
  // False for a group without inputs (a column dropped as missing in every
  // row learned from), which is never selected.
  bool has_inputs(std::int64_t unit) const {
    return !grouped_ || sizes_[static_cast<std::size_t>(unit)] > 0;
  }
  // The units with inputs, in increasing order.
  std::vector<std::int64_t> usable() const;
  // Float, per unit: 0 for a unit with inputs, -inf for one without, to add
  // to logits over the units.
  torch::Tensor logit_mask() const;

  // Per-unit values (last dimension: units) as per-input values, each input
  // taking its unit's; the tensor itself without groups.
  torch::Tensor per_input(const torch::Tensor& per_unit) const;
  // The same for scores.
  std::vector<double> per_input(const std::vector<double>& per_unit) const;
  // The inputs of `units`, in increasing order.
  std::vector<std::int64_t> inputs_of(const std::vector<std::int64_t>& units) const;
  // x (rows x inputs) as rows x units x width: each unit's inputs in a slot
  // of `width` values, in their order, zeros past the unit's width. Grouped
  // data only.
  torch::Tensor slots(const torch::Tensor& x) const;

 private:
  bool grouped_ = false;
  std::int64_t inputs_ = 0;
  std::int64_t count_ = 0;
  std::int64_t width_ = 1;
  torch::Tensor unit_of_input_;  // long, per input; undefined without groups
  std::vector<std::int64_t> unit_of_;
  std::vector<std::int64_t> sizes_;
  torch::Tensor slot_source_;  // long, units x width: the input of each slot, or inputs_ (a zero)
  const std::vector<std::string>* names_ = nullptr;
};

}  // namespace topkfs
