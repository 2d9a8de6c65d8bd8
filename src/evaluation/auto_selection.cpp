#include "topkfs/evaluation/auto_selection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "topkfs/core/clock.hpp"
#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/core/thread_settings.hpp"
#include "topkfs/data/splits.hpp"
#include "topkfs/data/table_encoding.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/pictures/chart.hpp"
#include "topkfs/scoring/metrics.hpp"
#include "topkfs/select/run_selection.hpp"

namespace topkfs {
namespace {

constexpr EnumName<KRule> kKRuleNames[] = {{KRule::OneStandardError, "1se"}, {KRule::Best, "best"}};

// The validation parts of `rows`: one stratified split, or `folds` folds
// (each class's rows shuffled and dealt out in turn, so every fold has its
// share of each class).
std::vector<Split> auto_validation_parts(const Dataset& data, const std::vector<std::int64_t>& rows,
                                         const AutoOptions& options) {
  if (options.folds <= 1) {
    const TrainValTest parts =
        train_validation_split(data, rows, options.validation, derive_seed(options.seed, 7));
    return {{parts.train, parts.validation}};
  }
  std::map<std::int32_t, std::vector<std::int64_t>> by_class;
  for (auto row : rows) {
    const std::int32_t label =
        data.target_kind == TargetKind::Classes ? data.labels[static_cast<std::size_t>(row)] : 0;
    by_class[label].push_back(row);
  }
  Rng rng(derive_seed(options.seed, 7));
  std::vector<std::vector<std::int64_t>> fold(static_cast<std::size_t>(options.folds));
  std::size_t next = 0;
  for (auto& [label, members] : by_class) {
    rng.shuffle(members);
    for (auto row : members) fold[next++ % fold.size()].push_back(row);
  }
  std::vector<Split> parts;
  for (std::size_t f = 0; f < fold.size(); ++f) {
    Split part;
    part.test = fold[f];
    for (std::size_t g = 0; g < fold.size(); ++g) {
      if (g != f) part.train.insert(part.train.end(), fold[g].begin(), fold[g].end());
    }
    std::sort(part.train.begin(), part.train.end());
    std::sort(part.test.begin(), part.test.end());
    if (part.test.empty() || part.train.size() < 2) {
      throw OptionError(fmt::format("{}: {} training rows are too few for so many folds",
                                    option_ref("k-folds", options.folds), rows.size()));
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

// How many columns (or groups) a fit on `rows` can select: those not missing
// in every one of them.
std::int64_t selectable_count(const Dataset& data, const std::vector<std::int64_t>& rows) {
  if (!needs_encoding(data)) return data.group_count();
  const TableEncoding encoding = learn_encoding(data, rows);
  std::vector<char> usable(static_cast<std::size_t>(data.group_count()), 0);
  for (std::size_t j = 0; j < encoding.columns.size(); ++j) {
    if (encoding.columns[j].dropped) continue;
    usable[data.column_group.empty() ? j : static_cast<std::size_t>(data.column_group[j])] = 1;
  }
  return std::count(usable.begin(), usable.end(), 1);
}

struct AutoPartScore {
  double value = 0.0;
  double se = 0.0;  // of the part's rows, for a single part
};

// A candidate's selections of each k, one per validation part.
using PartSelections = std::map<int, std::vector<std::vector<std::int64_t>>>;

std::vector<std::int64_t> ranking_prefix(const SelectionResult& result, int k) {
  return {result.ranking.begin(), result.ranking.begin() + k};
}

// The downstream score of `result`'s first k (of its ranking) on one part;
// `table` is the data as the fit saw it (encoded when the fit encoded it).
AutoPartScore score_ranking_prefix(const Dataset& table, const SelectionResult& result, int k,
                                   const Split& part, const DownstreamOptions& downstream) {
  SelectionResult prefix = result;
  prefix.selected.assign(result.ranking.begin(), result.ranking.begin() + k);
  // In the table's order: the downstream trees draw columns by position, so
  // the score would otherwise change with the order of the same set.
  std::vector<std::int64_t> columns = method_columns(prefix);
  std::sort(columns.begin(), columns.end());
  const DownstreamScore score = score_downstream(table, part.train, part.test, columns, downstream);
  const auto n = static_cast<double>(part.test.size());
  if (score.kind == TargetKind::Classes) {
    const double p = score.accuracy / 100.0;
    return {score.accuracy, 100.0 * std::sqrt(std::max(0.0, p * (1 - p)) / n)};
  }
  // The spread of the absolute errors: E|e|^2 - (E|e|)^2 = RMSE^2 - MAE^2.
  return {score.mae, std::sqrt(std::max(0.0, score.rmse * score.rmse - score.mae * score.mae) / n)};
}

KCurvePoint curve_point(int k, const std::vector<AutoPartScore>& scores) {
  KCurvePoint point;
  point.k = k;
  for (const auto& s : scores) point.mean += s.value / static_cast<double>(scores.size());
  if (scores.size() == 1) {
    point.se = scores.front().se;
    return point;
  }
  double squares = 0.0;
  for (const auto& s : scores) squares += (s.value - point.mean) * (s.value - point.mean);
  const auto f = static_cast<double>(scores.size());
  point.se = std::sqrt(squares / (f - 1) / f);
  return point;
}

// The validation curve of one candidate at `ks` (appended to `out`). A
// method whose ranking ignores k is fitted once per part, at `k_max`, and
// that fit kept in `ranked` for later calls.
void score_curve_at(const SelectorFactory& make, const Dataset& data,
                    const std::vector<Split>& parts, const std::vector<int>& ks, int k_max,
                    const AutoOptions& options, const FitCallbacks& callbacks,
                    std::vector<SelectionResult>& ranked, PartSelections& selections,
                    std::map<int, std::vector<AutoPartScore>>& part_scores, CandidateScore& out) {
  std::map<int, std::vector<AutoPartScore>>& by_k = part_scores;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const Split& part = parts[p];
    // Every fit on this part encodes the table as learned from its
    // training rows: encoded once here for all their scores.
    std::optional<Dataset> encoded;
    if (needs_encoding(data)) encoded = encode_table(data, learn_encoding(data, part.train));
    const Dataset& table = encoded ? *encoded : data;
    auto probe = make();
    out.method = probe->name();
    probe->serve_ks(ks.front(), k_max);
    if (!probe->ranking_depends_on_k()) {
      if (ranked.size() <= p) {
        ranked.push_back(fit_table(*probe, data, part.train, k_max, callbacks));
        ++out.fits;
      }
      for (int k : ks) {
        by_k[k].push_back(score_ranking_prefix(table, ranked[p], k, part, options.downstream));
        selections[k].push_back(ranking_prefix(ranked[p], k));
      }
      continue;
    }
    // k of every selectable column (or group) selects them all, whatever
    // the ranking: the first k of any fit's ranking on this part are those
    // (the columns missing in all its training rows rank last). The fit
    // for a smaller k serves it; a fit at k = all took a path to its end
    // (18 s of a 0.3 s lasso on soybean, which can never make all 69
    // encoded columns non-zero).
    const std::int64_t all = selectable_count(data, part.train);
    std::optional<SelectionResult> smaller;
    for (int k : ks) {
      if (k >= all && smaller) {
        by_k[k].push_back(score_ranking_prefix(table, *smaller, k, part, options.downstream));
        selections[k].push_back(ranking_prefix(*smaller, k));
        continue;
      }
      auto selector = make();
      SelectionResult fit = fit_table(*selector, data, part.train, k, callbacks);
      ++out.fits;
      by_k[k].push_back(score_ranking_prefix(table, fit, k, part, options.downstream));
      selections[k].push_back(ranking_prefix(fit, k));
      smaller = std::move(fit);
    }
  }
  for (int k : ks) out.curve.push_back(curve_point(k, by_k[k]));
  std::sort(out.curve.begin(), out.curve.end(),
            [](const KCurvePoint& a, const KCurvePoint& b) { return a.k < b.k; });
}

// Up to kAutoRefine values of k strictly between `low` and `high`, spread
// geometrically: where the rule's choice lies between two grid points.
constexpr int kAutoRefine = 4;
std::vector<int> refined_between(int low, int high) {
  std::vector<int> out;
  for (int i = 1; i <= kAutoRefine; ++i) {
    const double t = static_cast<double>(i) / (kAutoRefine + 1);
    const int k = static_cast<int>(std::lround(low * std::pow(static_cast<double>(high) / low, t)));
    if (k > low && k < high && (out.empty() || out.back() != k)) out.push_back(k);
  }
  return out;
}

CandidateScore score_candidate(const SelectorFactory& make, const Dataset& data,
                               const std::vector<Split>& parts, const std::vector<int>& ks,
                               const AutoOptions& options, const FitCallbacks& callbacks) {
  const auto start = Clock::now();
  CandidateScore out;
  std::vector<SelectionResult> ranked;
  PartSelections selections;
  std::map<int, std::vector<AutoPartScore>> part_scores;
  score_curve_at(make, data, parts, ks, ks.back(), options, callbacks, ranked, selections,
                 part_scores, out);
  const bool higher = data.target_kind == TargetKind::Classes;
  const KRule rule = options.auto_k ? options.rule : KRule::Best;
  out.k = choose_k(out.curve, rule, higher);
  // The grid grows by half a step: look between the choice and the grid
  // point below it, and choose again on the finer curve.
  const auto at = std::find(ks.begin(), ks.end(), out.k);
  if (options.auto_k && at != ks.begin() && at != ks.end()) {
    const std::vector<int> finer = refined_between(*(at - 1), out.k);
    if (!finer.empty()) {
      score_curve_at(make, data, parts, finer, ks.back(), options, callbacks, ranked, selections,
                     part_scores, out);
      out.k = choose_k(out.curve, rule, higher);
    }
  }
  for (const auto& point : out.curve) {
    if (point.k == out.k) {
      out.mean = point.mean;
      out.se = point.se;
    }
  }
  for (const auto& part : part_scores[out.k]) out.parts.push_back(part.value);
  if (parts.size() > 1)
    out.stability = mean_pairwise_kuncheva(selections[out.k], data.group_count());
  out.seconds = seconds_since(start);
  return out;
}

nlohmann::json describe_choice(const std::vector<CandidateScore>& scores, std::size_t chosen,
                               const AutoOptions& options, const std::vector<int>& ks,
                               const Dataset& data, std::size_t rows) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : scores) {
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& p : c.curve) curve.push_back({{"k", p.k}, {"mean", p.mean}, {"se", p.se}});
    candidates.push_back({{"method", c.method},
                          {"k", c.k},
                          {"mean", c.mean},
                          {"se", c.se},
                          {"stability", std::isnan(c.stability) ? nlohmann::json(nullptr)
                                                                : nlohmann::json(c.stability)},
                          {"parts", c.parts},
                          {"fits", c.fits},
                          {"seconds", c.seconds},
                          {"curve", curve}});
  }
  return {{"metric", data.target_kind == TargetKind::Classes ? "accuracy %" : "MAE"},
          {"validation",
           options.folds <= 1
               ? fmt::format("one stratified validation part of {} of the {} training rows",
                             options.validation, rows)
               : fmt::format("{} stratified folds of the {} training rows", options.folds, rows)},
          {"k_rule", options.auto_k ? to_string(options.rule) : "fixed"},
          {"k_grid", ks},
          {"candidates", candidates},
          {"method", scores[chosen].method},
          {"k", scores[chosen].k}};
}

}  // namespace

const std::vector<std::string>& auto_method_candidates() {
  static const std::vector<std::string> names = {"dnn-top", "elastic-net-top", "random-forest",
                                                 "elastic-net"};
  return names;
}

std::vector<std::string> candidate_names(const std::string& method,
                                         const std::vector<std::string>& requested) {
  if (method != "auto") {
    if (!requested.empty()) {
      throw OptionError(
          fmt::format("{} lists the methods {} chooses between; the method here is {}",
                      option_ref("candidates"), option_ref("method", "auto"), method));
    }
    return {method};
  }
  if (requested.empty()) return auto_method_candidates();
  std::vector<std::string> registered;
  for (const auto& info : registered_methods()) registered.push_back(info.name);
  std::vector<std::string> names;
  for (const auto& name : requested) {
    if (std::find(registered.begin(), registered.end(), name) == registered.end()) {
      throw OptionError(fmt::format("{}: '{}' is not a method; the methods are {}",
                                    option_ref("candidates"), name, fmt::join(registered, ", ")));
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      throw OptionError(fmt::format("{}: {} is listed twice", option_ref("candidates"), name));
    }
    names.push_back(name);
  }
  return names;
}

std::vector<SelectorFactory> candidate_factories(
    const std::vector<std::string>& names,
    const std::vector<std::pair<std::string, std::string>>& options) {
  for (const auto& given : options) {
    const std::string& option = given.first;  // a structured binding cannot be captured
    const bool used = std::any_of(names.begin(), names.end(), [&](const std::string& name) {
      return make_selector(name)->has_option(option);
    });
    if (!used) {
      throw OptionError(fmt::format("{} does not apply to any of the methods {}",
                                    option_ref(option), fmt::join(names, ", ")));
    }
  }
  std::vector<SelectorFactory> factories;
  for (const auto& name : names) {
    factories.push_back([name, options] {
      auto selector = make_selector(name);
      for (const auto& [option, value] : options) {
        if (selector->has_option(option)) selector->set_option(option, value);
      }
      return selector;
    });
    factories.back()()->check_options();  // a bad value fails before any data is read
  }
  return factories;
}

std::size_t choose_method(const std::vector<CandidateScore>& scores, bool higher_is_better) {
  TOPKFS_ASSERT(!scores.empty());
  const auto better = [&](double a, double b) { return higher_is_better ? a > b : a < b; };
  std::size_t best = 0;
  for (std::size_t c = 1; c < scores.size(); ++c) {
    if (better(scores[c].mean, scores[best].mean)) best = c;
  }
  if (std::isnan(scores[best].stability)) return best;
  std::size_t chosen = best;
  for (std::size_t c = 0; c < scores.size(); ++c) {
    const auto& s = scores[c];
    // One standard error either side of each: the two intervals overlap.
    const bool near = std::abs(s.mean - scores[best].mean) <= s.se + scores[best].se;
    if (!near || std::isnan(s.stability)) continue;
    const auto& held = scores[chosen];
    if (s.stability > held.stability ||
        (s.stability == held.stability && better(s.mean, held.mean))) {
      chosen = c;
    }
  }
  return chosen;
}

int resolved_folds(int folds, std::size_t rows, std::size_t candidates) {
  if (folds > 0) return folds;
  if (static_cast<std::int64_t>(rows) < kFewTrainingRows) return kSmallDataFolds;
  return candidates > 1 ? kMethodChoiceFolds : 1;
}

KRule parse_k_rule(const std::string& name) {
  return parse_enum(name, kKRuleNames, option_ref("k-rule").c_str());
}
const char* to_string(KRule rule) { return enum_name(rule, kKRuleNames); }

std::vector<int> k_grid(int k_max) {
  std::vector<int> grid;
  double k = 1.0;
  while (static_cast<int>(std::lround(k)) < k_max) {
    const int next = static_cast<int>(std::lround(k));
    if (grid.empty() || grid.back() != next) grid.push_back(next);
    k *= 1.5;
  }
  if (grid.empty() || grid.back() != k_max) grid.push_back(k_max);
  return grid;
}

int choose_k(const std::vector<KCurvePoint>& curve, KRule rule, bool higher_is_better) {
  TOPKFS_ASSERT(!curve.empty());
  const auto better = [&](double a, double b) { return higher_is_better ? a > b : a < b; };
  const KCurvePoint* best = &curve.front();
  for (const auto& point : curve) {
    if (better(point.mean, best->mean)) best = &point;
  }
  if (rule == KRule::Best) return best->k;
  const double bound = higher_is_better ? best->mean - best->se : best->mean + best->se;
  for (const auto& point : curve) {  // in increasing k
    if (higher_is_better ? point.mean >= bound : point.mean <= bound) return point.k;
  }
  return best->k;
}

SelectionResult run_auto_selection(const Dataset& data,
                                   const std::vector<SelectorFactory>& candidates,
                                   const std::vector<std::int64_t>& rows, const AutoOptions& given,
                                   const FitCallbacks& callbacks) {
  AutoOptions options = given;
  options.folds = resolved_folds(given.folds, rows.size(), candidates.size());
  // The fits and the downstream models set the thread counts; put back after.
  const ThreadSettingsScope thread_settings;
  TOPKFS_ASSERT(!candidates.empty());
  if (data.target_kind == TargetKind::None) {
    throw DataError(fmt::format("{}: choosing k or the method needs a target", data.source));
  }
  const std::vector<Split> parts = auto_validation_parts(data, rows, options);
  const std::int64_t count = selectable_count(data, parts.front().train);
  std::vector<int> ks;
  if (options.auto_k) {
    const std::int64_t k_max =
        options.k_max > 0 ? options.k_max : std::min<std::int64_t>(count, 100);
    if (k_max > count) {
      throw OptionError(fmt::format("{} is out of range: {} has {} columns to select",
                                    option_ref("k-max", k_max), data.source, count));
    }
    ks = k_grid(static_cast<int>(k_max));
  } else {
    ks = {options.k};
  }
  std::vector<CandidateScore> scores;
  std::vector<std::string> skipped;
  for (const auto& make : candidates) {
    try {
      scores.push_back(score_candidate(make, data, parts, ks, options, callbacks));
    } catch (const DataError& error) {
      if (candidates.size() == 1) throw;
      skipped.push_back(fmt::format("{} ({})", make()->name(), error.what()));
      continue;
    }
    const auto& s = scores.back();
    callbacks.info(fmt::format(
        "auto: {} chooses k = {}: {} {:.4g} +- {:.2g} on validation{} ({} fits, {:.1f} s)",
        s.method, s.k, data.target_kind == TargetKind::Classes ? "accuracy %" : "MAE", s.mean, s.se,
        std::isnan(s.stability) ? "" : fmt::format(", stability {:.3f}", s.stability), s.fits,
        s.seconds));
  }
  if (scores.empty()) {
    throw DataError(fmt::format("{}: no candidate method could be fitted: {}", data.source,
                                fmt::join(skipped, "; ")));
  }
  const bool higher = data.target_kind == TargetKind::Classes;
  const std::size_t chosen = choose_method(scores, higher);
  std::unique_ptr<Selector> selector;
  for (const auto& make : candidates) {
    auto made = make();
    if (made->name() == scores[chosen].method) selector = std::move(made);
  }
  SelectionResult result = fit_table(*selector, data, rows, scores[chosen].k, callbacks);
  result.automatic = describe_choice(scores, chosen, options, ks, data, rows.size());
  result.notes.push_back(fmt::format(
      "chosen on the training rows ({}): {}k = {} ({} {:.4g} +- {:.2g}{})",
      (*result.automatic)["validation"].get<std::string>(),
      candidates.size() > 1 ? fmt::format("method {} of {}, ", scores[chosen].method, scores.size())
                            : "",
      scores[chosen].k, higher ? "accuracy %" : "MAE", scores[chosen].mean, scores[chosen].se,
      options.auto_k
          ? fmt::format(", the {} rule over k = {}", to_string(options.rule), fmt::join(ks, ", "))
          : ""));
  if (given.folds == 0 && options.folds > 1) {
    result.notes.push_back(fmt::format(
        "auto: {} validation folds rather than one part, as {} ({} for one part)", options.folds,
        static_cast<std::int64_t>(rows.size()) < kFewTrainingRows
            ? fmt::format("the training rows are fewer than {}", kFewTrainingRows)
            : "the choice between methods reads the stability of each one's selection over "
              "the folds",
        option_ref("k-folds", 1)));
  }
  for (const auto& note : skipped) result.notes.push_back("auto: skipped " + note);
  return result;
}

RgbImage draw_auto_curves(const nlohmann::json& automatic, const std::string& data_name) {
  LineChart chart;
  const std::string metric = automatic.at("metric").get<std::string>();
  chart.title =
      fmt::format("{}: validation on the training rows, chosen {} with k = {}", data_name,
                  automatic.at("method").get<std::string>(), automatic.at("k").get<int>());
  chart.x_label = "k (number of selected features)";
  chart.y_label = metric;
  for (const auto& candidate : automatic.at("candidates")) {
    ChartSeries series;
    series.name = candidate.at("method").get<std::string>();
    for (const auto& point : candidate.at("curve")) {
      series.x.push_back(point.at("k").get<double>());
      series.y.push_back(point.at("mean").get<double>());
      series.error.push_back(point.at("se").get<double>());
    }
    chart.series.push_back(std::move(series));
  }
  const std::string method = automatic.at("method").get<std::string>();
  const int k = automatic.at("k").get<int>();
  for (const auto& candidate : automatic.at("candidates")) {
    if (candidate.at("method") != method) continue;
    ChartSeries chosen;
    chosen.name = fmt::format("chosen: k = {}", k);
    chosen.x = {static_cast<double>(k)};
    chosen.y = {candidate.at("mean").get<double>()};
    chart.series.push_back(std::move(chosen));
  }
  return draw_line_chart(chart);
}

}  // namespace topkfs
