#pragma once
// DNN^top (Wu & Cheng, eq. 6 and 8): a one-to-one layer w, a body (MLP or CNN),
// and the sub-model that shares every body weight but sees only the k inputs
// with the largest |w|. With lambda3 = 0 it is DFS (Li et al. 2016).
// This header keeps libtorch out: the implementation lives in src/neural/.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/neural/training_options.hpp"
#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

// The choices of DnnTopOptions (the fields below say what each means); their
// names are the option table's (names_of, for enum_name()).
enum class DnnTopBody { Mlp, Cnn };
enum class EveryK { Auto, Off };
enum class WConstraint { None, NonNegative };
enum class WStep { Adam, Shared };
enum class StopOn { Sum, Sub };
enum class RankBy { W, Scale };
enum class WideRule { Auto, Off };
EnumNameList<DnnTopBody> names_of(DnnTopBody);
EnumNameList<EveryK> names_of(EveryK);
EnumNameList<WConstraint> names_of(WConstraint);
EnumNameList<WStep> names_of(WStep);
EnumNameList<StopOn> names_of(StopOn);
EnumNameList<RankBy> names_of(RankBy);
EnumNameList<WideRule> names_of(WideRule);

// `screen`: auto, off, or a number of columns (at least 1) to keep.
struct ScreenSize {
  enum class Mode { Auto, Off, Columns };
  Mode mode = Mode::Auto;
  std::int64_t columns = 0;  // Columns only

  static ScreenSize keep(std::int64_t count) { return {Mode::Columns, count}; }
  bool operator==(const ScreenSize& other) const {
    return mode == other.mode && columns == other.columns;
  }
  // "auto", "off" or the count; parse_option reads each back.
  std::string to_string() const;
  static ScreenSize parse_option(const std::string& option, const std::string& text);
  static std::vector<std::string> choices();  // auto, off
};

struct DnnTopOptions : NeuralTrainingOptions {
  // dnn-top's own training budget (docs/algorithms.md, "Defaults and why"):
  // a lower learning rate, which ranks the inputs by many small steps of w,
  // and enough steps on small data for w to travel.
  DnnTopOptions() {
    lr = 3e-4;
    min_steps = 4000;
  }

  // hidden: MLP hidden sizes; CNN: the dense layer(s) after the convolutions
  DnnTopBody body = DnnTopBody::Mlp;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double weight_decay = 0.0;  // Adam weight decay on the body (w has lambda1/lambda2)
  double lambda1 = 1e-4;      // lambda1 * ||w||_2^2
  double lambda2 = 0.01;      // lambda2 * ||w||_1 (docs/algorithms.md: why this size)
  double lambda3 = 1.0;       // weight of the sub-model's loss; 0 = DFS
  // The schedule of the top-k term (docs/algorithms.md, "Training schedule"),
  // as fractions of the planned steps: the first `warmup` train the lead
  // model alone (DFS), so that the ranking by |w| starts from the lead
  // model's signal; over the next `anneal` the sub-model's input set shrinks
  // geometrically from all inputs to k; then it is the top k. Early stopping
  // waits for the schedule to end.
  double warmup = 0.0;
  double anneal = 0.5;
  // One training for every k from sub_k_min to the fit's k (0 = off): the
  // top-k term becomes the mean of the sub-models' losses at a few sizes
  // from sub_k_min to k (sub_model_sizes), each annealed as above, so that
  // the prefixes of one ranking are trained as the selections of every k in
  // the range. The selection of any such k is then the first k of the
  // ranking, and `topkfs evaluate` fits once per split (docs/algorithms.md,
  // "One training for every k").
  int sub_k_min = 0;
  // With more sub-model sizes than this, a step trains this many of them in
  // turn (sizes i with i = step mod R, R = ceil(sizes / this)), so that a
  // step costs the lead and at most this many sub-models; every size still
  // trains every R steps and early stopping compares the mean over all of
  // them. 0 = every size every step (docs/algorithms.md, "One training for
  // every k").
  int sub_models_per_step = 5;
  // auto: when the selections of several k are read from its fits
  // (Selector::serve_ks: `evaluate` over several k, `--k auto`), one
  // training serves them, as --sub-k-min at the smallest; off: one training
  // per k. --sub-k-min, when given, decides.
  EveryK every_k = EveryK::Auto;
  // none: w is free; nonneg: w is clipped at 0 after every step, so that the
  // L1 penalty drives unused inputs to exactly 0 rather than across it.
  WConstraint w_constraint = WConstraint::None;
  // How Adam scales w's steps. adam: per input, so that every input with a
  // steady gradient moves by about lr per step whatever the gradient's size;
  // shared: one second moment for all of w, so that an input's step is
  // proportional to its gradient and |w| accumulates how much the loss
  // depends on it.
  WStep w_step = WStep::Adam;
  // w's own Adam learning rate; 0 = --lr. Every input moves by at most about
  // lr a step, so lr times the number of steps bounds how far |w| can travel
  // from its start at 1: a smaller rate with more steps lets the ranking
  // follow the mean gradient rather than the last minibatches.
  double w_lr = 0.0;
  // What early stopping and the best-epoch choice compare on the validation
  // rows: sum (lead + lambda3 * sub-model, the training objective's data
  // part) or sub (the sub-model on the final k inputs alone: the selection
  // is what the fit is for).
  StopOn stop_on = StopOn::Sum;
  // What ranks the inputs, for the sub-model's set during training and for
  // the result: w (|w_j|, the paper's rule) or scale (|w_j| times the norm of
  // the first layer's weights on input j: the product is what the network
  // applies to the input, and it does not change when a penalty moves scale
  // between w and the first layer).
  RankBy rank_by = RankBy::W;
  // Stability selection (docs/algorithms.md): `restarts` fits with seeds
  // seed, seed + 1, ..., each on a random `subsample` fraction of the
  // training rows (stratified for classes; 1 = all of them); the features
  // chosen most often are selected, ties by their mean relative |w|.
  int restarts = 1;
  double subsample = 1.0;
  std::string image_shape;  // e.g. 28x28 for --body cnn when the data has none
  // Wide, short data (docs/algorithms.md, "Wide, short data"): auto gives
  // data with at least two inputs per training row its own training budget
  // in the options the user did not set; off takes every option as it is.
  WideRule wide = WideRule::Auto;
  // Marginal screening of wide data (docs/algorithms.md, "Wide, short
  // data"): auto keeps, where the wide-data rule applies, the columns of the
  // strongest marginal dependence on the target before the network trains;
  // off trains on every column; a number N keeps that many columns on any
  // data.
  ScreenSize screen;

  // Throws OptionError naming the offending field.
  void validate() const;
};

// The sub-models' sizes of a dnn-top fit for k: {k} when sub_k_min is 0 or at
// least k, else geometric from sub_k_min to k with neighbours at most 1.6
// times apart (10 to 50: 10, 15, 22, 33, 50), ends included.
std::vector<std::int64_t> sub_model_sizes(int sub_k_min, std::int64_t k);

const OptionTable<DnnTopOptions>& dnn_top_option_table();

// dfs: the same options with lambda3 = 0 and DFS's own defaults for the rest
// (docs/algorithms.md, "dfs"), and its table showing them.
DnnTopOptions dfs_default_options();
const OptionTable<DnnTopOptions>& dfs_option_table();

// `dnn-top` (lambda3 from the options) or `dfs` (lambda3 forced to 0).
std::unique_ptr<Selector> make_dnn_top_selector(bool dfs);

}  // namespace topkfs
