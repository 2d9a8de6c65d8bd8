// The pictures: the bitmap font, the line chart of the evaluation, the
// frequency map of the stability protocol, selections, and PNG output.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/pictures/chart.hpp"
#include "topkfs/pictures/picture.hpp"
#include "topkfs/pictures/text_render.hpp"

namespace topkfs {
namespace {

template <typename Call>
std::string error_of_option(Call&& call) {
  return test::error_of<OptionError>(std::forward<Call>(call));
}

// The pixels of `area` that differ from `background`.
int count_not(const RgbImage& image, const PixelRect& area, Rgb background) {
  int count = 0;
  for (int y = area.y; y < area.y + area.height; ++y) {
    for (int x = area.x; x < area.x + area.width; ++x) count += image.at(x, y) != background;
  }
  return count;
}

PixelRect whole(const RgbImage& image) { return {0, 0, image.width, image.height}; }

// The smallest rectangle holding every pixel that is not white.
PixelRect ink_box(const RgbImage& image) {
  int left = image.width, top = image.height, right = -1, bottom = -1;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      if (image.at(x, y) == kWhite) continue;
      left = std::min(left, x);
      right = std::max(right, x);
      top = std::min(top, y);
      bottom = std::max(bottom, y);
    }
  }
  return {left, top, right - left + 1, bottom - top + 1};
}

ChartSeries series(std::string name, std::vector<double> x, std::vector<double> y,
                   std::vector<double> error = {}) {
  return {std::move(name), std::move(x), std::move(y), std::move(error)};
}

// Three methods at k = 10..50, their points far enough apart that no marker
// covers another.
LineChart three_methods() {
  LineChart chart;
  chart.title = "Accuracy against k";
  chart.x_label = "k";
  chart.y_label = "accuracy (%)";
  const std::vector<double> k{10, 20, 30, 40, 50};
  chart.series.push_back(series("dnn-top", k, {80, 85, 88, 90, 91}, {1, 1, 1, 1, 1}));
  chart.series.push_back(series("lasso", k, {60, 66, 70, 73, 75}, {2, 2, 2, 2, 2}));
  chart.series.push_back(series("extra-trees", k, {40, 50, 55, 58, 60}));
  return chart;
}

// ------------------------------------------------------------------ font

TEST(TextRenderTest, EveryPrintableCharacterHasInkExceptSpace) {
  for (int c = 32; c <= 126; ++c) {
    RgbImage image = blank_image(kGlyphAdvance, kGlyphHeight);
    draw_text(image, 0, 0, std::string(1, static_cast<char>(c)));
    const int ink = count_not(image, whole(image), kWhite);
    if (c == ' ') {
      EXPECT_EQ(ink, 0);
    } else {
      EXPECT_GT(ink, 0) << "glyph '" << static_cast<char>(c) << "' is empty";
    }
    // The blank column after every glyph keeps neighbours apart.
    for (int row = 0; row < kGlyphHeight; ++row) EXPECT_EQ(image.at(kGlyphWidth, row), kWhite);
  }
}

TEST(TextRenderTest, GlyphsAreDistinct) {
  std::set<std::vector<bool>> seen;
  for (int c = 32; c <= 126; ++c) {
    std::vector<bool> cells;
    for (int row = 0; row < kGlyphHeight; ++row) {
      for (int column = 0; column < kGlyphWidth; ++column) {
        cells.push_back(glyph_cell(static_cast<char>(c), column, row));
      }
    }
    EXPECT_TRUE(seen.insert(cells).second)
        << "glyph '" << static_cast<char>(c) << "' repeats another";
  }
}

TEST(TextRenderTest, WidthIsCharactersTimesAdvanceAndInkStaysInside) {
  const std::string text = "Accuracy (%) at k=50, p_q";
  for (int scale : {1, 2, 3}) {
    EXPECT_EQ(text_width(text, scale), static_cast<int>(text.size()) * kGlyphAdvance * scale);
    EXPECT_EQ(text_height(scale), kGlyphHeight * scale);
    RgbImage image = blank_image(text_width(text, scale) + 20, text_height(scale) + 20);
    draw_text(image, 10, 10, text, {kBlack, scale});
    const PixelRect box = ink_box(image);
    EXPECT_GE(box.x, 10);
    EXPECT_GE(box.y, 10);
    EXPECT_LE(box.x + box.width, 10 + text_width(text, scale));
    EXPECT_LE(box.y + box.height, 10 + text_height(scale));
  }
}

TEST(TextRenderTest, ScaleTurnsEveryCellIntoASquare) {
  const int scale = 3;
  RgbImage image = blank_image(kGlyphAdvance * scale, kGlyphHeight * scale);
  draw_text(image, 0, 0, "g", {Rgb{200, 0, 0}, scale});
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < kGlyphWidth * scale; ++x) {
      const bool inked = glyph_cell('g', x / scale, y / scale);
      EXPECT_EQ(image.at(x, y), inked ? Rgb({200, 0, 0}) : kWhite) << x << "," << y;
    }
  }
}

TEST(TextRenderTest, AlignmentPutsTheAnchorAtTheLeftCentreOrRightEdge) {
  const std::string text = "MMMM";  // M inks its first and last columns
  const int width = text_width(text);
  for (auto [align, left] :
       {std::pair{TextAlign::Left, 50}, std::pair{TextAlign::Center, 50 - width / 2},
        std::pair{TextAlign::Right, 50 - width}}) {
    RgbImage image = blank_image(120, 20);
    draw_text(image, 50, 5, text, {kBlack, 1, align});
    EXPECT_EQ(ink_box(image).x, left);
  }
}

TEST(TextRenderTest, VerticalTextIsTheHorizontalTurnedCounterClockwise) {
  const std::string text = "y-axis (%)";
  RgbImage flat = blank_image(text_width(text), text_height());
  draw_text(flat, 0, 0, text);
  const int bottom = text_width(text) + 4;
  RgbImage turned = blank_image(text_height() + 8, bottom + 8);
  draw_text_vertical(turned, 3, bottom, text);  // Left: the text starts at `bottom`
  for (int along = 0; along < flat.width; ++along) {
    for (int across = 0; across < flat.height; ++across) {
      ASSERT_EQ(turned.at(3 + across, bottom - along), flat.at(along, across))
          << along << "," << across;
    }
  }
}

TEST(TextRenderTest, FitTextShortensWithTwoDots) {
  EXPECT_EQ(fit_text("dnn-top", 100), "dnn-top");
  EXPECT_EQ(fit_text("elastic-net", 6 * kGlyphAdvance), "elas..");
  EXPECT_EQ(fit_text("elastic-net", 6 * kGlyphAdvance * 2, 2), "elas..");
  EXPECT_EQ(fit_text("elastic-net", 2 * kGlyphAdvance), "..");
  EXPECT_EQ(fit_text("elastic-net", 1), "");
  EXPECT_LE(text_width(fit_text(std::string(500, 'x'), 97)), 97);
}

TEST(TextRenderTest, CharactersOutsidePrintableAsciiDrawAsQuestionMarks) {
  RgbImage a = blank_image(kGlyphAdvance, kGlyphHeight);
  RgbImage b = blank_image(kGlyphAdvance, kGlyphHeight);
  draw_text(a, 0, 0, "\x01");
  draw_text(b, 0, 0, "?");
  EXPECT_EQ(a.pixels, b.pixels);
}

// ----------------------------------------------------------------- lines

TEST(PictureTest, LinesAreTwoPixelsThickAndClipped) {
  RgbImage image = blank_image(40, 30);
  draw_line(image, 5, 10, 30, 10, kBlack, 2);
  for (int x = 5; x <= 31; ++x) {
    EXPECT_EQ(image.at(x, 10), kBlack);
    EXPECT_EQ(image.at(x, 11), kBlack);
    EXPECT_EQ(image.at(x, 9), kWhite);
    EXPECT_EQ(image.at(x, 12), kWhite);
  }
  RgbImage diagonal = blank_image(40, 30);
  draw_line(diagonal, 2, 3, 25, 20, kBlack);
  EXPECT_EQ(diagonal.at(2, 3), kBlack);
  EXPECT_EQ(diagonal.at(25, 20), kBlack);
  // One pixel per step along the longer side: a 1-thick line has no gaps or clumps.
  EXPECT_EQ(count_not(diagonal, whole(diagonal), kWhite), 24);
  draw_line(diagonal, -100, -50, 500, 300, kBlack, 3);  // outside parts are clipped
}

// ----------------------------------------------------------------- chart

TEST(ChartTest, ImageHasTheRequestedSize) {
  LineChart chart = three_methods();
  RgbImage image = draw_line_chart(chart);
  EXPECT_EQ(image.width, 800);
  EXPECT_EQ(image.height, 500);
  EXPECT_EQ(image.pixels.size(), 800u * 500u * 3u);
  chart.width = 640;
  chart.height = 300;
  image = draw_line_chart(chart);
  EXPECT_EQ(image.width, 640);
  EXPECT_EQ(image.height, 300);
  chart.width = 100;
  EXPECT_TRUE(test::contains(error_of_option([&] { draw_line_chart(chart); }), "too small"));
}

TEST(ChartTest, DataPointsHaveTheSeriesColour) {
  const LineChart chart = three_methods();
  const ChartLayout layout = layout_line_chart(chart);
  const RgbImage image = draw_line_chart(chart);
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    for (std::size_t i = 0; i < chart.series[s].x.size(); ++i) {
      const auto p = layout.to_pixel(chart.series[s].x[i], chart.series[s].y[i]);
      ASSERT_TRUE(layout.plot.contains(p.x, p.y));
      EXPECT_EQ(image.at(p.x, p.y), series_color(s)) << "series " << s << " point " << i;
    }
  }
}

TEST(ChartTest, MappingSendsTheRangeToThePlotCorners) {
  const ChartLayout layout = layout_line_chart(three_methods());
  const auto top_left = layout.to_pixel(layout.x_low, layout.y_high);
  const auto bottom_right = layout.to_pixel(layout.x_high, layout.y_low);
  EXPECT_EQ(top_left.x, layout.plot.x);
  EXPECT_EQ(top_left.y, layout.plot.y);
  EXPECT_EQ(bottom_right.x, layout.plot.x + layout.plot.width - 1);
  EXPECT_EQ(bottom_right.y, layout.plot.y + layout.plot.height - 1);
  // Auto range: every mean +- error inside, ends on ticks.
  EXPECT_LT(layout.y_low, 40);
  EXPECT_GT(layout.y_high, 92);
  EXPECT_DOUBLE_EQ(layout.y_ticks.front(), layout.y_low);
  EXPECT_DOUBLE_EQ(layout.y_ticks.back(), layout.y_high);
  EXPECT_EQ(layout.x_ticks, (std::vector<double>{10, 20, 30, 40, 50}));
}

TEST(ChartTest, LegendIsOutsideThePlotAndCarriesTheNames) {
  LineChart chart = three_methods();
  chart.series[1].name = "a method whose name is far too long for any legend";
  const ChartLayout layout = layout_line_chart(chart);
  const RgbImage image = draw_line_chart(chart);
  const PixelRect& legend = layout.legend;
  ASSERT_GT(legend.width, 0);
  EXPECT_GE(legend.x, layout.plot.x + layout.plot.width);
  EXPECT_LE(legend.x + legend.width, image.width);
  EXPECT_LE(legend.width, 24 + 24 + 20 * kGlyphAdvance);  // the long name was shortened
  // Text in the text column of every entry.
  for (int i = 0; i < 3; ++i) {
    const PixelRect text{legend.x + 40, legend.y + 8 + 16 * i, legend.width - 42, kGlyphHeight};
    EXPECT_GT(count_not(image, text, kWhite), 20) << "legend entry " << i;
  }
  chart.series.clear();
  chart.series.push_back(series("", {1, 2}, {3, 4}));
  EXPECT_EQ(layout_line_chart(chart).legend.width, 0);  // nothing to name, no legend
}

TEST(ChartTest, NanPointsAreSkippedAndBreakTheLine) {
  LineChart chart;
  chart.series.push_back(series("m", {10, 20, 30}, {1, NAN, 3}, {0.1, NAN, 0.1}));
  const ChartLayout layout = layout_line_chart(chart);
  const RgbImage image = draw_line_chart(chart);
  EXPECT_EQ(image.at(layout.to_pixel(10, 1).x, layout.to_pixel(10, 1).y), series_color(0));
  EXPECT_EQ(image.at(layout.to_pixel(30, 3).x, layout.to_pixel(30, 3).y), series_color(0));
  // No line through the missing point: the middle of 10..30 stays uncoloured.
  const auto middle = layout.to_pixel(20, 2);
  EXPECT_NE(image.at(middle.x, middle.y), series_color(0));
  EXPECT_EQ(layout.x_ticks,
            (std::vector<double>{10, 20, 30}));  // the k of the gap is still on the axis

  chart.series[0].y = {NAN, NAN, NAN};
  EXPECT_NO_THROW(draw_line_chart(chart));
  chart.series[0].y = {1, INFINITY, -INFINITY};
  EXPECT_NO_THROW(draw_line_chart(chart));
}

TEST(ChartTest, DegenerateRangesWork) {
  LineChart chart;
  chart.series.push_back(series("one point", {10}, {0.25}));
  chart.series.push_back(series("flat", {10, 10}, {0.25, 0.25}, {0, 0}));
  const ChartLayout layout = layout_line_chart(chart);
  EXPECT_LT(layout.x_low, 10);
  EXPECT_GT(layout.x_high, 10);
  EXPECT_LT(layout.y_low, 0.25);
  EXPECT_GT(layout.y_high, 0.25);
  EXPECT_LT(layout.y_high - layout.y_low, 1.0);  // padded around the value, not blown up
  const RgbImage image = draw_line_chart(chart);
  const auto p = layout.to_pixel(10, 0.25);
  EXPECT_EQ(image.at(p.x, p.y), series_color(1));  // drawn last, on top

  LineChart zero;
  zero.series.push_back(series("zero", {5, 6}, {0, 0}));
  const ChartLayout zero_layout = layout_line_chart(zero);
  EXPECT_LT(zero_layout.y_low, 0);
  EXPECT_GT(zero_layout.y_high, 0);
  LineChart empty;
  EXPECT_NO_THROW(draw_line_chart(empty));
}

TEST(ChartTest, FixedRangeIsKeptAndClipsOutsideValues) {
  LineChart chart = three_methods();
  chart.y_min = 0;
  chart.y_max = 100;
  chart.series.push_back(series("over", {10, 50}, {150, 95}, {80, 80}));
  const ChartLayout layout = layout_line_chart(chart);
  EXPECT_EQ(layout.y_low, 0);
  EXPECT_EQ(layout.y_high, 100);
  EXPECT_EQ(layout.y_ticks, (std::vector<double>{0, 20, 40, 60, 80, 100}));
  const RgbImage image = draw_line_chart(chart);
  // Nothing of the series leaves the plot area: the title band holds no series colour.
  EXPECT_GT(count_not(image, {0, 0, image.width, layout.plot.y - 1}, kWhite), 0);  // the title
  const PixelRect above{layout.plot.x, 0, layout.plot.width, layout.plot.y - 1};
  for (int y = above.y; y < above.height; ++y) {
    for (int x = above.x; x < above.x + above.width; ++x)
      ASSERT_NE(image.at(x, y), series_color(3));
  }

  chart.y_min = 0;
  chart.y_max.reset();
  EXPECT_EQ(layout_line_chart(chart).y_low, 0);
  chart.y_max = 0;
  EXPECT_TRUE(test::contains(error_of_option([&] { layout_line_chart(chart); }), "empty"));
}

TEST(ChartTest, EightSeriesHaveDistinctColoursAndMarkers) {
  std::set<std::tuple<int, int, int>> colours;
  std::set<MarkerShape> shapes;
  for (std::size_t i = 0; i < 8; ++i) {
    colours.insert({series_color(i).r, series_color(i).g, series_color(i).b});
    shapes.insert(series_marker(i));
    EXPECT_NE(series_color(i), kWhite);
  }
  EXPECT_EQ(colours.size(), 8u);
  EXPECT_EQ(shapes.size(), 8u);
  LineChart chart;
  for (int s = 0; s < 8; ++s)
    chart.series.push_back(series(fmt::format("m{}", s), {1, 2}, {s * 10.0, s * 10.0 + 5}));
  const ChartLayout layout = layout_line_chart(chart);
  const RgbImage image = draw_line_chart(chart);
  EXPECT_LE(layout.legend.y + layout.legend.height, image.height);
  for (std::size_t s = 0; s < 8; ++s) {
    const auto p = layout.to_pixel(1, static_cast<double>(s) * 10.0);
    EXPECT_EQ(image.at(p.x, p.y), series_color(s));
  }
}

TEST(ChartTest, NiceTicksStepByOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(nice_ticks(0, 100), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(nice_ticks(3, 97), (std::vector<double>{20, 40, 60, 80}));
  EXPECT_EQ(nice_ticks(5, 5), (std::vector<double>{5}));
  for (auto [low, high] : {std::pair{0.0, 1.0}, std::pair{-3.7, 12.2}, std::pair{0.91, 0.97},
                           std::pair{1e-4, 7e-4}, std::pair{10.0, 5000.0}}) {
    const auto ticks = nice_ticks(low, high);
    ASSERT_GE(ticks.size(), 2u) << low << ".." << high;
    EXPECT_LE(ticks.size(), 11u);
    const double step = ticks[1] - ticks[0];
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
                std::abs(mantissa - 5) < 1e-6)
        << step;
    EXPECT_GE(ticks.front(), low - 1e-12);
    EXPECT_LE(ticks.back(), high + 1e-12);
  }
}

TEST(ChartTest, ManyXValuesGetNiceTicks) {
  LineChart chart;
  ChartSeries curve;
  curve.name = "loss";
  for (int i = 0; i < 100; ++i) {
    curve.x.push_back(i * 3);
    curve.y.push_back(std::exp(-i / 30.0));
  }
  chart.series.push_back(curve);
  const ChartLayout layout = layout_line_chart(chart);
  EXPECT_LE(layout.x_ticks.size(), 12u);
  EXPECT_EQ(layout.x_ticks.front(), 0);
}

TEST(ChartTest, SeriesOfMismatchedLengthsAreRefused) {
  LineChart chart;
  chart.series.push_back(series("m", {1, 2, 3}, {1, 2}));
  EXPECT_TRUE(test::contains(error_of_option([&] { draw_line_chart(chart); }), "'m'"));
  chart.series[0] = series("m", {1, 2}, {1, 2}, {1});
  EXPECT_TRUE(test::contains(error_of_option([&] { draw_line_chart(chart); }), "one y"));
}

// ---------------------------------------------------------- frequencies

TEST(ChartFrequencyTest, ScaleRunsFromDarkPurpleToYellow) {
  EXPECT_EQ(frequency_color(0), (Rgb{68, 1, 84}));
  EXPECT_EQ(frequency_color(1), (Rgb{253, 231, 37}));
  EXPECT_EQ(frequency_color(2), frequency_color(1));
  EXPECT_EQ(frequency_color(-1), frequency_color(0));
  EXPECT_EQ(frequency_color(NAN), frequency_color(0));
  // Brighter as the frequency grows (perceptual lightness of viridis).
  double previous = -1;
  for (int i = 0; i <= 20; ++i) {
    const Rgb c = frequency_color(i / 20.0);
    const double luma = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
    EXPECT_GT(luma, previous);
    previous = luma;
  }
}

TEST(ChartFrequencyTest, ImageCellsTakeTheColourOfTheirFrequency) {
  FrequencyMap map;
  map.title = "Stability";
  map.image_shape = ImageShape{6, 8, 1};
  map.frequency.assign(48, 0.0);
  map.frequency[2 * 8 + 5] = 1.0;  // row 2, column 5
  map.frequency[4 * 8 + 1] = 0.5;
  const FrequencyMapLayout layout = layout_frequency_map(map);
  const RgbImage image = draw_frequency_map(map);
  EXPECT_EQ(image.width, layout.width);
  EXPECT_EQ(image.height, layout.height);
  EXPECT_EQ(layout.scale, 320 / 8);
  const auto centre = [&](int row, int column) {
    return image.at(layout.image.x + column * layout.scale + layout.scale / 2,
                    layout.image.y + row * layout.scale + layout.scale / 2);
  };
  EXPECT_EQ(centre(2, 5), frequency_color(1.0));
  EXPECT_EQ(centre(4, 1), frequency_color(0.5));
  EXPECT_EQ(centre(0, 0), frequency_color(0.0));
  const PixelRect& bar = layout.colour_bar;
  EXPECT_EQ(image.at(bar.x + bar.width / 2, bar.y), frequency_color(1.0));
  EXPECT_EQ(image.at(bar.x + bar.width / 2, bar.y + bar.height - 1), frequency_color(0.0));
  // The 0% .. 100% labels right of the bar.
  EXPECT_GT(count_not(image, {bar.x + bar.width + 2, bar.y, 40, bar.height}, kWhite), 30);
}

TEST(ChartFrequencyTest, PixelOfSeveralChannelsShowsItsMostSelectedChannel) {
  FrequencyMap map;
  map.image_shape = ImageShape{2, 2, 3};
  map.frequency.assign(12, 0.0);
  map.frequency[3 * 3 + 2] = 1.0;  // pixel (1, 1), third channel
  const FrequencyMapLayout layout = layout_frequency_map(map);
  const RgbImage image = draw_frequency_map(map);
  EXPECT_EQ(image.at(layout.image.x + layout.scale + 1, layout.image.y + layout.scale + 1),
            frequency_color(1.0));
  map.frequency.pop_back();
  EXPECT_TRUE(test::contains(error_of_option([&] { draw_frequency_map(map); }), "11 frequencies"));
}

TEST(ChartFrequencyTest, BarsShowTheMostFrequentFeaturesInOrder) {
  FrequencyMap map;
  map.title = "Stability";
  map.frequency.assign(100, 0.0);
  for (int i = 0; i < 60; ++i) map.frequency[static_cast<std::size_t>(i)] = 0.01 * (i + 1);
  map.frequency[70] = 1.0;
  for (int i = 0; i < 100; ++i)
    map.feature_names.push_back(fmt::format("gene_{}_with_a_long_name", i));
  map.max_bars = 40;
  const FrequencyMapLayout layout = layout_frequency_map(map);
  ASSERT_EQ(layout.bar_features.size(), 40u);
  EXPECT_EQ(layout.bar_features[0], 70);
  EXPECT_EQ(layout.bar_features[1], 59);
  EXPECT_EQ(layout.bar_features[39], 21);
  const RgbImage image = draw_frequency_map(map);
  EXPECT_EQ(image.width, 800);
  EXPECT_EQ(image.height, 500);
  for (std::size_t i = 0; i < layout.bar_features.size(); ++i) {
    const double percent = 100 * map.frequency[static_cast<std::size_t>(layout.bar_features[i])];
    const auto inside = layout.bars.to_pixel(static_cast<double>(i) + 0.5, percent / 2);
    EXPECT_EQ(image.at(inside.x, inside.y), series_color(0)) << "bar " << i;
    const auto above = layout.bars.to_pixel(static_cast<double>(i) + 0.5, percent + 3);
    if (percent < 95) EXPECT_NE(image.at(above.x, above.y), series_color(0)) << "bar " << i;
  }
  // The names, written under the bars.
  const int below = layout.bars.plot.y + layout.bars.plot.height + 4;
  EXPECT_GT(count_not(image, {layout.bars.plot.x, below, layout.bars.plot.width, 60}, kWhite), 500);

  map.frequency.assign(100, 0.0);  // nothing selected: an empty chart, no crash
  EXPECT_TRUE(layout_frequency_map(map).bar_features.empty());
  EXPECT_NO_THROW(draw_frequency_map(map));
  map.feature_names.pop_back();
  EXPECT_TRUE(
      test::contains(error_of_option([&] { draw_frequency_map(map); }), "99 feature names"));
}

TEST(ChartFrequencyTest, MapOfADatasetTakesItsShapeAndNames) {
  Dataset data;
  data.features = FeatureMatrix::Zero(3, 4);
  data.feature_names = {"a", "b", "c", "d"};
  data.image_shape = ImageShape{2, 2, 1};
  const FrequencyMap map = frequency_map_of(data, {0, 1, 0.5, 0}, "t");
  EXPECT_EQ(map.title, "t");
  EXPECT_EQ(map.feature_names, data.feature_names);
  ASSERT_TRUE(map.image_shape.has_value());
  EXPECT_EQ(map.image_shape->width, 2);
}

// ------------------------------------------------------------ selections

// A 4x4 image dataset whose pixel p is p in every row.
Dataset ramp_images() {
  Dataset data;
  data.features = FeatureMatrix(5, 16);
  for (int r = 0; r < 5; ++r) {
    for (int p = 0; p < 16; ++p) data.features(r, p) = static_cast<float>(p);
  }
  data.image_shape = ImageShape{4, 4, 1};
  data.source = "ramp";
  return data;
}

TEST(PictureTest, SelectionMarksTheSelectedPixelsOverTheMeanImage) {
  const Dataset data = ramp_images();
  const RgbImage image = draw_selection(data, {}, {5, 10});
  const int scale = 320 / 4;
  EXPECT_EQ(image.width, 4 * scale);
  const auto centre = [&](int pixel) {
    return image.at((pixel % 4) * scale + scale / 2, (pixel / 4) * scale + scale / 2);
  };
  EXPECT_EQ(centre(5), (Rgb{255, 20, 20}));  // best ranked: bright red
  EXPECT_EQ(centre(10).g, 20);
  EXPECT_LT(centre(10).r, 255);                                           // second: darker
  EXPECT_EQ(image.at(5 % 4 * scale, 5 / 4 * scale), (Rgb{255, 230, 0}));  // outlined
  EXPECT_EQ(centre(0), (Rgb{30, 30, 30}));                                // the darkest mean pixel
  EXPECT_EQ(centre(15), (Rgb{180, 180, 180}));                            // the brightest

  Dataset flat = data;
  flat.image_shape.reset();
  EXPECT_TRUE(
      test::contains(error_of_option([&] { draw_selection(flat, {}, {1}); }), "--image-shape"));
}

TEST(PictureTest, GridPanelsAreTheSingleSelectionsWithCaptions) {
  const Dataset data = ramp_images();
  const std::vector<CaptionedSelection> selections{
      {"dnn-top", {1, 2}}, {"lasso", {3}}, {"a very long method name indeed", {15, 0}}};
  const RgbImage grid = draw_selection_grid(data, {}, selections, 2);
  const int panel = 320;
  const int caption = kGlyphHeight * 2 + 8;
  EXPECT_EQ(grid.width, 12 + 2 * (panel + 12));
  EXPECT_EQ(grid.height, 12 + 2 * (caption + panel + 12));
  for (std::size_t i = 0; i < selections.size(); ++i) {
    const RgbImage single = draw_selection(data, {}, selections[i].selected);
    const int left = 12 + static_cast<int>(i % 2) * (panel + 12);
    const int top = 12 + static_cast<int>(i / 2) * (caption + panel + 12);
    for (int y = 0; y < panel; y += 7) {
      for (int x = 0; x < panel; x += 7) {
        ASSERT_EQ(grid.at(left + x, top + caption + y), single.at(x, y)) << "panel " << i;
      }
    }
    EXPECT_GT(count_not(grid, {left, top, panel, caption}, kWhite), 30) << "caption " << i;
  }
  EXPECT_TRUE(
      test::contains(error_of_option([&] { draw_selection_grid(data, {}, {}); }), "at least one"));
}

TEST(PictureTest, PngRoundTripGivesTheSamePixels) {
  LineChart chart = three_methods();
  chart.width = 300;
  chart.height = 200;
  const RgbImage image = draw_line_chart(chart);
  const std::string png = test::temp_dir() + "/chart.png";
  write_png(png, image);
  // An independent decoder: zlib and the five PNG row filters, in Python.
  const std::string raw = test::python_fixture("chart.raw", R"(
import struct, zlib
data = open(')" + png + R"(', 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat = 8, b''
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    pos += 12 + length
    if kind == b'IHDR':
        width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
        assert (depth, colour, interlace) == (8, 2, 0)
    elif kind == b'IDAT':
        idat += body
rows = zlib.decompress(idat)
stride = width * 3
previous, pixels = bytearray(stride), bytearray()
for y in range(height):
    kind = rows[y * (stride + 1)]
    line = bytearray(rows[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 3] if i >= 3 else 0
        b = previous[i]
        c = previous[i - 3] if i >= 3 else 0
        if kind == 1: line[i] = (line[i] + a) & 255
        elif kind == 2: line[i] = (line[i] + b) & 255
        elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    pixels += line
    previous = line
open(out, 'wb').write(struct.pack('>II', width, height) + bytes(pixels))
)");
  ASSERT_FALSE(HasFailure());
  const std::string decoded = read_file_bytes(raw);
  ASSERT_EQ(decoded.size(), 8 + image.pixels.size());
  EXPECT_EQ(decoded.substr(0, 8), std::string("\0\0\x01\x2c\0\0\0\xc8", 8));  // 300 x 200
  EXPECT_TRUE(std::equal(image.pixels.begin(), image.pixels.end(),
                         reinterpret_cast<const std::uint8_t*>(decoded.data()) + 8));
}

}  // namespace
}  // namespace topkfs
