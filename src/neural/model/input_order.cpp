#include "input_order.hpp"

#include <torch/autograd.h>

#include <algorithm>
#include <cmath>

#include "topkfs/core/error.hpp"
#include "topkfs/select/top_k.hpp"

namespace topkfs {

InputOrder::InputOrder(std::int64_t inputs, std::int64_t k)
    : inputs_(inputs),
      k_(torch::full({1}, std::min(k, inputs), torch::kLong)),
      input_at_(torch::arange(inputs, torch::kLong)) {}

void InputOrder::track(const torch::Tensor& tensor) {
  TOPKFS_ASSERT(tensor.size(-1) == inputs_);
  tracked_.push_back(tensor);
}

bool InputOrder::bring_top_k_first(const torch::Tensor& w) { return bring_top_k_first(w, k()); }

bool InputOrder::bring_top_k_first(const torch::Tensor& w, std::int64_t k) {
  TOPKFS_ASSERT(w.numel() == inputs_ && w.is_contiguous() && w.scalar_type() == torch::kFloat);
  TOPKFS_ASSERT(k >= 0 && k <= inputs_);
  k_.data_ptr<std::int64_t>()[0] = k;
  const auto* at = input_at_.data_ptr<std::int64_t>();
  const float* stored = w.data_ptr<float>();
  if (top_k_first(stored)) return false;                      // most steps: one pass, nothing moves
  std::vector<float> own(static_cast<std::size_t>(inputs_));  // w in the inputs' own order
  for (std::int64_t p = 0; p < inputs_; ++p) own[static_cast<std::size_t>(at[p])] = stored[p];
  const std::vector<std::int64_t> top = top_k_by_magnitude(own.data(), inputs_, k);
  std::vector<bool> in_top(static_cast<std::size_t>(inputs_), false);
  for (const auto input : top) in_top[static_cast<std::size_t>(input)] = true;

  // Keep the swaps of a place < k with an outsider (an input >= k) that is
  // still in the top k while the place's own input is still out of it; pair
  // the remaining places < k whose own input is out with the remaining top
  // inputs >= k, in increasing order. (A swap made for a larger k whose
  // place is now >= k is undone.)
  std::vector<std::int64_t> target(static_cast<std::size_t>(inputs_));
  for (std::int64_t p = 0; p < inputs_; ++p) target[static_cast<std::size_t>(p)] = p;
  std::vector<bool> placed(static_cast<std::size_t>(inputs_), false);  // by input
  std::vector<bool> slot_taken(static_cast<std::size_t>(k), false);
  for (std::int64_t p = 0; p < k; ++p) {
    const std::int64_t s = at[p];
    if (s >= k && in_top[static_cast<std::size_t>(s)] && !in_top[static_cast<std::size_t>(p)]) {
      target[static_cast<std::size_t>(p)] = s;
      target[static_cast<std::size_t>(s)] = p;
      placed[static_cast<std::size_t>(s)] = true;
      slot_taken[static_cast<std::size_t>(p)] = true;
    }
  }
  std::int64_t slot = 0;
  for (const auto s : top) {
    if (s < k || placed[static_cast<std::size_t>(s)]) continue;
    while (slot_taken[static_cast<std::size_t>(slot)] || in_top[static_cast<std::size_t>(slot)]) {
      ++slot;
    }
    TOPKFS_ASSERT(slot < k);
    target[static_cast<std::size_t>(slot)] = s;
    target[static_cast<std::size_t>(s)] = slot;
    slot_taken[static_cast<std::size_t>(slot)] = true;
  }
  if (std::equal(target.begin(), target.end(), at)) return false;
  move_to(target);
  return true;
}

bool InputOrder::top_k_first(const float* w) const {
  const std::int64_t k = this->k();
  if (k == 0 || k == inputs_) return true;
  const auto* at = input_at_.data_ptr<std::int64_t>();
  // The top-k rule on the places' |w| and their inputs' own indices (ties
  // go to the lower input, not the lower place).
  const auto before = [&](std::int64_t a, std::int64_t b) {
    return ranks_before(std::fabs(w[a]), at[a], std::fabs(w[b]), at[b]);
  };
  std::int64_t weakest_first = 0;
  for (std::int64_t p = 1; p < k; ++p) {
    if (before(weakest_first, p)) weakest_first = p;
  }
  std::int64_t strongest_rest = k;
  for (std::int64_t p = k + 1; p < inputs_; ++p) {
    if (before(p, strongest_rest)) strongest_rest = p;
  }
  return before(weakest_first, strongest_rest);
}

void InputOrder::move_to(const std::vector<std::int64_t>& target) {
  const auto* at = input_at_.data_ptr<std::int64_t>();
  std::vector<std::int64_t> place_of(static_cast<std::size_t>(inputs_));  // current, by input
  for (std::int64_t p = 0; p < inputs_; ++p) place_of[static_cast<std::size_t>(at[p])] = p;
  std::vector<std::int64_t> to, from;  // the places that change, and where their input is now
  for (std::int64_t p = 0; p < inputs_; ++p) {
    const std::int64_t input = target[static_cast<std::size_t>(p)];
    if (input == at[p]) continue;
    to.push_back(p);
    from.push_back(place_of[static_cast<std::size_t>(input)]);
  }
  const torch::Tensor to_index = torch::tensor(to, torch::kLong);
  const torch::Tensor from_index = torch::tensor(from, torch::kLong);
  torch::NoGradGuard no_grad;  // w and the weights are parameters
  for (auto& tensor : tracked_) {
    const std::int64_t last = tensor.dim() - 1;
    tensor.index_copy_(last, to_index, tensor.index_select(last, from_index));
  }
  std::copy(target.begin(), target.end(), input_at_.data_ptr<std::int64_t>());
}

std::vector<InputOrder::Swap> InputOrder::swaps() const {
  const auto* at = input_at_.data_ptr<std::int64_t>();
  std::vector<Swap> swaps;
  for (std::int64_t p = 0; p < inputs_; ++p) {
    if (at[p] > p) {
      TOPKFS_ASSERT(at[at[p]] == p);
      swaps.push_back({p, at[p]});
    }
  }
  return swaps;
}

void InputOrder::restore_own_order() {
  std::vector<std::int64_t> own(static_cast<std::size_t>(inputs_));
  for (std::int64_t p = 0; p < inputs_; ++p) own[static_cast<std::size_t>(p)] = p;
  if (!std::equal(own.begin(), own.end(), input_at_.data_ptr<std::int64_t>())) move_to(own);
}

bool is_leading_prefix(const torch::Tensor& subset) {
  if (subset.numel() == 0) return false;
  const auto* s = subset.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < subset.numel(); ++i) {
    if (s[i] != i) return false;
  }
  return true;
}

}  // namespace topkfs
