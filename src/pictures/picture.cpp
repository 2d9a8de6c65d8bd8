#include "topkfs/pictures/picture.hpp"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/pictures/text_render.hpp"

namespace topkfs {
namespace {

void write_to_string(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}

// The mean image of draw_selection: gray levels 0..1 and the enlargement.
struct MeanImage {
  ImageShape shape;
  int scale = 1;
  std::vector<double> level;  // height x width, 0 darkest, 1 brightest
};

MeanImage mean_image(const Dataset& data, const std::vector<std::int64_t>& rows) {
  if (!data.image_shape) {
    throw OptionError(
        fmt::format("{}: a picture needs image data; give {} for rows that are images", data.source,
                    option_ref("image-shape", "HxW")));
  }
  MeanImage mean;
  mean.shape = *data.image_shape;
  const int channels = mean.shape.channels;
  mean.level.assign(static_cast<std::size_t>(mean.shape.height * mean.shape.width), 0.0);
  std::vector<std::int64_t> picked = rows;
  if (picked.empty()) {
    picked.resize(static_cast<std::size_t>(data.rows()));
    std::iota(picked.begin(), picked.end(), 0);
  }
  // By blocks of rows, so that features read from the file on demand are
  // read once, in order.
  const auto m = static_cast<std::size_t>(data.cols());
  for_each_gathered_block(data.feature_rows(), std::move(picked), 4096,
                          [&](std::int64_t count, const float* block) {
                            for (std::int64_t r = 0; r < count; ++r, block += m) {
                              for (std::size_t p = 0; p < mean.level.size(); ++p) {
                                mean.level[p] += block[p * static_cast<std::size_t>(channels)];
                              }
                            }
                          });
  const auto [low, high] = std::minmax_element(mean.level.begin(), mean.level.end());
  const double span = *high > *low ? *high - *low : 1.0;
  const double low_value = *low;
  for (double& v : mean.level) v = (v - low_value) / span;
  mean.scale = picture_scale(mean.shape);
  return mean;
}

RgbImage overlay_selection(const MeanImage& mean, const std::vector<std::int64_t>& selected) {
  const ImageShape& shape = mean.shape;
  const int scale = mean.scale;
  RgbImage image = blank_image(shape.width * scale, shape.height * scale, kBlack);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      // The mean image is drawn dimmed so that the red marks stand out.
      const double v = mean.level[static_cast<std::size_t>((y / scale) * shape.width + x / scale)];
      const auto gray = static_cast<std::uint8_t>(std::lround(30 + 150 * v));
      image.set(x, y, {gray, gray, gray});
    }
  }
  const auto k = static_cast<double>(std::max<std::size_t>(1, selected.size()));
  for (std::size_t rank = 0; rank < selected.size(); ++rank) {
    const auto pixel = selected[rank] / shape.channels;
    const int py = static_cast<int>(pixel / shape.width);
    const int px = static_cast<int>(pixel % shape.width);
    // Best ranked in bright red, the last ones in a darker red.
    const auto red =
        static_cast<std::uint8_t>(255 - std::lround(90 * static_cast<double>(rank) / k));
    fill_rect(image, px * scale, py * scale, scale, scale, {red, 20, 20});
    draw_rect(image, px * scale, py * scale, scale, scale, {255, 230, 0});
  }
  return image;
}

}  // namespace

void RgbImage::set(int x, int y, Rgb color) {
  if (x < 0 || y < 0 || x >= width || y >= height) return;
  auto* p = &pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                     static_cast<std::size_t>(x)) *
                    3];
  p[0] = color.r;
  p[1] = color.g;
  p[2] = color.b;
}

Rgb RgbImage::at(int x, int y) const {
  TOPKFS_ASSERT(x >= 0 && y >= 0 && x < width && y < height);
  const auto* p = &pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                           static_cast<std::size_t>(x)) *
                          3];
  return {p[0], p[1], p[2]};
}

RgbImage blank_image(int width, int height, Rgb fill) {
  RgbImage image;
  image.width = std::max(0, width);
  image.height = std::max(0, height);
  image.pixels.resize(static_cast<std::size_t>(image.width) *
                      static_cast<std::size_t>(image.height) * 3);
  for (std::size_t i = 0; i < image.pixels.size(); i += 3) {
    image.pixels[i] = fill.r;
    image.pixels[i + 1] = fill.g;
    image.pixels[i + 2] = fill.b;
  }
  return image;
}

void fill_rect(RgbImage& image, int x, int y, int width, int height, Rgb color) {
  for (int yy = std::max(0, y); yy < std::min(image.height, y + height); ++yy) {
    for (int xx = std::max(0, x); xx < std::min(image.width, x + width); ++xx)
      image.set(xx, yy, color);
  }
}

void draw_rect(RgbImage& image, int x, int y, int width, int height, Rgb color) {
  if (width <= 0 || height <= 0) return;
  fill_rect(image, x, y, width, 1, color);
  fill_rect(image, x, y + height - 1, width, 1, color);
  fill_rect(image, x, y, 1, height, color);
  fill_rect(image, x + width - 1, y, 1, height, color);
}

void draw_line(RgbImage& image, int x0, int y0, int x1, int y1, Rgb color, int thickness) {
  const int offset = -(thickness - 1) / 2;
  const int dx = std::abs(x1 - x0);
  const int dy = -std::abs(y1 - y0);
  const int step_x = x0 < x1 ? 1 : -1;
  const int step_y = y0 < y1 ? 1 : -1;
  int error = dx + dy;
  for (;;) {
    fill_rect(image, x0 + offset, y0 + offset, thickness, thickness, color);
    if (x0 == x1 && y0 == y1) break;
    const int twice = 2 * error;
    if (twice >= dy) {
      error += dy;
      x0 += step_x;
    }
    if (twice <= dx) {
      error += dx;
      y0 += step_y;
    }
  }
}

void blit(RgbImage& target, const RgbImage& source, int x, int y) {
  for (int sy = 0; sy < source.height; ++sy) {
    for (int sx = 0; sx < source.width; ++sx) target.set(x + sx, y + sy, source.at(sx, sy));
  }
}

int picture_scale(const ImageShape& shape) {
  return std::max(1, 320 / std::max({shape.height, shape.width, 1}));
}

RgbImage draw_selection(const Dataset& data, const std::vector<std::int64_t>& rows,
                        const std::vector<std::int64_t>& selected) {
  return overlay_selection(mean_image(data, rows), selected);
}

RgbImage draw_selection_grid(const Dataset& data, const std::vector<std::int64_t>& rows,
                             const std::vector<CaptionedSelection>& selections, int columns) {
  if (selections.empty()) {
    throw OptionError("a grid of selections needs at least one selection");
  }
  const MeanImage mean = mean_image(data, rows);
  const int panel_width = mean.shape.width * mean.scale;
  const int panel_height = mean.shape.height * mean.scale;
  constexpr int kGap = 12;
  const int caption_height = text_height(2) + 8;
  const int count = static_cast<int>(selections.size());
  const int across = std::clamp(columns, 1, count);
  const int down = (count + across - 1) / across;
  RgbImage image = blank_image(kGap + across * (panel_width + kGap),
                               kGap + down * (caption_height + panel_height + kGap));
  for (int i = 0; i < count; ++i) {
    const auto& selection = selections[static_cast<std::size_t>(i)];
    const int left = kGap + (i % across) * (panel_width + kGap);
    const int top = kGap + (i / across) * (caption_height + panel_height + kGap);
    // Scale 2 when the caption fits at that size, else scale 1 and truncated.
    const int scale = text_width(selection.caption, 2) <= panel_width ? 2 : 1;
    draw_text(image, left + panel_width / 2, top + caption_height - 6 - text_height(scale),
              fit_text(selection.caption, panel_width, scale), {kBlack, scale, TextAlign::Center});
    blit(image, overlay_selection(mean, selection.selected), left, top + caption_height);
  }
  return image;
}

void write_png(const std::string& path, const RgbImage& image) {
  std::string encoded;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) {
    png_destroy_write_struct(&png, &info);
    throw Error(fmt::format("{}: cannot initialise the PNG encoder", path));
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw Error(fmt::format("{}: PNG encoding failed", path));
  }
  png_set_write_fn(png, &encoded, write_to_string, nullptr);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
               static_cast<png_uint_32>(image.height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) {
    png_write_row(
        png, const_cast<png_bytep>(&image.pixels[static_cast<std::size_t>(y * image.width * 3)]));
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  write_file_atomically(path, encoded);
}

}  // namespace topkfs
