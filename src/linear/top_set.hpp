#pragma once
// The top-k set S of the coordinate descent solvers (the least-squares one in
// coordinate_descent.cpp and the class one in glm_descent.cpp): which weights
// see the sub-model's loss term, the free slots while fewer than k weights are
// non-zero, and the freezing of S when it cycles.
//
// A weight's magnitude is |w_j| (one output) or the norm of its row of
// coefficients (several classes, where a feature is in or out for all).
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "topkfs/select/top_k.hpp"

namespace topkfs::linear_detail {

using Columns = std::vector<std::int64_t>;

// The k largest magnitudes among `candidates` that are non-zero, ties to the
// lower index; ascending.
inline Columns top_nonzero(const Eigen::VectorXd& magnitude, const Columns& candidates, int k) {
  Columns nonzero;
  for (auto j : candidates) {
    if (magnitude[j] != 0.0) nonzero.push_back(j);
  }
  keep_top_k(nonzero, static_cast<std::size_t>(k),
             [&](std::int64_t j) { return std::abs(magnitude[j]); });
  return nonzero;
}

class TopSet {
 public:
  // `active` false (lambda3 = 0): no weight takes the sub-model's term.
  TopSet(int k, bool active, std::int64_t columns)
      : k_(k), active_(active), in_(static_cast<std::size_t>(columns), 0) {}

  // S = the top k of the non-zero magnitudes over every column.
  void start(const Eigen::VectorXd& magnitude) {
    if (!active_) return;
    Columns all(static_cast<std::size_t>(magnitude.size()));
    std::iota(all.begin(), all.end(), 0);
    members_ = top_nonzero(magnitude, all, k_);
    for (auto j : members_) in_[static_cast<std::size_t>(j)] = 1;
    previous_ = members_;
    seen_.push_back(hash(members_));
    open_slots_ = k_ - static_cast<int>(members_.size());
  }

  bool active() const { return active_; }
  bool contains(std::int64_t j) const { return in_[static_cast<std::size_t>(j)] != 0; }
  const std::vector<char>& flags() const { return in_; }
  const Columns& members() const { return members_; }

  // A zero weight that would move takes a free slot: moving it away from
  // zero would put it in the top k.
  bool is_free_slot(std::int64_t j, bool zero) const {
    return active_ && !contains(j) && open_slots_ > 0 && zero;
  }
  // Whether weight j's update includes the sub-model's term.
  bool takes_term(std::int64_t j, bool zero) const {
    return active_ && (contains(j) || (open_slots_ > 0 && zero));
  }
  // Weight j moved from zero through a free slot: it is a member now.
  void claim(std::int64_t j) {
    in_[static_cast<std::size_t>(j)] = 1;
    members_.push_back(j);  // re-sorted at the next recompute
    --open_slots_;
  }

  // Makes S the top k of the non-zero magnitudes among `candidates` (which
  // hold every non-zero weight); `leave(j)` and `enter(j)` see each change
  // before it is made. True when S did not change.
  //
  // The objective is discontinuous where two weights tie for the k-th place,
  // and its minimum can sit on such a tie: then each set's optimum puts the
  // other set on top and the sweeps cycle. When a set comes back, it is
  // frozen (free slots closed) and the now convex problem is solved with it.
  template <class Leave, class Enter>
  bool recompute(const Eigen::VectorXd& magnitude, const Columns& candidates, Leave leave,
                 Enter enter) {
    if (!active_ || frozen_) return true;
    Columns next = top_nonzero(magnitude, candidates, k_);
    const bool stable = next == previous_;
    if (!stable) {
      const std::uint64_t code = hash(next);
      if (std::find(seen_.begin(), seen_.end(), code) != seen_.end()) frozen_ = true;
      seen_.push_back(code);
    }
    for (auto j : members_) {
      if (!std::binary_search(next.begin(), next.end(), j)) {
        leave(j);
        in_[static_cast<std::size_t>(j)] = 0;
      }
    }
    for (auto j : next) {
      if (!contains(j)) {
        enter(j);
        in_[static_cast<std::size_t>(j)] = 1;
      }
    }
    members_ = next;
    previous_ = std::move(next);
    open_slots_ = frozen_ ? 0 : k_ - static_cast<int>(members_.size());
    return stable;
  }

  // Whether S is the top k of the magnitudes (false after S was frozen on a
  // tie it did not resolve).
  bool settled(const Eigen::VectorXd& magnitude, const Columns& candidates) const {
    return !active_ ||
           top_nonzero(magnitude, candidates, k_) == top_nonzero(magnitude, members_, k_);
  }

 private:
  static std::uint64_t hash(const Columns& set) {
    std::uint64_t code = 1469598103934665603ULL;  // FNV-1a over the column numbers
    for (auto j : set) {
      code ^= static_cast<std::uint64_t>(j);
      code *= 1099511628211ULL;
    }
    return code;
  }

  int k_;
  bool active_;
  std::vector<char> in_;
  Columns members_;   // non-zero at the last recompute, plus free-slot entries
  Columns previous_;  // S at the last recompute
  int open_slots_ = 0;
  bool frozen_ = false;              // S fixed after it cycled
  std::vector<std::uint64_t> seen_;  // hashes of the sets S has been
};

}  // namespace topkfs::linear_detail
