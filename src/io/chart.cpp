#include "topkfs/io/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "topkfs/core/error.hpp"
#include "topkfs/io/text_render.hpp"

namespace topkfs {
namespace {

constexpr Rgb kGridColor{225, 225, 225};
constexpr Rgb kFrameColor{70, 70, 70};
constexpr Rgb kTextColor{30, 30, 30};
constexpr Rgb kLegendBorder{190, 190, 190};
constexpr int kTitleScale = 2;
constexpr int kTickLength = 5;
constexpr int kMarkerRadius = 4;
constexpr int kLegendRow = 16;
constexpr int kLegendSwatch = 24;
constexpr int kLegendTextWidth = 20 * kGlyphAdvance;
constexpr int kBarLabelWidth = 14 * kGlyphAdvance;
constexpr std::size_t kMaxListedTicks = 12;
// Beyond this many points a series is a curve, and markers would merge into
// a thick smear.
constexpr std::size_t kMaxMarkedPoints = 40;

bool finite(double v) { return std::isfinite(v); }

// Half the span of an axis whose values are all equal to `value`.
double degenerate_pad(double value) { return value != 0 ? 0.1 * std::abs(value) : 1.0; }

double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double residual = raw / magnitude;
  const double factor = residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10;
  return factor * magnitude;
}

// Tick labels: as many decimals as a regular step needs, else the shortest
// form of each value (ticks at the given k values).
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

int widest(const std::vector<std::string>& texts, int scale = 1) {
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

void set_y_axis(const LineChart& chart, ChartLayout& layout) {
  auto [low, high] = data_y_range(chart.series);
  if (low > high) {  // no finite value
    low = chart.y_min.value_or(chart.y_max ? *chart.y_max - 1 : 0.0);
    high = low + 1;
  }
  if (chart.y_min) low = *chart.y_min;
  if (chart.y_max) high = *chart.y_max;
  if (chart.y_min && chart.y_max && !(high > low)) {
    throw OptionError(fmt::format("chart '{}': the fixed y range {} .. {} is empty", chart.title,
                                  low, high));
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

// Space around the plot area, in pixels.
struct Margins {
  int top = 0;
  int left = 0;
  int bottom = 0;
  int right = 0;
};

int title_band(const std::string& title) {
  return title.empty() ? 16 : 14 + text_height(kTitleScale) + 12;
}

// Left margin for the y label (vertical) and the y tick labels.
int left_band(const std::string& y_label, const std::vector<std::string>& y_tick_labels) {
  return 14 + (y_label.empty() ? 0 : text_height() + 10) + widest(y_tick_labels) + kTickLength + 4;
}

PixelRect plot_area(int width, int height, const Margins& margins) {
  return {margins.left, margins.top, width - margins.left - margins.right,
          height - margins.top - margins.bottom};
}

void check_size(int width, int height, const std::string& what) {
  if (width < 200 || height < 150) {
    throw OptionError(fmt::format("{}: a picture of {}x{} pixels is too small for a chart "
                                  "(at least 200x150)",
                                  what, width, height));
  }
}

// Grid lines at the ticks, inside the plot area.
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

// The frame just outside the plot area, tick marks and tick labels (the x
// labels only when `x_labels` is true: bars label their own positions).
void draw_axes(RgbImage& image, const ChartLayout& layout, bool regular_x, bool x_labels) {
  const PixelRect& plot = layout.plot;
  draw_rect(image, plot.x - 1, plot.y - 1, plot.width + 2, plot.height + 2, kFrameColor);
  const auto y_texts = tick_labels(layout.y_ticks, true);
  for (std::size_t i = 0; i < layout.y_ticks.size(); ++i) {
    const int y = layout.to_pixel(layout.x_low, layout.y_ticks[i]).y;
    draw_line(image, plot.x - 1 - kTickLength, y, plot.x - 2, y, kFrameColor);
    draw_text(image, plot.x - kTickLength - 4, y - 3, y_texts[i], {kTextColor, 1, TextAlign::Right});
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
    draw_text(image, x + 1, bottom + kTickLength + 4, x_texts[i], {kTextColor, 1, TextAlign::Center});
    free_from = x + 1 + width / 2 + 4;
  }
}

// The title at double size when it fits in the picture, else at normal size
// (shortened with ".." if need be), centred on `centre_x` as far as the
// picture's edges allow.
void draw_title(RgbImage& image, int centre_x, const std::string& title) {
  const int room = image.width - 20;
  const int scale = text_width(title, kTitleScale) <= room ? kTitleScale : 1;
  const std::string text = fit_text(title, room, scale);
  const int half = text_width(text, scale) / 2;
  const int centre = std::clamp(centre_x, 10 + half, std::max(10 + half, image.width - 10 - half));
  draw_text(image, centre, 14 + (text_height(kTitleScale) - text_height(scale)) / 2, text,
            {kTextColor, scale, TextAlign::Center});
}

// Title centred above the plot area, x label centred below it at row
// `x_label_top`, y label written upwards left of the tick labels.
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

// ---------------------------------------------------------------- series

bool in_marker(MarkerShape shape, int dx, int dy, int r) {
  const int ax = std::abs(dx);
  const int ay = std::abs(dy);
  switch (shape) {
    case MarkerShape::Circle:
      return dx * dx + dy * dy <= r * r + r;
    case MarkerShape::Square:
      return ax < r && ay < r;
    case MarkerShape::TriangleUp:
      return 2 * ax <= dy + r;
    case MarkerShape::Diamond:
      return ax + ay <= r;
    case MarkerShape::TriangleDown:
      return 2 * ax <= r - dy;
    case MarkerShape::Plus:
      return ax <= 1 || ay <= 1;
    case MarkerShape::Cross:
      return std::abs(ax - ay) <= 1;
    case MarkerShape::Star:
      return ax <= 1 || ay <= 1 || ax == ay;
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
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
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

void draw_markers(RgbImage& canvas, const ChartLayout& layout, const ChartSeries& s, std::size_t index) {
  if (s.x.size() > kMaxMarkedPoints) return;
  for (std::size_t i : points_by_x(s)) {
    if (!finite(s.y[i])) continue;
    const auto point = layout.to_pixel(s.x[i], s.y[i]);
    draw_marker(canvas, point.x, point.y, series_marker(index), series_color(index));
  }
}

// Series are drawn on a copy of the plot area so that whatever falls outside
// a fixed y range is clipped at the frame.
void draw_all_series(RgbImage& image, const ChartLayout& layout, const std::vector<ChartSeries>& series) {
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
  return std::any_of(series.begin(), series.end(), [](const ChartSeries& s) { return !s.name.empty(); });
}

void draw_legend(RgbImage& image, const ChartLayout& layout, const std::vector<ChartSeries>& series) {
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

// ---------------------------------------------------------------- frequencies

// Five anchors of matplotlib's viridis, evenly spaced.
constexpr std::array<Rgb, 5> kFrequencyAnchors{
    {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};

void check_frequencies(const FrequencyMap& map) {
  const auto n = static_cast<long>(map.frequency.size());
  if (map.image_shape && map.image_shape->pixels() != n) {
    throw OptionError(fmt::format("frequency map '{}': {} frequencies for an image of {} values",
                                  map.title, n, map.image_shape->pixels()));
  }
  if (!map.feature_names.empty() && static_cast<long>(map.feature_names.size()) != n) {
    throw OptionError(fmt::format("frequency map '{}': {} frequencies but {} feature names", map.title,
                                  n, map.feature_names.size()));
  }
}

// The most frequently selected features, never-selected ones left out.
std::vector<std::int64_t> most_frequent(const FrequencyMap& map) {
  std::vector<std::int64_t> order;
  for (std::size_t i = 0; i < map.frequency.size(); ++i) {
    if (map.frequency[i] > 0) order.push_back(static_cast<std::int64_t>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return map.frequency[static_cast<std::size_t>(a)] > map.frequency[static_cast<std::size_t>(b)];
  });
  if (order.size() > static_cast<std::size_t>(std::max(0, map.max_bars))) {
    order.resize(static_cast<std::size_t>(std::max(0, map.max_bars)));
  }
  return order;
}

std::vector<std::string> bar_labels(const FrequencyMap& map, const std::vector<std::int64_t>& features) {
  std::vector<std::string> labels;
  for (std::int64_t f : features) {
    const std::string name = map.feature_names.empty()
                                 ? fmt::format("feature {}", f)
                                 : map.feature_names[static_cast<std::size_t>(f)];
    labels.push_back(fit_text(name, kBarLabelWidth));
  }
  return labels;
}

const std::string kBarsYLabel = "selected in % of runs";
const std::string kBarsXLabel = "features, most frequently selected first";

void layout_bars(const FrequencyMap& map, FrequencyMapLayout& layout) {
  layout.width = 800;
  layout.height = 500;
  layout.bar_features = most_frequent(map);
  ChartLayout& bars = layout.bars;
  bars.x_low = 0;
  bars.x_high = static_cast<double>(std::max<std::size_t>(1, layout.bar_features.size()));
  bars.y_low = 0;
  bars.y_high = 100;
  bars.y_ticks = nice_ticks(0, 100);
  Margins margins;
  margins.top = title_band(map.title);
  margins.left = left_band(kBarsYLabel, tick_labels(bars.y_ticks, true));
  margins.bottom = 6 + widest(bar_labels(map, layout.bar_features)) + 10 + text_height() + 10;
  margins.right = 24;
  bars.plot = plot_area(layout.width, layout.height, margins);
}

void layout_frequency_image(const FrequencyMap& map, FrequencyMapLayout& layout) {
  const ImageShape& shape = *map.image_shape;
  layout.scale = picture_scale(shape);
  layout.image = {20, title_band(map.title), shape.width * layout.scale, shape.height * layout.scale};
  layout.colour_bar = {layout.image.x + layout.image.width + 24, layout.image.y, 20, layout.image.height};
  const int labels_right = layout.colour_bar.x + layout.colour_bar.width + 8 + text_width("100%");
  layout.width = std::max(labels_right + 12 + text_height() + 16, text_width(map.title, kTitleScale) + 40);
  layout.height = layout.image.y + layout.image.height + 20;
}

// Per pixel of the image, the highest frequency over its channels.
std::vector<double> pixel_frequencies(const FrequencyMap& map) {
  const ImageShape& shape = *map.image_shape;
  std::vector<double> pixel(static_cast<std::size_t>(shape.height * shape.width), 0.0);
  for (std::size_t i = 0; i < map.frequency.size(); ++i) {
    auto& p = pixel[i / static_cast<std::size_t>(shape.channels)];
    if (map.frequency[i] > p) p = map.frequency[i];
  }
  return pixel;
}

RgbImage draw_frequency_image(const FrequencyMap& map, const FrequencyMapLayout& layout) {
  RgbImage image = blank_image(layout.width, layout.height);
  draw_title(image, layout.width / 2, map.title);
  const std::vector<double> pixel = pixel_frequencies(map);
  const int columns = map.image_shape->width;
  for (std::size_t p = 0; p < pixel.size(); ++p) {
    const int row = static_cast<int>(p) / columns;
    const int column = static_cast<int>(p) % columns;
    fill_rect(image, layout.image.x + column * layout.scale, layout.image.y + row * layout.scale,
              layout.scale, layout.scale, frequency_color(pixel[p]));
  }
  const PixelRect& bar = layout.colour_bar;
  for (int y = 0; y < bar.height; ++y) {
    const double f = bar.height > 1 ? 1.0 - static_cast<double>(y) / (bar.height - 1) : 1.0;
    fill_rect(image, bar.x, bar.y + y, bar.width, 1, frequency_color(f));
  }
  draw_rect(image, bar.x - 1, bar.y - 1, bar.width + 2, bar.height + 2, kFrameColor);
  const int label_x = bar.x + bar.width + 8;
  draw_text(image, label_x, bar.y, "100%", {kTextColor});
  draw_text(image, label_x, bar.y + bar.height / 2 - 3, "50%", {kTextColor});
  draw_text(image, label_x, bar.y + bar.height - 7, "0%", {kTextColor});
  draw_text_vertical(image, label_x + text_width("100%") + 12, bar.y + bar.height / 2, kBarsYLabel,
                     {kTextColor, 1, TextAlign::Center});
  return image;
}

RgbImage draw_frequency_bars(const FrequencyMap& map, const FrequencyMapLayout& layout) {
  const ChartLayout& bars = layout.bars;
  RgbImage image = blank_image(layout.width, layout.height);
  draw_grid(image, bars);
  const auto labels = bar_labels(map, layout.bar_features);
  const int bottom = bars.plot.y + bars.plot.height;
  for (std::size_t i = 0; i < layout.bar_features.size(); ++i) {
    const double f = map.frequency[static_cast<std::size_t>(layout.bar_features[i])];
    const double x = static_cast<double>(i);
    const auto top_left = bars.to_pixel(x + 0.1, 100 * std::clamp(f, 0.0, 1.0));
    const auto bottom_right = bars.to_pixel(x + 0.9, 0);
    fill_rect(image, top_left.x, top_left.y, bottom_right.x - top_left.x + 1,
              bottom_right.y - top_left.y + 1, series_color(0));
    const int centre = bars.to_pixel(x + 0.5, 0).x;
    draw_text_vertical(image, centre - text_height() / 2 + 1, bottom + 6, labels[i],
                       {kTextColor, 1, TextAlign::Right});
  }
  draw_axes(image, bars, true, false);
  draw_labels(image, bars, map.title, kBarsXLabel, kBarsYLabel,
              bottom + 6 + widest(labels) + 10);
  return image;
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
      MarkerShape::Circle, MarkerShape::Square, MarkerShape::TriangleUp, MarkerShape::Diamond,
      MarkerShape::TriangleDown, MarkerShape::Plus, MarkerShape::Cross, MarkerShape::Star};
  return kShapes[index % kShapes.size()];
}

std::vector<double> nice_ticks(double low, double high, int target) {
  if (!(high > low) || !finite(low) || !finite(high)) return {low};
  const double step = nice_step((high - low) / std::max(1, target - 1));
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

ChartLayout layout_line_chart(const LineChart& chart) {
  check_size(chart.width, chart.height, fmt::format("chart '{}'", chart.title));
  check_series(chart);
  ChartLayout layout;
  set_x_axis(chart.series, layout);
  set_y_axis(chart, layout);
  Margins margins;
  margins.top = title_band(chart.title);
  margins.left = left_band(chart.y_label, tick_labels(layout.y_ticks, true));
  margins.bottom = kTickLength + 4 + text_height() + 10 + (chart.x_label.empty() ? 0 : text_height() + 10);
  int legend_width = 0;
  if (has_legend(chart.series)) {
    legend_width = 24 + kLegendSwatch + widest(legend_names(chart.series));
  }
  margins.right = legend_width > 0 ? 16 + legend_width + 12 : 24;
  layout.plot = plot_area(chart.width, chart.height, margins);
  if (layout.plot.width < 60 || layout.plot.height < 40) {
    throw OptionError(fmt::format("chart '{}': {}x{} pixels leave no room for the plot beside "
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

Rgb frequency_color(double frequency) {
  const double f = std::isnan(frequency) ? 0.0 : std::clamp(frequency, 0.0, 1.0);
  const double position = f * (kFrequencyAnchors.size() - 1);
  const auto index = std::min(static_cast<std::size_t>(position), kFrequencyAnchors.size() - 2);
  const double t = position - static_cast<double>(index);
  const Rgb& a = kFrequencyAnchors[index];
  const Rgb& b = kFrequencyAnchors[index + 1];
  const auto mix = [t](std::uint8_t u, std::uint8_t v) {
    return static_cast<std::uint8_t>(std::lround(u + t * (v - u)));
  };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

FrequencyMap frequency_map_of(const Dataset& data, std::vector<double> frequency, std::string title) {
  FrequencyMap map;
  map.title = std::move(title);
  map.frequency = std::move(frequency);
  map.image_shape = data.image_shape;
  map.feature_names = data.feature_names;
  return map;
}

FrequencyMapLayout layout_frequency_map(const FrequencyMap& map) {
  check_frequencies(map);
  FrequencyMapLayout layout;
  if (map.image_shape) {
    layout_frequency_image(map, layout);
  } else {
    layout_bars(map, layout);
  }
  return layout;
}

RgbImage draw_frequency_map(const FrequencyMap& map) {
  const FrequencyMapLayout layout = layout_frequency_map(map);
  return map.image_shape ? draw_frequency_image(map, layout) : draw_frequency_bars(map, layout);
}

}  // namespace topkfs
