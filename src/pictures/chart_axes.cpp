// The axes of the charts: ranges and ticks, the margins around the plot area,
// and the frame, grid, tick labels and titles drawn around it.
#include "chart_axes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topkfs/core/error.hpp"

namespace topkfs {

std::vector<double> nice_ticks(double low, double high, int target) {
  if (!(high > low) || !std::isfinite(low) || !std::isfinite(high)) return {low};
  const double step = chart::nice_step((high - low) / std::max(1, target - 1));
  std::vector<double> ticks;
  const double first = std::ceil(low / step - 1e-9);
  for (double i = first; i * step <= high + 1e-9 * step; i += 1) ticks.push_back(i * step);
  return ticks;
}

ChartLayout::Pixel ChartLayout::to_pixel(double x, double y) const {
  const double fx = (x - x_low) / (x_high - x_low);
  const double fy = (y_high - y) / (y_high - y_low);
  // Far-away values (outside a fixed range) are clamped so that the integer
  // coordinates stay small; the plot area clips them anyway.
  const double px = std::clamp(plot.x + fx * (plot.width - 1), -1e5, 1e5);
  const double py = std::clamp(plot.y + fy * (plot.height - 1), -1e5, 1e5);
  return {static_cast<int>(std::lround(px)), static_cast<int>(std::lround(py))};
}

namespace chart {
namespace {

// Half the span of an axis whose values are all equal to `value`.
double degenerate_pad(double value) { return value != 0 ? 0.1 * std::abs(value) : 1.0; }

// The lowest and highest finite y - error and y + error over all series.
std::pair<double, double> data_y_range(const std::vector<ChartSeries>& series) {
  double low = INFINITY;
  double high = -INFINITY;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      if (!finite(s.y[i])) continue;
      const double e = i < s.error.size() && finite(s.error[i]) ? std::abs(s.error[i]) : 0.0;
      low = std::min(low, s.y[i] - e);
      high = std::max(high, s.y[i] + e);
    }
  }
  return {low, high};
}

}  // namespace

double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double residual = raw / magnitude;
  const double factor = residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10;
  return factor * magnitude;
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks, bool regular) {
  int decimals = 0;
  if (regular && ticks.size() > 1) {
    decimals = std::max(0, -static_cast<int>(std::floor(std::log10(ticks[1] - ticks[0]) + 1e-9)));
  }
  std::vector<std::string> labels;
  for (double t : ticks) {
    const double v = std::abs(t) < 1e-12 * (std::abs(ticks.back()) + 1) ? 0.0 : t;
    labels.push_back(regular ? fmt::format("{:.{}f}", v, decimals) : fmt::format("{:g}", v));
  }
  return labels;
}

int widest(const std::vector<std::string>& texts, int scale) {
  int width = 0;
  for (const auto& text : texts) width = std::max(width, text_width(text, scale));
  return width;
}

// ---------------------------------------------------------------- ranges

std::vector<double> distinct_x(const std::vector<ChartSeries>& series) {
  std::vector<double> xs;
  for (const auto& s : series) {
    for (double x : s.x) {
      if (finite(x)) xs.push_back(x);
    }
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  return xs;
}

void set_x_axis(const std::vector<ChartSeries>& series, ChartLayout& layout) {
  const std::vector<double> xs = distinct_x(series);
  if (xs.empty()) {
    layout.x_ticks = nice_ticks(0, 1);
    return;
  }
  const double low = xs.front();
  const double high = xs.back();
  // Padding keeps the first and last markers off the frame.
  const double pad = high > low ? 0.05 * (high - low) : degenerate_pad(low);
  layout.x_low = low - pad;
  layout.x_high = high + pad;
  layout.x_ticks = xs.size() <= kMaxListedTicks ? xs : nice_ticks(low, high, 8);
}

void set_y_axis(const LineChart& chart, ChartLayout& layout) {
  auto [low, high] = data_y_range(chart.series);
  if (low > high) {  // no finite value
    low = chart.y_min.value_or(chart.y_max ? *chart.y_max - 1 : 0.0);
    high = low + 1;
  }
  if (chart.y_min) low = *chart.y_min;
  if (chart.y_max) high = *chart.y_max;
  if (chart.y_min && chart.y_max && !(high > low)) {
    throw OptionError(
        fmt::format("chart '{}': the fixed y range {} .. {} is empty", chart.title, low, high));
  }
  if (chart.y_min) high = std::max(high, low);
  if (chart.y_max) low = std::min(low, high);
  const double pad = high > low ? 0.05 * (high - low) : degenerate_pad(low);
  if (!chart.y_min) low -= pad;
  if (!chart.y_max) high += pad;
  // Ends free to move are rounded out to a tick, so that the frame is labelled.
  const double step = nice_step((high - low) / 5);
  if (!chart.y_min) low = std::floor(low / step) * step;
  if (!chart.y_max) high = std::ceil(high / step) * step;
  layout.y_low = low;
  layout.y_high = high;
  layout.y_ticks = nice_ticks(low, high);
}

// ---------------------------------------------------------------- frames

int title_band(const std::string& title) {
  return title.empty() ? 16 : 14 + text_height(kTitleScale) + 12;
}

int left_band(const std::string& y_label, const std::vector<std::string>& y_tick_labels) {
  return 14 + (y_label.empty() ? 0 : text_height() + 10) + widest(y_tick_labels) + kTickLength + 4;
}

PixelRect plot_area(int width, int height, const Margins& margins) {
  return {margins.left, margins.top, width - margins.left - margins.right,
          height - margins.top - margins.bottom};
}

void check_size(int width, int height, const std::string& what) {
  if (width < 200 || height < 150) {
    throw OptionError(
        fmt::format("{}: a picture of {}x{} pixels is too small for a chart "
                    "(at least 200x150)",
                    what, width, height));
  }
}

void draw_grid(RgbImage& image, const ChartLayout& layout) {
  const PixelRect& plot = layout.plot;
  for (double t : layout.y_ticks) {
    const int y = layout.to_pixel(layout.x_low, t).y;
    draw_line(image, plot.x, y, plot.x + plot.width - 1, y, kGridColor);
  }
  for (double t : layout.x_ticks) {
    const int x = layout.to_pixel(t, layout.y_low).x;
    draw_line(image, x, plot.y, x, plot.y + plot.height - 1, kGridColor);
  }
}

void draw_axes(RgbImage& image, const ChartLayout& layout, bool regular_x, bool x_labels) {
  const PixelRect& plot = layout.plot;
  draw_rect(image, plot.x - 1, plot.y - 1, plot.width + 2, plot.height + 2, kFrameColor);
  const auto y_texts = tick_labels(layout.y_ticks, true);
  for (std::size_t i = 0; i < layout.y_ticks.size(); ++i) {
    const int y = layout.to_pixel(layout.x_low, layout.y_ticks[i]).y;
    draw_line(image, plot.x - 1 - kTickLength, y, plot.x - 2, y, kFrameColor);
    draw_text(image, plot.x - kTickLength - 4, y - 3, y_texts[i],
              {kTextColor, 1, TextAlign::Right});
  }
  if (!x_labels) return;
  const auto x_texts = tick_labels(layout.x_ticks, regular_x);
  const int bottom = plot.y + plot.height;
  int free_from = plot.x - kTickLength - 4;  // where the previous label ended
  for (std::size_t i = 0; i < layout.x_ticks.size(); ++i) {
    const int x = layout.to_pixel(layout.x_ticks[i], layout.y_low).x;
    draw_line(image, x, bottom + 1, x, bottom + kTickLength, kFrameColor);
    // Given k values may crowd (10, 11, 500): a label that would overlap the
    // previous one is left out, its tick mark stays.
    const int width = text_width(x_texts[i]);
    if (x + 1 - width / 2 < free_from) continue;
    draw_text(image, x + 1, bottom + kTickLength + 4, x_texts[i],
              {kTextColor, 1, TextAlign::Center});
    free_from = x + 1 + width / 2 + 4;
  }
}

void draw_title(RgbImage& image, int centre_x, const std::string& title) {
  const int room = image.width - 20;
  const int scale = text_width(title, kTitleScale) <= room ? kTitleScale : 1;
  const std::string text = fit_text(title, room, scale);
  const int half = text_width(text, scale) / 2;
  const int centre = std::clamp(centre_x, 10 + half, std::max(10 + half, image.width - 10 - half));
  draw_text(image, centre, 14 + (text_height(kTitleScale) - text_height(scale)) / 2, text,
            {kTextColor, scale, TextAlign::Center});
}

void draw_labels(RgbImage& image, const ChartLayout& layout, const std::string& title,
                 const std::string& x_label, const std::string& y_label, int x_label_top) {
  const PixelRect& plot = layout.plot;
  const int centre_x = plot.x + plot.width / 2;
  draw_title(image, centre_x, title);
  draw_text(image, centre_x, x_label_top, fit_text(x_label, plot.width),
            {kTextColor, 1, TextAlign::Center});
  draw_text_vertical(image, 14, plot.y + plot.height / 2, fit_text(y_label, plot.height),
                     {kTextColor, 1, TextAlign::Center});
}

}  // namespace chart
}  // namespace topkfs
