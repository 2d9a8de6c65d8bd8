#include "input_units.hpp"

#include <algorithm>
#include <limits>

namespace topkfs {

InputUnits::InputUnits(const NeuralProblem& problem)
    : grouped_(!problem.set.input_groups.empty()), inputs_(problem.inputs) {
  if (!grouped_) {
    count_ = inputs_;
    names_ = &problem.data->feature_names;
    return;
  }
  unit_of_ = problem.set.input_groups;
  names_ = &problem.data->group_names;
  count_ = static_cast<std::int64_t>(names_->size());
  std::vector<std::int64_t> seen(static_cast<std::size_t>(count_), 0);
  std::vector<std::int64_t> slot(unit_of_.size(), 0);
  for (std::size_t j = 0; j < unit_of_.size(); ++j) {
    slot[j] = seen[static_cast<std::size_t>(unit_of_[j])]++;
  }
  width_ = std::max<std::int64_t>(1, *std::max_element(seen.begin(), seen.end()));
  sizes_ = seen;
  unit_of_input_ = torch::tensor(unit_of_, torch::kLong);
  slot_source_ = torch::full({count_ * width_}, inputs_, torch::kLong);
  auto* source = slot_source_.data_ptr<std::int64_t>();
  for (std::size_t j = 0; j < unit_of_.size(); ++j) {
    source[unit_of_[j] * width_ + slot[j]] = static_cast<std::int64_t>(j);
  }
}

const std::string& InputUnits::name(std::int64_t unit) const {
  return (*names_)[static_cast<std::size_t>(unit)];
}

std::vector<std::int64_t> InputUnits::usable() const {
  std::vector<std::int64_t> out;
  for (std::int64_t unit = 0; unit < count_; ++unit) {
    if (has_inputs(unit)) out.push_back(unit);
  }
  return out;
}

torch::Tensor InputUnits::logit_mask() const {
  torch::Tensor mask = torch::zeros({count_});
  for (std::int64_t unit = 0; unit < count_; ++unit) {
    if (!has_inputs(unit)) mask[unit] = -std::numeric_limits<float>::infinity();
  }
  return mask;
}

torch::Tensor InputUnits::per_input(const torch::Tensor& per_unit) const {
  if (!grouped_) return per_unit;
  return per_unit.index_select(per_unit.dim() - 1, unit_of_input_);
}

torch::Tensor InputUnits::slots(const torch::Tensor& x) const {
  const torch::Tensor padded = torch::cat({x, torch::zeros({x.size(0), 1}, x.options())}, 1);
  return padded.index_select(1, slot_source_).view({x.size(0), count_, width_});
}

std::vector<double> InputUnits::per_input(const std::vector<double>& per_unit) const {
  if (!grouped_) return per_unit;
  std::vector<double> out(unit_of_.size());
  for (std::size_t j = 0; j < unit_of_.size(); ++j) {
    out[j] = per_unit[static_cast<std::size_t>(unit_of_[j])];
  }
  return out;
}

std::vector<std::int64_t> InputUnits::inputs_of(const std::vector<std::int64_t>& units) const {
  if (!grouped_) {
    std::vector<std::int64_t> sorted = units;
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }
  std::vector<char> kept(static_cast<std::size_t>(count_), 0);
  for (auto unit : units) kept[static_cast<std::size_t>(unit)] = 1;
  std::vector<std::int64_t> out;
  for (std::size_t j = 0; j < unit_of_.size(); ++j) {
    if (kept[static_cast<std::size_t>(unit_of_[j])]) out.push_back(static_cast<std::int64_t>(j));
  }
  return out;
}

}  // namespace topkfs
