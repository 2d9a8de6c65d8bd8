#pragma once
// The representativeness study of the paper (docs/method.md §3, protocol 5):
// USPS's 16x16 digits padded to 28x28 with a 6-pixel border of noise. A
// selector that finds the informative pixels leaves the border alone; one
// that chases variance picks noise.
#include <cstdint>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

// Every image of `data` centred in an image of `target` shape (single
// channel), the border filled with independent uniform noise over the data's
// own value range [min, max], drawn from `seed`. Pixel names become
// "px_<row>_<column>" of the padded image; target, split and provenance are
// kept, and a note says what was done. Throws OptionError when the data has
// no image shape, several channels, or an image larger than `target`.
Dataset pad_images_with_noise(const Dataset& data, const ImageShape& target,
                              std::uint64_t seed = 0);

// Whether column `column` of an image padded by pad_images_with_noise from
// `original` to `target` is a border (noise) pixel.
bool is_padding_pixel(const ImageShape& original, const ImageShape& target, std::int64_t column);

}  // namespace topkfs
