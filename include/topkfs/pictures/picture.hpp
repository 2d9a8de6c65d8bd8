#pragma once
// RGB pictures: the canvas every drawing of the library paints on (selections,
// charts, frequency maps), its few primitives, and PNG output. The selected
// pixels drawn over the mean image let a user see at a glance where the
// chosen features are.
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct Rgb {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  bool operator==(const Rgb& other) const { return r == other.r && g == other.g && b == other.b; }
  bool operator!=(const Rgb& other) const { return !(*this == other); }
};

inline constexpr Rgb kWhite{255, 255, 255};
inline constexpr Rgb kBlack{0, 0, 0};

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // row-major RGB

  // Painting outside the image does nothing, so that every drawing clips.
  void set(int x, int y, Rgb color);
  // Requires 0 <= x < width and 0 <= y < height.
  Rgb at(int x, int y) const;
};

// A rectangle of pixels: columns x .. x + width - 1, rows y .. y + height - 1.
struct PixelRect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
  bool contains(int px, int py) const {
    return px >= x && py >= y && px < x + width && py < y + height;
  }
};

// A width x height image filled with `fill`.
RgbImage blank_image(int width, int height, Rgb fill = kWhite);

void fill_rect(RgbImage& image, int x, int y, int width, int height, Rgb color);
// The one-pixel outline of the rectangle (x, y, width, height).
void draw_rect(RgbImage& image, int x, int y, int width, int height, Rgb color);
// A Bresenham line; thickness t paints a t x t square at each step, offset
// by -(t - 1) / 2, so that thickness 2 covers (x..x+1, y..y+1).
void draw_line(RgbImage& image, int x0, int y0, int x1, int y1, Rgb color, int thickness = 1);
// Copies `source` into `target` with its top-left corner at (x, y), clipped.
void blit(RgbImage& target, const RgbImage& source, int x, int y);

// How many times pictures of images enlarge them: their longer side becomes
// about 320 pixels (at least scale 1).
int picture_scale(const ImageShape& shape);

// The mean of rows `rows` of `data` (all rows when empty) as a gray image,
// enlarged so that its longer side is about 320 pixels, with every selected
// pixel filled in red and outlined, brightest for the best ranked.
// Requires data.image_shape (single channel, or the first channel is used).
RgbImage draw_selection(const Dataset& data, const std::vector<std::int64_t>& rows,
                        const std::vector<std::int64_t>& selected);

// One panel of draw_selection_grid: a selection and the caption above it
// (the method's name, say).
struct CaptionedSelection {
  std::string caption;
  std::vector<std::int64_t> selected;  // best ranked first
};

// The panels side by side, at most `columns` per row, each drawn as
// draw_selection draws it (the mean image is computed once) with its caption
// above, truncated with ".." to the panel's width. Same requirements as
// draw_selection; throws OptionError when `selections` is empty.
RgbImage draw_selection_grid(const Dataset& data, const std::vector<std::int64_t>& rows,
                             const std::vector<CaptionedSelection>& selections, int columns = 4);

// Writes `image` as PNG, atomically.
void write_png(const std::string& path, const RgbImage& image);

}  // namespace topkfs
