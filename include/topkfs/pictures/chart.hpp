#pragma once
// The pictures of the evaluation: a line chart of a score against k (one line
// per method, error bars), and how often each feature was selected across
// runs (an image for image data, bars otherwise). Drawn on RgbImage with the
// built-in font; write them with write_png.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/pictures/picture.hpp"

namespace topkfs {

// The colour of series `index`: the Okabe-Ito palette (distinguishable with
// the common colour-vision deficiencies), cycling after 8.
Rgb series_color(std::size_t index);

// Marker shapes, one per series (cycling), so that lines stay apart in gray
// print too. Every shape covers its centre pixel.
enum class MarkerShape { Circle, Square, TriangleUp, Diamond, TriangleDown, Plus, Cross, Star };
MarkerShape series_marker(std::size_t index);

// Ticks at multiples of a "nice" step (1, 2 or 5 times a power of ten) from
// low to high inclusive, about `target` of them; {low} when low >= high.
std::vector<double> nice_ticks(double low, double high, int target = 6);

struct ChartSeries {
  std::string name;           // legend entry; truncated with ".." when long
  std::vector<double> x;      // k values, say; the line joins points in order of x
  std::vector<double> y;      // means; NaN (or infinite) skips the point and breaks the line
  std::vector<double> error;  // empty, or one std per point drawn as y +- error
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  // Fixed ends of the y axis (0 and 100 for an accuracy in percent); each one
  // absent is chosen from the data, padded and rounded to a tick.
  std::optional<double> y_min;
  std::optional<double> y_max;
  int width = 800;
  int height = 500;
};

// Where draw_line_chart puts things, so that callers and tests can find a
// point on the picture.
struct ChartLayout {
  PixelRect plot;    // the plot area, inside the frame
  PixelRect legend;  // the legend box, right of the plot area (empty: no legend)
  double x_low = 0;
  double x_high = 1;
  double y_low = 0;
  double y_high = 1;
  std::vector<double> x_ticks;  // the distinct x values when there are at most 12, else nice_ticks
  std::vector<double> y_ticks;

  struct Pixel {
    int x = 0;
    int y = 0;
  };
  // x_low maps to the plot's left column and x_high to its right column,
  // y_high to its top row and y_low to its bottom row, linearly, rounded to
  // the nearest pixel.
  Pixel to_pixel(double x, double y) const;
};

// The layout of `chart`; throws OptionError when the size is too small to
// hold a plot (under 200 x 150) or a series has x and y of different lengths.
ChartLayout layout_line_chart(const LineChart& chart);

// White background, light grey grid at the ticks, one line (2 pixels) per
// series with a marker at every point (series of at most 40 points: more
// would merge into a smear) and error bars, the legend on the right
// outside the plot area, title above, axis labels below and left.
RgbImage draw_line_chart(const LineChart& chart);

// The colour scale of frequencies: a viridis-like ramp from dark purple (0,
// never selected) through blue and green to yellow (1, selected in every
// run), interpolated between five anchor colours. Values are clamped to 0..1
// and NaN counts as 0.
Rgb frequency_color(double frequency);

struct FrequencyMap {
  std::string title;
  std::vector<double> frequency;  // per feature: the fraction of runs that selected it (0..1)
  // Image data: the frequencies drawn as an image of this shape (a pixel of
  // several channels shows its most frequently selected channel).
  std::optional<ImageShape> image_shape;
  // Other data: bar labels, one per feature ("feature <i>" when empty).
  std::vector<std::string> feature_names;
  int max_bars = 40;
};

// The frequency map of `data`'s features: its image shape and feature names.
FrequencyMap frequency_map_of(const Dataset& data, std::vector<double> frequency,
                              std::string title);

// Where draw_frequency_map puts things.
struct FrequencyMapLayout {
  int width = 0;  // of the picture
  int height = 0;
  // Image data: feature pixel (row, column) fills the square of side `scale`
  // at (image.x + column * scale, image.y + row * scale); the colour bar runs
  // from frequency 1 (top row) to 0 (bottom row).
  PixelRect image;
  int scale = 0;
  PixelRect colour_bar;
  // Other data: the features drawn as bars, most frequent first (ties by
  // index; features never selected are left out). Bar i covers x in
  // [i + 0.1, i + 0.9] of `bars`, and y is the frequency in percent.
  ChartLayout bars;
  std::vector<std::int64_t> bar_features;
};

// Throws OptionError when the frequencies do not match the image shape or
// the names.
FrequencyMapLayout layout_frequency_map(const FrequencyMap& map);

// Image data: the enlarged image in the colour scale, a colour bar labelled
// 0% .. 100% on its right, the title above. Other data: a bar chart of the
// (at most max_bars) most frequently selected features, their names written
// vertically under the bars (shortened with ".."), the y axis in percent.
RgbImage draw_frequency_map(const FrequencyMap& map);

}  // namespace topkfs
