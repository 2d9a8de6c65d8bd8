#pragma once
// Private to the chart drawing (line_chart.cpp, frequency_map.cpp): the
// shared style, the axes' ranges and ticks, the margins around the plot area,
// and the frame, grid and labels drawn around it.
#include <cmath>
#include <string>
#include <vector>

#include "topkfs/pictures/chart.hpp"
#include "topkfs/pictures/text_render.hpp"

namespace topkfs::chart {

inline constexpr Rgb kGridColor{225, 225, 225};
inline constexpr Rgb kFrameColor{70, 70, 70};
inline constexpr Rgb kTextColor{30, 30, 30};
inline constexpr int kTitleScale = 2;
inline constexpr int kTickLength = 5;
// At most this many distinct x values get a tick each; more get nice_ticks.
inline constexpr std::size_t kMaxListedTicks = 12;

inline bool finite(double v) { return std::isfinite(v); }

// The "nice" step (1, 2 or 5 times a power of ten) at or above `raw`.
double nice_step(double raw);

// Tick labels: as many decimals as a regular step needs, else the shortest
// form of each value (ticks at the given k values).
std::vector<std::string> tick_labels(const std::vector<double>& ticks, bool regular);

// The width of the widest of `texts` in pixels.
int widest(const std::vector<std::string>& texts, int scale = 1);

// ---------------------------------------------------------------- ranges

// The finite x values of every series, sorted, each once.
std::vector<double> distinct_x(const std::vector<ChartSeries>& series);

// x_low, x_high and x_ticks of `layout` from the series' x values.
void set_x_axis(const std::vector<ChartSeries>& series, ChartLayout& layout);

// y_low, y_high and y_ticks of `layout` from the series' y values and the
// chart's fixed ends; throws OptionError when the fixed range is empty.
void set_y_axis(const LineChart& chart, ChartLayout& layout);

// ---------------------------------------------------------------- frames

// Space around the plot area, in pixels.
struct Margins {
  int top = 0;
  int left = 0;
  int bottom = 0;
  int right = 0;
};

// Height of the band above the plot area that holds `title`.
int title_band(const std::string& title);

// Left margin for the y label (vertical) and the y tick labels.
int left_band(const std::string& y_label, const std::vector<std::string>& y_tick_labels);

PixelRect plot_area(int width, int height, const Margins& margins);

// Throws OptionError naming `what` when the picture is under 200 x 150.
void check_size(int width, int height, const std::string& what);

// Grid lines at the ticks, inside the plot area.
void draw_grid(RgbImage& image, const ChartLayout& layout);

// The frame just outside the plot area, tick marks and tick labels (the x
// labels only when `x_labels` is true: bars label their own positions).
void draw_axes(RgbImage& image, const ChartLayout& layout, bool regular_x, bool x_labels);

// The title at double size when it fits in the picture, else at normal size
// (shortened with ".." if need be), centred on `centre_x` as far as the
// picture's edges allow.
void draw_title(RgbImage& image, int centre_x, const std::string& title);

// Title centred above the plot area, x label centred below it at row
// `x_label_top`, y label written upwards left of the tick labels.
void draw_labels(RgbImage& image, const ChartLayout& layout, const std::string& title,
                 const std::string& x_label, const std::string& y_label, int x_label_top);

}  // namespace topkfs::chart
