#include "topkfs/io/picture.hpp"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <cmath>

#include "topkfs/core/error.hpp"
#include "topkfs/io/atomic_file.hpp"

namespace topkfs {
namespace {

void put(RgbImage& image, int x, int y, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  if (x < 0 || y < 0 || x >= image.width || y >= image.height) return;
  auto* p = &image.pixels[static_cast<std::size_t>((y * image.width + x) * 3)];
  p[0] = r;
  p[1] = g;
  p[2] = b;
}

void write_to_string(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}

}  // namespace

RgbImage draw_selection(const Dataset& data, const std::vector<std::int64_t>& rows,
                        const std::vector<std::int64_t>& selected) {
  if (!data.image_shape) {
    throw OptionError(fmt::format(
        "{}: a picture needs image data; give --image-shape HxW for rows that are images",
        data.source));
  }
  const ImageShape shape = *data.image_shape;
  const int channels = shape.channels;
  std::vector<double> mean(static_cast<std::size_t>(shape.height * shape.width), 0.0);
  const auto count = rows.empty() ? data.rows() : static_cast<std::int64_t>(rows.size());
  for (std::int64_t r = 0; r < count; ++r) {
    const auto row = rows.empty() ? r : rows[static_cast<std::size_t>(r)];
    for (std::size_t p = 0; p < mean.size(); ++p) {
      mean[p] += data.features(row, static_cast<Eigen::Index>(p) * channels);
    }
  }
  const auto [low, high] = std::minmax_element(mean.begin(), mean.end());
  const double span = *high > *low ? *high - *low : 1.0;
  const double low_value = *low;

  const int scale = std::max(1, 320 / std::max(shape.height, shape.width));
  RgbImage image;
  image.width = shape.width * scale;
  image.height = shape.height * scale;
  image.pixels.assign(static_cast<std::size_t>(image.width * image.height * 3), 0);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      // The mean image is drawn dimmed so that the red marks stand out.
      const double v = (mean[static_cast<std::size_t>((y / scale) * shape.width + x / scale)] - low_value) / span;
      const auto gray = static_cast<std::uint8_t>(std::lround(30 + 150 * v));
      put(image, x, y, gray, gray, gray);
    }
  }
  const auto k = static_cast<double>(std::max<std::size_t>(1, selected.size()));
  for (std::size_t rank = 0; rank < selected.size(); ++rank) {
    const auto pixel = selected[rank] / channels;
    const int py = static_cast<int>(pixel / shape.width);
    const int px = static_cast<int>(pixel % shape.width);
    // Best ranked in bright red, the last ones in a darker red.
    const auto red = static_cast<std::uint8_t>(255 - std::lround(90 * static_cast<double>(rank) / k));
    for (int dy = 0; dy < scale; ++dy) {
      for (int dx = 0; dx < scale; ++dx) {
        const bool border = dx == 0 || dy == 0 || dx == scale - 1 || dy == scale - 1;
        if (border) {
          put(image, px * scale + dx, py * scale + dy, 255, 230, 0);
        } else {
          put(image, px * scale + dx, py * scale + dy, red, 20, 20);
        }
      }
    }
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
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height),
               8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) {
    png_write_row(png, const_cast<png_bytep>(&image.pixels[static_cast<std::size_t>(y * image.width * 3)]));
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  write_file_atomically(path, encoded);
}

}  // namespace topkfs
