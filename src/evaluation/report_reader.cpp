// Evaluation reports read back from JSON and merged (`topkfs report`), so
// that methods run at different times share one table and one plot.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <tuple>

#include "topkfs/core/error.hpp"
#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/evaluation/report_io.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/json_field.hpp"

namespace topkfs {
namespace {

using nlohmann::json;

// The field `key` of `object` as T, or DataError naming the file and field;
// a null score reads as NaN (a score that does not exist).
template <typename T>
T field(const json& object, const char* key, const std::string& where) {
  if constexpr (std::is_same_v<T, double>) {
    if (object.is_object() && object.contains(key) && object.at(key).is_null()) {
      return std::nan("");
    }
  }
  return json_field::get<T>(object, key, where, "an evaluation report");
}

ScoreSummary summary_from(const json& object, const std::string& where) {
  return {field<double>(object, "mean", where), field<double>(object, "std", where),
          field<int>(object, "count", where)};
}

MethodSummary method_from(const json& object, Protocol protocol, const std::string& where) {
  MethodSummary method;
  method.method = field<std::string>(object, "method", where);
  method.fit_seconds = field<double>(object, "fit_seconds", where);
  if (object.contains("scaling")) method.scaling = field<std::string>(object, "scaling", where);
  const bool stability = protocol == Protocol::Stability;
  for (const auto& entry : field<json>(object, "per_k", where)) {
    method.per_k.push_back(summary_from(entry, where));
    if (stability) {
      method.stability_per_k.push_back(
          {field<double>(entry, "jaccard", where), field<double>(entry, "kuncheva", where)});
    }
  }
  const json over = field<json>(object, "over_k", where);
  method.over_k = summary_from(over, where);
  if (stability) {
    method.stability_over_k = {field<double>(over, "jaccard", where),
                               field<double>(over, "kuncheva", where)};
    method.selection_frequency = field<std::vector<double>>(object, "selection_frequency", where);
  }
  return method;
}

EvaluationRun run_from(const json& object, const std::string& where) {
  EvaluationRun run;
  run.method = field<std::string>(object, "method", where);
  run.k = field<int>(object, "k", where);
  run.run = field<int>(object, "run", where);
  run.seed = field<std::uint64_t>(object, "seed", where);
  run.score = field<double>(object, "score", where);
  if (object.contains("rmse")) run.rmse = field<double>(object, "rmse", where);
  run.fit_seconds = field<double>(object, "fit_seconds", where);
  run.score_seconds = field<double>(object, "score_seconds", where);
  run.shared_fit = field<bool>(object, "shared_fit", where);
  run.selected = field<std::vector<std::int64_t>>(object, "selected", where);
  if (object.contains("chosen_method"))
    run.chosen_method = field<std::string>(object, "chosen_method", where);
  if (object.contains("chosen_k")) run.chosen_k = field<int>(object, "chosen_k", where);
  if (object.contains("automatic")) run.automatic = object.at("automatic");
  return run;
}

// The same file reached by two paths is the same data: reports written from
// two checkouts beside one data folder name it a/../data/x.csv and
// b/../data/x.csv. Symbolic links are followed where the files exist.
bool same_data(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code error_a, error_b;
  const auto canonical_a = std::filesystem::weakly_canonical(a, error_a);
  const auto canonical_b = std::filesystem::weakly_canonical(b, error_b);
  if (error_a || error_b) {
    return std::filesystem::path(a).lexically_normal() ==
           std::filesystem::path(b).lexically_normal();
  }
  return canonical_a == canonical_b;
}

// What keeps two reports out of one table, whose one header describes the
// data, the protocol, the k values, the split and the runs: "" when nothing
// does.
std::string grid_difference(const EvaluationReport& here, const EvaluationReport& there) {
  if (!same_data(here.data.path, there.data.path)) {
    return fmt::format("the data differ ({} here, {} there)", here.data.path, there.data.path);
  }
  if (here.protocol != there.protocol) {
    return fmt::format("the protocols differ ({} here, {} there)", to_string(here.protocol),
                       to_string(there.protocol));
  }
  if (here.ks != there.ks) {
    return fmt::format("the k values differ ({} here, {} there)", fmt::join(here.ks, ","),
                       fmt::join(there.ks, ","));
  }
  if (here.data.rows != there.data.rows || here.data.columns != there.data.columns) {
    return fmt::format("the data differ ({} rows x {} columns here, {} x {} there)", here.data.rows,
                       here.data.columns, there.data.rows, there.data.columns);
  }
  if (here.split_note != there.split_note) {
    return fmt::format("the splits differ ('{}' here, '{}' there)", here.split_note,
                       there.split_note);
  }
  if (here.seeds != there.seeds) {
    return fmt::format("the runs differ ({} per method and k here, {} there)", here.seeds,
                       there.seeds);
  }
  return "";
}

bool same_score(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b));
}

// A report that contradicts itself would make a table that misleads: the
// grid must be a grid (k at least 1, each once; each method summarised
// once), every run must belong to it, and each method's summary must be
// what its runs give.
void check_report(const EvaluationReport& report, const std::string& path) {
  if (report.ks.empty()) throw DataError(fmt::format("{}: 'ks' is empty", path));
  std::set<int> ks;
  for (int k : report.ks) {  // kAutoK (0): k chosen in every run
    if ((k < 1 && k != kAutoK) || !ks.insert(k).second) {
      throw DataError(
          fmt::format("{}: 'ks' holds k = {} {}", path, k, k < 1 ? "(k is at least 1)" : "twice"));
    }
  }
  if (report.seeds < 1) {
    throw DataError(
        fmt::format("{}: 'seeds' is {}; a report holds at least one run", path, report.seeds));
  }
  std::set<std::string> methods;
  for (const auto& method : report.methods) {
    if (!methods.insert(method.method).second) {
      throw DataError(fmt::format("{}: method {} is summarised twice", path, method.method));
    }
  }
  // Detection selects among the columns and as many noise copies
  // (evaluation.hpp), the other protocols among the columns (or groups).
  const std::int64_t selectable =
      report.protocol == Protocol::Detection ? 2 * report.data.columns : report.data.columns;
  std::set<std::tuple<std::string, int, int>> runs;
  for (const auto& run : report.runs) {
    const std::string where = fmt::format("{}: the run of {} at k = {}, run {}", path, run.method,
                                          k_label(run.k), run.run);
    if (methods.count(run.method) == 0) {
      throw DataError(fmt::format("{}: its method has no summary", where));
    }
    if (ks.count(run.k) == 0 || run.run < 0 || run.run >= report.seeds) {
      throw DataError(fmt::format("{}: outside the grid (k in {}, runs 0..{})", where,
                                  fmt::join(report.ks, ","), report.seeds - 1));
    }
    if (!runs.insert({run.method, run.k, run.run}).second) {
      throw DataError(fmt::format("{}: given twice", where));
    }
    if (run.k == kAutoK && (run.chosen_k < 1 || run.chosen_k > selectable)) {
      throw DataError(
          fmt::format("{}: its chosen k ({}) is not in 1..{}", where, run.chosen_k, selectable));
    }
    for (auto column : run.selected) {
      if (column < 0 || column >= selectable) {
        throw DataError(fmt::format("{}: selects column {} of {}{}", where, column, selectable,
                                    report.protocol == Protocol::Detection
                                        ? " (the columns and as many noise columns)"
                                        : ""));
      }
    }
  }
  for (const auto& method : report.methods) {
    const MethodSummary recomputed = summarise_method(report, method.method, selectable);
    for (std::size_t i = 0; i < report.ks.size(); ++i) {
      const ScoreSummary& read = method.per_k[i];
      const ScoreSummary& runs_give = recomputed.per_k[i];
      if (read.count != runs_give.count || !same_score(read.mean, runs_give.mean)) {
        throw DataError(fmt::format(
            "{}: method {} at k = {}: the summary says mean {} over {} runs, its runs give {} "
            "over {}",
            path, method.method, report.ks[i], read.mean, read.count, runs_give.mean,
            runs_give.count));
      }
    }
  }
}

}  // namespace

EvaluationReport read_report_json(const std::string& path) {
  const json object = json_field::parse(read_file_bytes(path), path);
  const bool is_report =
      object.is_object() && object.contains("format") && object.at("format") == "topkfs-evaluation";
  if (!is_report) {
    throw DataError(
        fmt::format("{}: not an evaluation report (written by `topkfs evaluate --output`)", path));
  }
  EvaluationReport report;
  const json data = field<json>(object, "data", path);
  report.data = {field<std::string>(data, "path", path), field<std::int64_t>(data, "rows", path),
                 field<std::int64_t>(data, "columns", path),
                 field<std::string>(data, "target_kind", path)};
  try {
    report.protocol = parse_protocol(field<std::string>(object, "protocol", path));
  } catch (const OptionError& error) {  // a protocol named in a file is the file's error
    throw DataError(fmt::format("{}: {}", path, error.what()));
  }
  report.metric = field<std::string>(object, "metric", path);
  report.higher_is_better = field<bool>(object, "higher_is_better", path);
  report.ks = field<std::vector<int>>(object, "ks", path);
  report.seeds = field<int>(object, "seeds", path);
  report.split_note = field<std::string>(object, "split", path);
  report.notes = field<std::vector<std::string>>(object, "notes", path);
  report.wall_seconds = field<double>(object, "wall_seconds", path);
  if (object.contains("topkfs_version")) {
    report.topkfs_version = field<std::string>(object, "topkfs_version", path);
  }
  if (object.contains("started_utc")) {
    report.started_utc = field<std::string>(object, "started_utc", path);
  }
  for (const auto& method : field<json>(object, "methods", path)) {
    report.methods.push_back(method_from(method, report.protocol, path));
    if (report.methods.back().per_k.size() != report.ks.size()) {
      throw DataError(fmt::format("{}: method {} has {} per-k entries for {} values of k", path,
                                  report.methods.back().method, report.methods.back().per_k.size(),
                                  report.ks.size()));
    }
  }
  for (const auto& run : field<json>(object, "runs", path))
    report.runs.push_back(run_from(run, path));
  check_report(report, path);
  return report;
}

EvaluationReport merge_reports(const std::vector<EvaluationReport>& reports,
                               const std::vector<std::string>& names) {
  if (reports.empty()) throw OptionError("give at least one report");
  EvaluationReport merged = reports.front();
  for (std::size_t i = 1; i < reports.size(); ++i) {
    const EvaluationReport& next = reports[i];
    const std::string difference = grid_difference(next, merged);
    if (!difference.empty()) {
      throw DataError(
          fmt::format("{}: cannot be merged with {}: {}", names[i], names[0], difference));
    }
    for (const auto& method : next.methods) {
      const auto same = [&](const auto& entry) { return entry.method == method.method; };
      merged.methods.erase(std::remove_if(merged.methods.begin(), merged.methods.end(), same),
                           merged.methods.end());
      merged.runs.erase(std::remove_if(merged.runs.begin(), merged.runs.end(), same),
                        merged.runs.end());
      merged.methods.push_back(method);
    }
    for (const auto& run : next.runs) merged.runs.push_back(run);
    merged.seeds = std::max(merged.seeds, next.seeds);
    merged.wall_seconds += next.wall_seconds;
    std::vector<std::string> notes = next.notes;
    // The merged report carries the first one's build and start: a part
    // made by another build says so (reports from before 2026-12-07 name no
    // build, and are not noted).
    if (!next.topkfs_version.empty() && !merged.topkfs_version.empty() &&
        next.topkfs_version != merged.topkfs_version) {
      notes.push_back(fmt::format("{} was made by topkfs {}, {} by {}", names[i],
                                  next.topkfs_version, names[0], merged.topkfs_version));
    }
    for (const auto& note : notes) {
      if (std::find(merged.notes.begin(), merged.notes.end(), note) == merged.notes.end()) {
        merged.notes.push_back(note);
      }
    }
  }
  return merged;
}

}  // namespace topkfs
