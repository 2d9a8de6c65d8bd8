#include "topkfs/evaluation/report_pictures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/pictures/chart.hpp"

namespace topkfs {
namespace {

// The mean of the k that `method`'s runs at k auto chose.
double mean_chosen_k(const EvaluationReport& report, const std::string& method) {
  double sum = 0.0;
  int count = 0;
  for (const auto& run : report.runs) {
    if (run.method == method && run.k == kAutoK) {
      sum += run.chosen_k;
      ++count;
    }
  }
  return count > 0 ? sum / count : 0.0;
}

}  // namespace

RgbImage draw_score_curve(const EvaluationReport& report, const std::string& data_name) {
  const bool stability = report.protocol == Protocol::Stability;
  LineChart chart;
  chart.title = fmt::format("{} of {} run{}, {}", stability ? "Stability" : report.metric,
                            report.seeds, report.seeds == 1 ? "" : "s", data_name);
  chart.x_label = "k (number of selected features)";
  chart.y_label = stability ? "Kuncheva index (1 = same features every run)" : report.metric;
  for (const auto& method : report.methods) {
    // (k, score, spread), k auto drawn at the mean k it chose.
    std::vector<std::array<double, 3>> points;
    for (std::size_t i = 0; i < report.ks.size(); ++i) {
      const double x = report.ks[i] == kAutoK ? mean_chosen_k(report, method.method) : report.ks[i];
      if (stability) {
        points.push_back({x, method.stability_per_k[i].kuncheva, 0.0});
      } else {
        points.push_back(
            {x, method.per_k[i].mean, method.per_k[i].count > 1 ? method.per_k[i].std : 0.0});
      }
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const auto& a, const auto& b) { return a[0] < b[0]; });
    ChartSeries series;
    series.name = method.method;
    for (const auto& [x, y, spread] : points) {
      series.x.push_back(x);
      series.y.push_back(y);
      if (!stability) series.error.push_back(spread);
    }
    chart.series.push_back(std::move(series));
  }
  if (stability) chart.y_max = 1.0;
  return draw_line_chart(chart);
}

namespace {

int largest_k(const EvaluationReport& report) {
  return *std::max_element(report.ks.begin(), report.ks.end());
}

}  // namespace

RgbImage draw_method_selections(const Dataset& data, const EvaluationReport& report) {
  if (!data.image_shape) {
    throw OptionError(fmt::format("{} needs image data: {} carries no image shape; give {}",
                                  option_ref("picture"), data.source,
                                  option_ref("image-shape", "HxW")));
  }
  const int k = largest_k(report);
  std::vector<CaptionedSelection> panels;
  for (const auto& method : report.methods) {
    for (const auto& run : report.runs) {
      if (run.method == method.method && run.k == k && run.run == 0) {
        panels.push_back({fmt::format("{}, k={}", method.method, k_label(k)), run.selected});
        break;
      }
    }
  }
  return draw_selection_grid(data, {}, panels);
}

RgbImage draw_method_frequency(const Dataset& data, const EvaluationReport& report,
                               const MethodSummary& method) {
  const std::string title = fmt::format("{}: how often each feature was chosen ({} runs, k={})",
                                        method.method, report.seeds, largest_k(report));
  return draw_frequency_map(frequency_map_of(data, method.selection_frequency, title));
}

}  // namespace topkfs
