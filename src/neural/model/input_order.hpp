#pragma once
// The order in which a network keeps its inputs during dnn-top's training,
// so that the sub-model's k inputs are always the first k columns.
//
// The sub-model reads the k inputs of largest |w|. Gathered from their
// places, its first layer is extra work beside the lead's: a product with
// k columns of x in the forward pass and another in the backward pass, plus
// the gathers and a scatter (a few percent of an MNIST step). With those inputs
// stored first, the lead's first-layer product is the sub-model's plus the
// rest: z = x_S W_S^T + x_R W_R^T, and the weight gradient of the first k
// columns takes the lead's and the sub-model's output gradients summed. So
// the sub-model's first layer costs nothing extra (docs/method.md §4 notes
// that a k/m fraction of the lead's cost is possible; this is less).
//
// The order is the identity except for disjoint swaps, each of a place p
// with an input s > p (s sits at p, p's own input at s), so that each
// gathered row is put in order by two moves a swap. When the top-k set
// changes, only the inputs that enter or leave it move, in every tensor that
// is indexed by input: w, the first layer's columns and their Adam moments.
// k may change from one call to the next: while dnn-top anneals the
// sub-model's size from every input down to k, the order keeps the top k_t
// first, so that the annealed sub-model reads a prefix too (a swap made
// for a larger k_t stays until its inputs move again).
#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace topkfs {

class InputOrder {
 public:
  InputOrder(std::int64_t inputs, std::int64_t k);

  // A tensor whose last dimension is indexed by input (a vector, or the
  // columns of a matrix), kept in this order from now on; it must be in the
  // current order when tracked.
  void track(const torch::Tensor& tensor);

  // Rearranges so that the k inputs of largest |w| come first, given w in
  // the current order (the top-k rule of topkfs/select/top_k.hpp: ties go to
  // the lower input); k is then this k (the second form), or stays.
  // Moves only the inputs that enter or leave the top k; true when any did.
  bool bring_top_k_first(const torch::Tensor& w);
  bool bring_top_k_first(const torch::Tensor& w, std::int64_t k);

  // How many first places hold the top inputs: the last call's k.
  std::int64_t k() const { return k_.data_ptr<std::int64_t>()[0]; }

  // The order as swaps: a row in the inputs' own order is in this order once
  // the entries at `place` and `input` are swapped for every swap.
  struct Swap {
    std::int64_t place;
    std::int64_t input;  // > place, kept at `place`
  };
  std::vector<Swap> swaps() const;

  // Puts every tracked tensor back in the inputs' own order; the order is
  // then the identity.
  void restore_own_order();

  // The input at each place (int64), and k (one int64): part of the training
  // state, so that restoring the best epoch's weights, or a checkpoint,
  // restores the order they were in and the prefix it holds.
  const torch::Tensor& input_at() const { return input_at_; }
  const torch::Tensor& k_tensor() const { return k_; }

 private:
  // True when the first k places hold the k inputs of largest |w| (w in the
  // current order).
  bool top_k_first(const float* w) const;
  // Moves every tracked tensor's columns from the current order to `target`
  // (an input per place) and makes it current.
  void move_to(const std::vector<std::int64_t>& target);

  std::int64_t inputs_;
  torch::Tensor k_;         // int64, one value
  torch::Tensor input_at_;  // int64, inputs
  std::vector<torch::Tensor> tracked_;
};

// True when `subset` (int64) is 0, 1, ..., n - 1: the sub-model's inputs are
// the first columns and its first layer can read them as a slice.
bool is_leading_prefix(const torch::Tensor& subset);

}  // namespace topkfs
