// The line chart of a score against k: series as lines with markers and
// error bars, clipped to the plot area, and the legend beside it.
#include "topkfs/pictures/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "chart_axes.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {

using namespace chart;

namespace {

constexpr Rgb kLegendBorder{190, 190, 190};
constexpr int kMarkerRadius = 4;
constexpr int kLegendRow = 16;
constexpr int kLegendSwatch = 24;
constexpr int kLegendTextWidth = 20 * kGlyphAdvance;
// Beyond this many points a series is a curve, and markers would merge into
// a thick smear.
constexpr std::size_t kMaxMarkedPoints = 40;

bool in_marker(MarkerShape shape, int dx, int dy, int r) {
  const int ax = std::abs(dx);
  const int ay = std::abs(dy);
  switch (shape) {
    case MarkerShape::Circle: return dx * dx + dy * dy <= r * r + r;
    case MarkerShape::Square: return ax < r && ay < r;
    case MarkerShape::TriangleUp: return 2 * ax <= dy + r;
    case MarkerShape::Diamond: return ax + ay <= r;
    case MarkerShape::TriangleDown: return 2 * ax <= r - dy;
    case MarkerShape::Plus: return ax <= 1 || ay <= 1;
    case MarkerShape::Cross: return std::abs(ax - ay) <= 1;
    case MarkerShape::Star: return ax <= 1 || ay <= 1 || ax == ay;
  }
  return false;
}

void draw_marker(RgbImage& image, int x, int y, MarkerShape shape, Rgb color) {
  for (int dy = -kMarkerRadius; dy <= kMarkerRadius; ++dy) {
    for (int dx = -kMarkerRadius; dx <= kMarkerRadius; ++dx) {
      if (in_marker(shape, dx, dy, kMarkerRadius)) image.set(x + dx, y + dy, color);
    }
  }
}

// The indices of the points of `s`, in order of x (points without a finite
// x are dropped).
std::vector<std::size_t> points_by_x(const ChartSeries& s) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    if (finite(s.x[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
  return order;
}

void draw_error_bars(RgbImage& canvas, const ChartLayout& layout, const ChartSeries& s, Rgb color) {
  for (std::size_t i = 0; i < s.error.size() && i < s.y.size(); ++i) {
    if (!finite(s.x[i]) || !finite(s.y[i]) || !finite(s.error[i])) continue;
    const auto low = layout.to_pixel(s.x[i], s.y[i] - std::abs(s.error[i]));
    const auto high = layout.to_pixel(s.x[i], s.y[i] + std::abs(s.error[i]));
    draw_line(canvas, low.x, low.y, high.x, high.y, color);
    draw_line(canvas, low.x - 4, low.y, low.x + 4, low.y, color);
    draw_line(canvas, high.x - 4, high.y, high.x + 4, high.y, color);
  }
}

// Lines between consecutive points with a finite y; a missing y breaks the line.
void draw_polyline(RgbImage& canvas, const ChartLayout& layout, const ChartSeries& s, Rgb color) {
  std::optional<ChartLayout::Pixel> previous;
  for (std::size_t i : points_by_x(s)) {
    if (!finite(s.y[i])) {
      previous.reset();
      continue;
    }
    const auto point = layout.to_pixel(s.x[i], s.y[i]);
    if (previous) draw_line(canvas, previous->x, previous->y, point.x, point.y, color, 2);
    previous = point;
  }
}

void draw_markers(RgbImage& canvas, const ChartLayout& layout, const ChartSeries& s,
                  std::size_t index) {
  if (s.x.size() > kMaxMarkedPoints) return;
  for (std::size_t i : points_by_x(s)) {
    if (!finite(s.y[i])) continue;
    const auto point = layout.to_pixel(s.x[i], s.y[i]);
    draw_marker(canvas, point.x, point.y, series_marker(index), series_color(index));
  }
}

// Series are drawn on a copy of the plot area so that whatever falls outside
// a fixed y range is clipped at the frame.
void draw_all_series(RgbImage& image, const ChartLayout& layout,
                     const std::vector<ChartSeries>& series) {
  ChartLayout local = layout;
  local.plot.x = 0;
  local.plot.y = 0;
  RgbImage canvas = blank_image(layout.plot.width, layout.plot.height);
  draw_grid(canvas, local);
  for (std::size_t i = 0; i < series.size(); ++i) {
    draw_error_bars(canvas, local, series[i], series_color(i));
    draw_polyline(canvas, local, series[i], series_color(i));
  }
  // Markers last, so that no line hides a point.
  for (std::size_t i = 0; i < series.size(); ++i) draw_markers(canvas, local, series[i], i);
  blit(image, canvas, layout.plot.x, layout.plot.y);
}

std::vector<std::string> legend_names(const std::vector<ChartSeries>& series) {
  std::vector<std::string> names;
  for (const auto& s : series) names.push_back(fit_text(s.name, kLegendTextWidth));
  return names;
}

bool has_legend(const std::vector<ChartSeries>& series) {
  return std::any_of(series.begin(), series.end(),
                     [](const ChartSeries& s) { return !s.name.empty(); });
}

void draw_legend(RgbImage& image, const ChartLayout& layout,
                 const std::vector<ChartSeries>& series) {
  if (layout.legend.width == 0) return;
  const PixelRect& box = layout.legend;
  draw_rect(image, box.x, box.y, box.width, box.height, kLegendBorder);
  const auto names = legend_names(series);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const int top = box.y + 8 + static_cast<int>(i) * kLegendRow;
    const int middle = top + 3;
    draw_line(image, box.x + 8, middle, box.x + 8 + kLegendSwatch, middle, series_color(i), 2);
    draw_marker(image, box.x + 8 + kLegendSwatch / 2, middle, series_marker(i), series_color(i));
    draw_text(image, box.x + 16 + kLegendSwatch, top, names[i], {kTextColor});
  }
}

void check_series(const LineChart& chart) {
  for (const auto& s : chart.series) {
    if (s.x.size() != s.y.size() || (!s.error.empty() && s.error.size() != s.y.size())) {
      throw OptionError(fmt::format(
          "chart '{}', series '{}': {} x values, {} y values and {} errors; give one y (and one "
          "error, or none) per x",
          chart.title, s.name, s.x.size(), s.y.size(), s.error.size()));
    }
  }
}

}  // namespace

Rgb series_color(std::size_t index) {
  // Okabe & Ito (2008), yellow last: it is the palest on white.
  static constexpr std::array<Rgb, 8> kPalette{{{0, 114, 178},
                                                {230, 159, 0},
                                                {0, 158, 115},
                                                {213, 94, 0},
                                                {86, 180, 233},
                                                {204, 121, 167},
                                                {0, 0, 0},
                                                {240, 228, 66}}};
  return kPalette[index % kPalette.size()];
}

MarkerShape series_marker(std::size_t index) {
  static constexpr std::array<MarkerShape, 8> kShapes{
      MarkerShape::Circle,       MarkerShape::Square, MarkerShape::TriangleUp, MarkerShape::Diamond,
      MarkerShape::TriangleDown, MarkerShape::Plus,   MarkerShape::Cross,      MarkerShape::Star};
  return kShapes[index % kShapes.size()];
}

ChartLayout layout_line_chart(const LineChart& chart) {
  check_size(chart.width, chart.height, fmt::format("chart '{}'", chart.title));
  check_series(chart);
  ChartLayout layout;
  set_x_axis(chart.series, layout);
  set_y_axis(chart, layout);
  Margins margins;
  margins.top = title_band(chart.title);
  margins.left = left_band(chart.y_label, tick_labels(layout.y_ticks, true));
  margins.bottom =
      kTickLength + 4 + text_height() + 10 + (chart.x_label.empty() ? 0 : text_height() + 10);
  int legend_width = 0;
  if (has_legend(chart.series)) {
    legend_width = 24 + kLegendSwatch + widest(legend_names(chart.series));
  }
  margins.right = legend_width > 0 ? 16 + legend_width + 12 : 24;
  layout.plot = plot_area(chart.width, chart.height, margins);
  if (layout.plot.width < 60 || layout.plot.height < 40) {
    throw OptionError(
        fmt::format("chart '{}': {}x{} pixels leave no room for the plot beside "
                    "the labels and the legend; make the picture larger",
                    chart.title, chart.width, chart.height));
  }
  if (legend_width > 0) {
    layout.legend = {layout.plot.x + layout.plot.width + 16, layout.plot.y, legend_width,
                     12 + static_cast<int>(chart.series.size()) * kLegendRow};
  }
  return layout;
}

RgbImage draw_line_chart(const LineChart& chart) {
  const ChartLayout layout = layout_line_chart(chart);
  RgbImage image = blank_image(chart.width, chart.height);
  draw_all_series(image, layout, chart.series);
  const bool listed_x = distinct_x(chart.series).size() <= kMaxListedTicks;
  draw_axes(image, layout, !listed_x, true);
  const int x_label_top = layout.plot.y + layout.plot.height + kTickLength + 4 + text_height() + 8;
  draw_labels(image, layout, chart.title, chart.x_label, chart.y_label, x_label_top);
  draw_legend(image, layout, chart.series);
  return image;
}

}  // namespace topkfs
