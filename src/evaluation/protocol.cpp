// Protocol names, option checks and the summary statistics of `evaluate`.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/thread_count.hpp"
#include "topkfs/evaluation/evaluation.hpp"

namespace topkfs {
namespace {

constexpr EnumName<Protocol> kProtocolNames[] = {
    {Protocol::Auto, "auto"},           {Protocol::Accuracy, "accuracy"},   {Protocol::Mae, "mae"},
    {Protocol::Detection, "detection"}, {Protocol::Stability, "stability"},
};

constexpr int kStabilityRuns = 10;  // the paper's 10 random splits

// The first value that appears again in `values`, if any.
template <typename T>
std::optional<T> first_repeat(const std::vector<T>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) !=
        values.begin() + static_cast<std::ptrdiff_t>(i)) {
      return values[i];
    }
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(Protocol protocol) { return enum_name(protocol, kProtocolNames); }

Protocol parse_protocol(const std::string& name) {
  return parse_enum(name, kProtocolNames, "protocol");
}

Protocol resolve_protocol(Protocol protocol, const Dataset& data) {
  const char* where = data.source.empty() ? "the data" : data.source.c_str();
  if (data.target_kind == TargetKind::None) {
    throw DataError(
        fmt::format("{}: evaluation needs a target; name it with {}", where, option_ref("target")));
  }
  if (protocol == Protocol::Auto) {
    return data.target_kind == TargetKind::Classes ? Protocol::Accuracy : Protocol::Mae;
  }
  if (protocol == Protocol::Accuracy && data.target_kind != TargetKind::Classes) {
    throw OptionError(
        fmt::format("{} needs class labels, but the target of {} is real; use {} (or {} if the "
                    "values are class codes)",
                    option_ref("protocol", "accuracy"), where, option_ref("protocol", "mae"),
                    option_ref("task", "classification")));
  }
  if (protocol == Protocol::Mae && data.target_kind != TargetKind::Real) {
    throw OptionError(fmt::format("{} needs a real target, but {} has class labels; use {}",
                                  option_ref("protocol", "mae"), where,
                                  option_ref("protocol", "accuracy")));
  }
  return protocol;
}

int EvaluationOptions::seed_count() const {
  return seeds.value_or(protocol == Protocol::Stability ? kStabilityRuns : 1);
}

std::string k_label(int k) { return k == kAutoK ? "auto" : std::to_string(k); }

void EvaluationOptions::validate() const {
  if (methods.empty())
    throw OptionError(fmt::format("{}: give at least one method", option_ref("method")));
  if (ks.empty()) throw OptionError(fmt::format("{}: give at least one k", option_ref("k")));
  for (const int k : ks) {
    if (k < 1 && k != kAutoK)
      throw OptionError(fmt::format("{}: every k must be at least 1, got {}", option_ref("k"), k));
  }
  const bool auto_k = std::find(ks.begin(), ks.end(), kAutoK) != ks.end();
  if (auto_k && protocol == Protocol::Stability) {
    throw OptionError(fmt::format(
        "{} with {}: the stability indices compare selections of one size; give the k values",
        option_ref("k", "auto"), option_ref("protocol", "stability")));
  }
  if (k_folds < 0)
    throw OptionError(
        fmt::format("{} must not be negative, got {}", option_ref("k-folds"), k_folds));
  if (k_max < 0)
    throw OptionError(fmt::format("{} must not be negative, got {}", option_ref("k-max"), k_max));
  // A repeated entry would run twice and be summarised as one column or row
  // of twice the runs: identical runs that inflate the stability indices.
  if (const auto method = first_repeat(methods)) {
    throw OptionError(
        fmt::format("{} lists {} twice: give each method once", option_ref("method"), *method));
  }
  if (const auto k = first_repeat(ks)) {
    throw OptionError(fmt::format("{} lists {} twice: give each k once", option_ref("k"), *k));
  }
  if (!auto_candidates.empty() &&
      std::find(methods.begin(), methods.end(), "auto") == methods.end())
    throw OptionError(fmt::format("{} lists the methods {} chooses between; add auto to {}",
                                  option_ref("candidates"), option_ref("method", "auto"),
                                  option_ref("method")));
  if (seed_count() < 1)
    throw OptionError(fmt::format("{} must be at least 1, got {}", option_ref("seeds"), *seeds));
  if (protocol == Protocol::Stability && seed_count() < 2) {
    throw OptionError(fmt::format("{} compares runs: give {} or more (default 10)",
                                  option_ref("protocol", "stability"), option_ref("seeds", "2")));
  }
  if (!(test_size > 0 && test_size < 1)) {
    throw OptionError(
        fmt::format("{} must be in (0, 1), got {}", option_ref("test-size"), test_size));
  }
  if (downstream_trees < 1) {
    throw OptionError(
        fmt::format("{} must be at least 1, got {}", option_ref("trees"), downstream_trees));
  }
  check_thread_count(threads);
}

ScoreSummary summarise(const std::vector<double>& values) {
  ScoreSummary summary;
  double sum = 0.0;
  for (const double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    ++summary.count;
  }
  if (summary.count == 0) return {std::nan(""), std::nan(""), 0};
  summary.mean = sum / summary.count;
  double squares = 0.0;
  for (const double v : values) {
    if (!std::isnan(v)) squares += (v - summary.mean) * (v - summary.mean);
  }
  summary.std = std::sqrt(squares / summary.count);
  return summary;
}

}  // namespace topkfs
