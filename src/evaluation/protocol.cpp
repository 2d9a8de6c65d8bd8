// Protocol names, option checks and the summary statistics of `evaluate`.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
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
    throw DataError(fmt::format("{}: evaluation needs a target; name it with --target", where));
  }
  if (protocol == Protocol::Auto) {
    return data.target_kind == TargetKind::Classes ? Protocol::Accuracy : Protocol::Mae;
  }
  if (protocol == Protocol::Accuracy && data.target_kind != TargetKind::Classes) {
    throw OptionError(fmt::format(
        "--protocol accuracy needs class labels, but the target of {} is real; use --protocol "
        "mae (or --task classification if the values are class codes)",
        where));
  }
  if (protocol == Protocol::Mae && data.target_kind != TargetKind::Real) {
    throw OptionError(fmt::format(
        "--protocol mae needs a real target, but {} has class labels; use --protocol accuracy",
        where));
  }
  return protocol;
}

int EvaluationOptions::seed_count() const {
  return seeds.value_or(protocol == Protocol::Stability ? kStabilityRuns : 1);
}

std::string k_label(int k) { return k == kAutoK ? "auto" : std::to_string(k); }

void EvaluationOptions::validate() const {
  if (methods.empty()) throw OptionError("--method: give at least one method");
  if (ks.empty()) throw OptionError("--k: give at least one k");
  for (const int k : ks) {
    if (k < 1 && k != kAutoK)
      throw OptionError(fmt::format("--k: every k must be at least 1, got {}", k));
  }
  const bool auto_k = std::find(ks.begin(), ks.end(), kAutoK) != ks.end();
  if (auto_k && protocol == Protocol::Stability) {
    throw OptionError(
        "--k auto with --protocol stability: the stability indices compare selections of one "
        "size; give the k values");
  }
  if (k_folds < 0)
    throw OptionError(fmt::format("--k-folds must not be negative, got {}", k_folds));
  if (k_max < 0) throw OptionError(fmt::format("--k-max must not be negative, got {}", k_max));
  // A repeated entry would run twice and be summarised as one column or row
  // of twice the runs: identical runs that inflate the stability indices.
  if (const auto method = first_repeat(methods)) {
    throw OptionError(fmt::format("--method lists {} twice: give each method once", *method));
  }
  if (const auto k = first_repeat(ks)) {
    throw OptionError(fmt::format("--k lists {} twice: give each k once", *k));
  }
  if (!auto_candidates.empty() &&
      std::find(methods.begin(), methods.end(), "auto") == methods.end())
    throw OptionError(
        "--candidates lists the methods --method auto chooses between; add auto to --method");
  if (seed_count() < 1)
    throw OptionError(fmt::format("--seeds must be at least 1, got {}", *seeds));
  if (protocol == Protocol::Stability && seed_count() < 2) {
    throw OptionError("--protocol stability compares runs: give --seeds 2 or more (default 10)");
  }
  if (!(test_size > 0 && test_size < 1)) {
    throw OptionError(fmt::format("--test-size must be in (0, 1), got {}", test_size));
  }
  if (downstream_trees < 1) {
    throw OptionError(fmt::format("--trees must be at least 1, got {}", downstream_trees));
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
