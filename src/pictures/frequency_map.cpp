// The frequency map of the stability protocol: how often each feature was
// selected, as an image in a colour scale for image data, as bars otherwise.
#include "topkfs/pictures/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "chart_axes.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {

using namespace chart;

namespace {

constexpr int kBarLabelWidth = 14 * kGlyphAdvance;

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
    throw OptionError(fmt::format("frequency map '{}': {} frequencies but {} feature names",
                                  map.title, n, map.feature_names.size()));
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

std::vector<std::string> bar_labels(const FrequencyMap& map,
                                    const std::vector<std::int64_t>& features) {
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
  layout.image = {20, title_band(map.title), shape.width * layout.scale,
                  shape.height * layout.scale};
  layout.colour_bar = {layout.image.x + layout.image.width + 24, layout.image.y, 20,
                       layout.image.height};
  const int labels_right = layout.colour_bar.x + layout.colour_bar.width + 8 + text_width("100%");
  layout.width =
      std::max(labels_right + 12 + text_height() + 16, text_width(map.title, kTitleScale) + 40);
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
  draw_labels(image, bars, map.title, kBarsXLabel, kBarsYLabel, bottom + 6 + widest(labels) + 10);
  return image;
}

}  // namespace

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

FrequencyMap frequency_map_of(const Dataset& data, std::vector<double> frequency,
                              std::string title) {
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
