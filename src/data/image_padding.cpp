#include "topkfs/data/image_padding.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

struct Offset {
  int top = 0;
  int left = 0;
};

Offset centring(const ImageShape& original, const ImageShape& target) {
  return {(target.height - original.height) / 2, (target.width - original.width) / 2};
}

void check_shapes(const Dataset& data, const ImageShape& target) {
  if (!data.image_shape) {
    throw OptionError(fmt::format("{} needs image data: {} carries no image shape; give {}",
                                  option_ref("pad-images"), data.source,
                                  option_ref("image-shape", "HxW")));
  }
  const ImageShape& shape = *data.image_shape;
  if (shape.channels != 1 || target.channels != 1) {
    throw OptionError(fmt::format("{} takes single-channel images", option_ref("pad-images")));
  }
  if (target.height < shape.height || target.width < shape.width) {
    throw OptionError(
        fmt::format("{} is smaller than the {}x{} images of {}",
                    option_ref("pad-images", fmt::format("{}x{}", target.height, target.width)),
                    shape.height, shape.width, data.source));
  }
}

}  // namespace

bool is_padding_pixel(const ImageShape& original, const ImageShape& target, std::int64_t column) {
  const Offset offset = centring(original, target);
  const auto row = static_cast<int>(column / target.width);
  const auto col = static_cast<int>(column % target.width);
  return row < offset.top || row >= offset.top + original.height || col < offset.left ||
         col >= offset.left + original.width;
}

Dataset pad_images_with_noise(const Dataset& data, const ImageShape& target, std::uint64_t seed) {
  check_shapes(data, target);
  const ImageShape& shape = *data.image_shape;
  const Offset offset = centring(shape, target);
  const float low = data.features.size() ? data.features.minCoeff() : 0.0f;
  const float high = data.features.size() ? data.features.maxCoeff() : 1.0f;

  Dataset padded = data;  // target, split, names of classes, provenance
  padded.features.resize(data.rows(), target.pixels());
  Rng rng(seed);
  for (std::int64_t i = 0; i < data.rows(); ++i) {
    for (std::int64_t column = 0; column < target.pixels(); ++column) {
      padded.features(i, column) = static_cast<float>(rng.uniform(low, high));
    }
    for (int r = 0; r < shape.height; ++r) {
      for (int c = 0; c < shape.width; ++c) {
        padded.features(i, (offset.top + r) * target.width + offset.left + c) =
            data.features(i, r * shape.width + c);
      }
    }
  }
  padded.feature_names.clear();
  for (int r = 0; r < target.height; ++r) {
    for (int c = 0; c < target.width; ++c)
      padded.feature_names.push_back(fmt::format("px_{}_{}", r, c));
  }
  padded.image_shape = target;
  padded.notes.push_back(fmt::format(
      "images padded from {}x{} to {}x{}: the border is uniform noise on [{:g}, {:g}] (seed {})",
      shape.height, shape.width, target.height, target.width, low, high, seed));
  return padded;
}

}  // namespace topkfs
