#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "neural/train/training_option_table.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {

constexpr EnumName<DnnTopBody> kBodyNames[] = {{DnnTopBody::Mlp, "mlp"}, {DnnTopBody::Cnn, "cnn"}};
constexpr EnumName<EveryK> kEveryKNames[] = {{EveryK::Auto, "auto"}, {EveryK::Off, "off"}};
constexpr EnumName<WConstraint> kWConstraintNames[] = {{WConstraint::None, "none"},
                                                       {WConstraint::NonNegative, "nonneg"}};
constexpr EnumName<WStep> kWStepNames[] = {{WStep::Adam, "adam"}, {WStep::Shared, "shared"}};
constexpr EnumName<StopOn> kStopOnNames[] = {{StopOn::Sum, "sum"}, {StopOn::Sub, "sub"}};
constexpr EnumName<RankBy> kRankByNames[] = {{RankBy::W, "w"}, {RankBy::Scale, "scale"}};
constexpr EnumName<WideRule> kWideNames[] = {{WideRule::Auto, "auto"}, {WideRule::Off, "off"}};

EnumNameList<DnnTopBody> names_of(DnnTopBody) { return kBodyNames; }
EnumNameList<EveryK> names_of(EveryK) { return kEveryKNames; }
EnumNameList<WConstraint> names_of(WConstraint) { return kWConstraintNames; }
EnumNameList<WStep> names_of(WStep) { return kWStepNames; }
EnumNameList<StopOn> names_of(StopOn) { return kStopOnNames; }
EnumNameList<RankBy> names_of(RankBy) { return kRankByNames; }
EnumNameList<WideRule> names_of(WideRule) { return kWideNames; }

void DnnTopOptions::validate() const {
  validate_training();
  auto fail = [](const std::string& message) { throw OptionError(message); };
  if (!(beta1 >= 0 && beta1 < 1))
    fail(fmt::format("{} must be in [0, 1), got {}", option_ref("beta1"), beta1));
  if (!(beta2 >= 0 && beta2 < 1))
    fail(fmt::format("{} must be in [0, 1), got {}", option_ref("beta2"), beta2));
  if (weight_decay < 0) fail(fmt::format("{} must not be negative", option_ref("weight-decay")));
  if (lambda1 < 0 || lambda2 < 0 || lambda3 < 0) {
    fail(fmt::format("{}, {} and {} must not be negative (got {}, {}, {})", option_ref("lambda1"),
                     option_ref("lambda2"), option_ref("lambda3"), lambda1, lambda2, lambda3));
  }
  if (!(warmup >= 0 && anneal >= 0 && warmup + anneal <= 1)) {
    fail(fmt::format(
        "{} and {} are fractions of the training with a sum of at most 1, got {} and {}",
        option_ref("warmup"), option_ref("anneal"), warmup, anneal));
  }
  if (sub_k_min < 0)
    fail(fmt::format("{} must not be negative, got {}", option_ref("sub-k-min"), sub_k_min));
  if (sub_models_per_step < 0) {
    fail(fmt::format("{} must not be negative, got {}", option_ref("sub-models-per-step"),
                     sub_models_per_step));
  }
  if (restarts < 1)
    fail(fmt::format("{} must be at least 1, got {}", option_ref("restarts"), restarts));
  if (!(subsample > 0 && subsample <= 1)) {
    fail(fmt::format("{} must be in (0, 1], got {}", option_ref("subsample"), subsample));
  }
  if (!(w_lr >= 0)) fail(fmt::format("{} must not be negative, got {}", option_ref("w-lr"), w_lr));
}

const OptionTable<DnnTopOptions>& dnn_top_option_table() {
  static const OptionTable<DnnTopOptions> table = [] {
    OptionTable<DnnTopOptions> t;
    add_training_options(t,
                         "Hidden layer sizes of the body, comma-separated (MLP: every layer; CNN: "
                         "the dense layers after the convolutions)");
    t.add("body", &DnnTopOptions::body, "mlp, or cnn for image data (needs an image shape)")
        .add("beta1", &DnnTopOptions::beta1, "Adam beta1")
        .add("beta2", &DnnTopOptions::beta2, "Adam beta2")
        .add("weight-decay", &DnnTopOptions::weight_decay,
             "Adam weight decay on the body (w is regularised by lambda1 and lambda2)")
        .add("lambda1", &DnnTopOptions::lambda1, "Weight of ||w||_2^2")
        .add("lambda2", &DnnTopOptions::lambda2, "Weight of ||w||_1")
        .add("lambda3", &DnnTopOptions::lambda3,
             "Weight of the top-k sub-model's loss (0 gives DFS)")
        .add("warmup", &DnnTopOptions::warmup,
             "Fraction of the training that fits the lead model alone (lambda3 = 0) before the "
             "top-k term starts, so that the ranking starts from the lead model's signal")
        .add("anneal", &DnnTopOptions::anneal,
             "Fraction of the training, after the warm-up, over which the sub-model's input set "
             "shrinks geometrically from all inputs to k (0 = k from the start)")
        .add("sub-k-min", &DnnTopOptions::sub_k_min,
             fmt::format("One training for every k from this value to {} (0 = off): the top-k term "
                         "is the mean of the sub-models' losses at a few sizes in that range (10 "
                         "to 50: 10, 15, 22, 33, 50), so that the first k' of one ranking is the "
                         "selection of every k' there (evaluate then fits once per split)",
                         option_ref("k")))
        .add("sub-models-per-step", &DnnTopOptions::sub_models_per_step,
             fmt::format(
                 "With more sub-model sizes than this ({}), a step trains this many of them in "
                 "turn, so that a step costs the lead and at most this many (0 = all every step)",
                 option_ref("sub-k-min")))
        .add("every-k", &DnnTopOptions::every_k,
             fmt::format("auto: evaluate over several k and {} train one ranking for all of them "
                         "(as {} at the smallest k); off: one training per k",
                         option_ref("k", "auto"), option_ref("sub-k-min")))
        .add("w-constraint", &DnnTopOptions::w_constraint,
             "none, or nonneg: w clipped at 0 after every step")
        .add("w-step", &DnnTopOptions::w_step,
             "Adam's scaling of w's steps: adam (per input) or shared (one second moment for "
             "all inputs: steps in proportion to the gradients)")
        .add("w-lr", &DnnTopOptions::w_lr,
             fmt::format("Adam learning rate of w alone (0 = {}); each input moves by about this "
                         "much a step at most",
                         option_ref("lr")))
        .add("stop-on", &DnnTopOptions::stop_on,
             "Validation loss for early stopping and the best epoch: sum (lead + lambda3 * "
             "sub-model) or sub (the sub-model on the k selected inputs)")
        .add("rank-by", &DnnTopOptions::rank_by,
             "What ranks the inputs: w (|w|) or scale (|w| times the norm of the first "
             "layer's weights on the input)")
        .add(
            "restarts", &DnnTopOptions::restarts,
            fmt::format("Stability selection: fit this many times (seeds {}, {}+1, ...) and select "
                        "the features chosen most often; the result holds each feature's frequency",
                        option_ref("seed"), option_ref("seed")))
        .add("subsample", &DnnTopOptions::subsample,
             fmt::format("With {}: the fraction of the training rows each fit draws (stratified; "
                         "0.5 = half, as in stability selection; 1 = all rows)",
                         option_ref("restarts")))
        .add("image-shape", &DnnTopOptions::image_shape,
             fmt::format("HxW[xC] of the images for {} when the data does not carry one",
                         option_ref("body", "cnn")))
        .add("wide", &DnnTopOptions::wide,
             fmt::format("auto: data with at least 2 inputs per training row trains with the "
                         "wide-data budget ({}, {}, {}, {}) in the options not given; off: every "
                         "option at its default or as given",
                         option_ref("min-steps", "1000"), option_ref("w-lr", "1e-2"),
                         option_ref("lambda2", "0.03"), option_ref("validation", "0")))
        .add(
            "screen", &DnnTopOptions::screen,
            fmt::format("Before training, keep only the columns that depend most on the target, "
                        "each on its own (a chi-square test of its quantile bins against the "
                        "target): auto does so on wide data (where {} applies) and keeps 3 columns "
                        "per training row (at least 2k); a number keeps that many on any data; off "
                        "keeps every column. Columns left out score 0, ranked by that test",
                        option_ref("wide", "auto")));
    return t;
  }();
  return table;
}

std::string ScreenSize::to_string() const {
  switch (mode) {
    case Mode::Auto: return "auto";
    case Mode::Off: return "off";
    case Mode::Columns: return std::to_string(columns);
  }
  return "?";
}

std::vector<std::string> ScreenSize::choices() { return {"auto", "off"}; }

ScreenSize ScreenSize::parse_option(const std::string& option, const std::string& text) {
  const std::string key = to_lower(text);
  if (key == "auto") return {};
  if (key == "off") return {Mode::Off, 0};
  // Digits only (at most 12: beyond any column count), at least 1.
  const bool digits =
      !key.empty() && key.size() <= 12 && key.find_first_not_of("0123456789") == std::string::npos;
  const std::int64_t count = digits ? std::stoll(key) : 0;
  if (count < 1) {
    throw OptionError(
        fmt::format("{} takes auto, off or a number of columns (at least 1), not '{}'",
                    option_ref(option), text));
  }
  return keep(count);
}

std::vector<std::int64_t> sub_model_sizes(int sub_k_min, std::int64_t k) {
  if (sub_k_min <= 0 || sub_k_min >= k) return {k};
  const double low = sub_k_min;
  const double ratio = static_cast<double>(k) / low;
  // The widest step between neighbours: 1.6 gives 10 to 50 five sizes (10,
  // 15, 22, 33, 50), whose rankings were within 0.5 point of one fit per k at
  // every k on MNIST, Fashion-MNIST, USPS and COIL20; three sizes (2.5 apart)
  // missed by up to 0.3 point at some k (docs/algorithms.md, "One training
  // for every k").
  constexpr double kWidestStep = 1.6;
  const int steps =
      std::max(2, static_cast<int>(std::ceil(std::log(ratio) / std::log(kWidestStep))));
  std::vector<std::int64_t> sizes;
  for (int i = 0; i <= steps; ++i) {
    const auto size = static_cast<std::int64_t>(
        std::llround(low * std::pow(ratio, static_cast<double>(i) / steps)));
    if (sizes.empty() || size > sizes.back()) sizes.push_back(size);
  }
  sizes.back() = k;
  return sizes;
}

DnnTopOptions dfs_default_options() {
  DnnTopOptions options;
  options.lambda3 = 0.0;
  // Without the top-k term the penalties alone shape |w|: the study
  // (docs/quality-study.md) found DFS best with the small L1 penalty and
  // Adam's own step for w; the schedule does not apply.
  options.lambda2 = 1e-4;
  options.w_step = WStep::Adam;
  options.anneal = 0.0;
  // and the training budget every neural method has, which dnn-top changed
  const NeuralTrainingOptions shared;
  options.lr = shared.lr;
  options.min_steps = shared.min_steps;
  // The wide-data rule was measured on dnn-top's budget, not on DFS's.
  options.wide = WideRule::Off;
  options.screen = {ScreenSize::Mode::Off, 0};
  return options;
}

const OptionTable<DnnTopOptions>& dfs_option_table() {
  static const OptionTable<DnnTopOptions> table =
      OptionTable<DnnTopOptions>(dnn_top_option_table()).with_defaults(dfs_default_options());
  return table;
}

}  // namespace topkfs
