#pragma once
// Pictures of selections on image data: the selected pixels drawn over the
// mean image, so a user sees at a glance where the chosen features are.
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // row-major RGB
};

// The mean of rows `rows` of `data` (all rows when empty) as a gray image,
// enlarged so that its longer side is about 320 pixels, with every selected
// pixel filled in red and outlined, brightest for the best ranked.
// Requires data.image_shape (single channel, or the first channel is used).
RgbImage draw_selection(const Dataset& data, const std::vector<std::int64_t>& rows,
                        const std::vector<std::int64_t>& selected);

// Writes `image` as PNG, atomically.
void write_png(const std::string& path, const RgbImage& image);

}  // namespace topkfs
