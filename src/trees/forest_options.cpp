// Names, parsing and validation of the forest options.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/thread_count.hpp"
#include "topkfs/trees/forest.hpp"

namespace topkfs {
namespace {

[[noreturn]] void bad_option(const char* field, const std::string& problem) {
  throw OptionError(fmt::format("forest options: {} {}", field, problem));
}

}  // namespace

constexpr EnumName<ForestKind> kForestKindNames[] = {
    {ForestKind::ExtraTrees, "extra-trees"},     {ForestKind::ExtraTrees, "extratrees"},
    {ForestKind::ExtraTrees, "extra_trees"},     {ForestKind::ExtraTrees, "et"},
    {ForestKind::RandomForest, "random-forest"}, {ForestKind::RandomForest, "randomforest"},
    {ForestKind::RandomForest, "random_forest"}, {ForestKind::RandomForest, "rf"}};

constexpr EnumName<SplitCriterion> kCriterionNames[] = {
    {SplitCriterion::Auto, "auto"},
    {SplitCriterion::Gini, "gini"},
    {SplitCriterion::Entropy, "entropy"},
    {SplitCriterion::SquaredError, "squared_error"},
    {SplitCriterion::SquaredError, "squared-error"},
    {SplitCriterion::SquaredError, "mse"}};

const char* to_string(ForestKind kind) { return enum_name(kind, kForestKindNames); }

EnumNameList<ForestKind> names_of(ForestKind) { return kForestKindNames; }
EnumNameList<SplitCriterion> names_of(SplitCriterion) { return kCriterionNames; }

ForestKind parse_forest_kind(const std::string& name) {
  return parse_enum(name, kForestKindNames, "forest kind");
}

const char* to_string(SplitCriterion criterion) { return enum_name(criterion, kCriterionNames); }

SplitCriterion parse_split_criterion(const std::string& name) {
  return parse_enum(name, kCriterionNames, "split criterion");
}

int MaxFeatures::resolve(int m, TargetKind kind) const {
  TOPKFS_ASSERT(m >= 1);
  const auto at_least_one = [](double value) { return std::max(1, static_cast<int>(value)); };
  switch (rule) {
    case Rule::Auto:
      return kind == TargetKind::Classes ? at_least_one(std::sqrt(static_cast<double>(m))) : m;
    case Rule::Sqrt: return at_least_one(std::sqrt(static_cast<double>(m)));
    case Rule::Log2: return at_least_one(std::log2(static_cast<double>(m)));
    case Rule::All: return m;
    case Rule::Fraction: return at_least_one(value * m);
    case Rule::Count:
      if (value > m) {
        throw OptionError(fmt::format(
            "forest options: max_features {} is more than the {} columns to fit on; give at most "
            "{}, a fraction such as 0.5, or sqrt",
            value, m, m));
      }
      return static_cast<int>(value);
  }
  return m;
}

std::string MaxFeatures::to_string() const {
  switch (rule) {
    case Rule::Auto: return "auto";
    case Rule::Sqrt: return "sqrt";
    case Rule::Log2: return "log2";
    case Rule::All: return "all";
    case Rule::Count: return fmt::format("{}", static_cast<long long>(value));
    case Rule::Fraction: {
      // With a point, so that parse() reads a fraction back, not a count:
      // "1.0" is every feature and "1" one.
      std::string text = fmt::format("{}", value);
      if (text.find_first_of(".e") == std::string::npos) text += ".0";
      return text;
    }
  }
  return "?";
}

std::vector<std::string> MaxFeatures::choices() { return {"auto", "sqrt", "log2", "all"}; }

MaxFeatures MaxFeatures::parse_option(const std::string& option, const std::string& text) {
  return parse(text, option_ref(option));
}

MaxFeatures MaxFeatures::parse(const std::string& text, const std::string& what) {
  const std::string key = to_lower(text);
  if (key == "auto") return {};
  if (key == "sqrt") return {Rule::Sqrt, 0.0};
  if (key == "log2") return {Rule::Log2, 0.0};
  if (key == "all" || key == "none") return {Rule::All, 0.0};
  const bool is_fraction = key.find_first_of(".e") != std::string::npos;
  std::size_t used = 0;
  double number = std::numeric_limits<double>::quiet_NaN();
  try {
    number = std::stod(key, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const bool whole = used == key.size() && !key.empty();
  if (whole && is_fraction && number > 0.0 && number <= 1.0) return fraction(number);
  if (whole && !is_fraction && number >= 1.0 && number <= std::numeric_limits<int>::max()) {
    return {Rule::Count, number};
  }
  throw OptionError(fmt::format(
      "{} '{}' is not valid; give auto, sqrt, log2, all, a whole number of features (>= 1) or a "
      "fraction in (0, 1] written with a point (0.5, 1.0)",
      what, text));
}

ForestOptions ForestOptions::extra_trees(int n_estimators) {
  ForestOptions options;
  options.kind = ForestKind::ExtraTrees;
  options.n_estimators = n_estimators;
  return options;
}

ForestOptions ForestOptions::random_forest(int n_estimators) {
  ForestOptions options;
  options.kind = ForestKind::RandomForest;
  options.n_estimators = n_estimators;
  return options;
}

void ForestOptions::validate() const {
  if (n_estimators < 1)
    bad_option("n_estimators", fmt::format("is {}; it must be at least 1", n_estimators));
  if (min_samples_split < 2) {
    bad_option("min_samples_split", fmt::format("is {}; it must be at least 2", min_samples_split));
  }
  if (min_samples_leaf < 1) {
    bad_option("min_samples_leaf", fmt::format("is {}; it must be at least 1", min_samples_leaf));
  }
  if (max_depth < 0) {
    bad_option("max_depth",
               fmt::format("is {}; it must be at least 1, or 0 for unlimited", max_depth));
  }
  if (threads < 0 || threads > kMaxThreads) {
    bad_option("threads",
               fmt::format("is {}; it must be in 0..{} (0 = every core)", threads, kMaxThreads));
  }
  using Rule = MaxFeatures::Rule;
  if (max_features.rule == Rule::Count &&
      !(max_features.value >= 1.0 && max_features.value == std::floor(max_features.value) &&
        max_features.value <= std::numeric_limits<int>::max())) {
    bad_option("max_features", fmt::format("is {}; a count of features must be a whole number >= 1",
                                           max_features.value));
  }
  if (max_features.rule == Rule::Fraction &&
      !(max_features.value > 0.0 && max_features.value <= 1.0)) {
    bad_option("max_features", fmt::format("is {}; a fraction of the features must be in (0, 1]",
                                           max_features.value));
  }
}

}  // namespace topkfs
