#include "topkfs/evaluation/report_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/json_field.hpp"

namespace topkfs {
namespace {

// Decimals of one method's column of the table. Every cell of a column uses
// the same number of decimals, so that the numbers line up and compare at a
// glance: accuracy and F1 in percent with two, Kuncheva with three, MAE with
// the decimals that give the column's largest mean four significant digits
// (47.81 ± 0.92 above 45.80 ± 0.70, not 45.8 ± 0.704), whatever the scale of
// the target.
int column_decimals(const MethodSummary& method, Protocol protocol) {
  if (protocol == Protocol::Stability) return 3;
  if (protocol != Protocol::Mae) return 2;
  double largest = 0.0;
  for (const auto& s : method.per_k) {
    if (s.count > 0 && std::isfinite(s.mean)) largest = std::max(largest, std::fabs(s.mean));
  }
  if (method.over_k.count > 0 && std::isfinite(method.over_k.mean)) {
    largest = std::max(largest, std::fabs(method.over_k.mean));
  }
  if (largest == 0.0) return 3;
  constexpr int significant = 4;
  const int integer_digits = static_cast<int>(std::floor(std::log10(largest))) + 1;
  return std::clamp(significant - integer_digits, 0, 12);
}

std::string number(double value, int decimals) {
  if (std::isnan(value)) return "-";
  return fmt::format("{:.{}f}", value, decimals);
}

std::string cell(const ScoreSummary& s, int decimals) {
  if (s.count == 0) return "-";
  if (s.count == 1) return number(s.mean, decimals);
  return fmt::format("{} ± {}", number(s.mean, decimals), number(s.std, decimals));
}

std::string stability_cell(const StabilitySummary& s) {
  return fmt::format("J {:.3f} / K {:.3f}", s.jaccard, s.kuncheva);
}

// Columns padded to their widest cell (counting UTF-8 code points, for "±").
std::string aligned(const std::vector<std::vector<std::string>>& rows) {
  auto width = [](const std::string& text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
  };
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t j = 0; j < row.size(); ++j) widths[j] = std::max(widths[j], width(row[j]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t j = 0; j < row.size(); ++j) {
      const std::size_t pad = widths[j] - width(row[j]);
      line += j == 0 ? row[j] + std::string(pad, ' ') : "  " + std::string(pad, ' ') + row[j];
    }
    out += line + "\n";
  }
  return out;
}

nlohmann::ordered_json summary_json(const ScoreSummary& s) {
  return {{"mean", std::isnan(s.mean) ? nlohmann::ordered_json() : nlohmann::ordered_json(s.mean)},
          {"std", std::isnan(s.std) ? nlohmann::ordered_json() : nlohmann::ordered_json(s.std)},
          {"count", s.count}};
}

}  // namespace

std::string report_table(const EvaluationReport& report) {
  const bool stability = report.protocol == Protocol::Stability;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"k"};
  std::vector<int> decimals;
  for (const auto& m : report.methods) {
    header.push_back(m.method);
    decimals.push_back(column_decimals(m, report.protocol));
  }
  rows.push_back(header);
  for (std::size_t i = 0; i < report.ks.size(); ++i) {
    std::vector<std::string> row = {k_label(report.ks[i])};
    for (std::size_t c = 0; c < report.methods.size(); ++c) {
      const auto& m = report.methods[c];
      row.push_back(stability ? stability_cell(m.stability_per_k[i])
                              : cell(m.per_k[i], decimals[c]));
    }
    rows.push_back(row);
  }
  if (report.ks.size() > 1) {
    std::vector<std::string> row = {"all k"};
    for (std::size_t c = 0; c < report.methods.size(); ++c) {
      const auto& m = report.methods[c];
      row.push_back(stability ? stability_cell(m.stability_over_k) : cell(m.over_k, decimals[c]));
    }
    rows.push_back(row);
  }
  std::vector<std::string> time_row = {"fit s"};
  for (const auto& m : report.methods) time_row.push_back(fmt::format("{:.1f}", m.fit_seconds));
  rows.push_back(time_row);

  std::string text =
      fmt::format("{} ({}), {} run{}, {}\n", report.metric,
                  stability ? "J = mean pairwise Jaccard, K = Kuncheva index"
                            : (report.higher_is_better ? "higher is better" : "lower is better"),
                  report.seeds, report.seeds == 1 ? "" : "s", report.split_note);
  return text + aligned(rows);
}

nlohmann::ordered_json report_to_json(const EvaluationReport& report) {
  nlohmann::ordered_json methods = nlohmann::ordered_json::array();
  for (const auto& m : report.methods) {
    nlohmann::ordered_json per_k = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < report.ks.size(); ++i) {
      nlohmann::ordered_json entry = summary_json(m.per_k[i]);
      entry["k"] = report.ks[i];
      if (!m.stability_per_k.empty()) {
        entry["jaccard"] = m.stability_per_k[i].jaccard;
        entry["kuncheva"] = m.stability_per_k[i].kuncheva;
      }
      per_k.push_back(entry);
    }
    nlohmann::ordered_json method = {{"method", m.method},
                                     {"per_k", per_k},
                                     {"over_k", summary_json(m.over_k)},
                                     {"fit_seconds", m.fit_seconds}};
    if (!m.scaling.empty()) method["scaling"] = m.scaling;
    if (report.protocol == Protocol::Stability) {
      method["over_k"]["jaccard"] = m.stability_over_k.jaccard;
      method["over_k"]["kuncheva"] = m.stability_over_k.kuncheva;
      method["selection_frequency"] = m.selection_frequency;
    }
    methods.push_back(method);
  }
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& r : report.runs) {
    nlohmann::ordered_json run = {
        {"method", r.method},
        {"k", r.k},
        {"run", r.run},
        {"seed", r.seed},
        {"score", std::isnan(r.score) ? nlohmann::ordered_json() : nlohmann::ordered_json(r.score)},
        {"fit_seconds", r.fit_seconds},
        {"score_seconds", r.score_seconds},
        {"shared_fit", r.shared_fit},
        {"selected", r.selected}};
    if (r.rmse) run["rmse"] = *r.rmse;
    if (!r.chosen_method.empty()) run["chosen_method"] = r.chosen_method;
    if (r.k == kAutoK) run["chosen_k"] = r.chosen_k;
    if (r.automatic) run["automatic"] = *r.automatic;
    runs.push_back(run);
  }
  // topkfs_version and started_utc are empty in a report written before
  // 2026-12-07 and read back.
  return {{"format", "topkfs-evaluation"},
          {"version", 1},
          {"topkfs_version", report.topkfs_version},
          {"started_utc", report.started_utc},
          {"data",
           {{"path", report.data.path},
            {"rows", report.data.rows},
            {"columns", report.data.columns},
            {"target_kind", report.data.target_kind}}},
          {"protocol", to_string(report.protocol)},
          {"metric", report.metric},
          {"higher_is_better", report.higher_is_better},
          {"ks", report.ks},
          {"seeds", report.seeds},
          {"split", report.split_note},
          {"notes", report.notes},
          {"wall_seconds", report.wall_seconds},
          {"methods", methods},
          {"runs", runs}};
}

void write_report_json(const std::string& path, const EvaluationReport& report) {
  write_file_atomically(path, json_field::indented_text(report_to_json(report)) + "\n");
}

void write_report_csv(const std::string& path, const EvaluationReport& report) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "method,k,run,seed,score,rmse,fit_seconds,score_seconds,shared_fit,selected,"
           "chosen_method,chosen_k\n";
    for (const auto& r : report.runs) {
      out << fmt::format("{},{},{},{},{},{},{:.4f},{:.4f},{},\"{}\",{},{}\n", r.method,
                         k_label(r.k), r.run, r.seed,
                         std::isnan(r.score) ? "" : fmt::format("{:.6g}", r.score),
                         r.rmse ? fmt::format("{:.6g}", *r.rmse) : "", r.fit_seconds,
                         r.score_seconds, r.shared_fit ? 1 : 0, fmt::join(r.selected, " "),
                         r.chosen_method, r.k == kAutoK ? std::to_string(r.chosen_k) : "");
    }
  });
}

}  // namespace topkfs
