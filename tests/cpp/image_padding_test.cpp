// Padding images with a noise border (the representativeness study).
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "topkfs/data/image_padding.hpp"

namespace topkfs {
namespace {

Dataset small_images() {
  Dataset data;
  data.source = "tiny";
  data.features.resize(3, 4);
  data.features << 0.0f, 0.25f, 0.5f, 1.0f,  //
      0.1f, 0.2f, 0.3f, 0.4f,                //
      0.9f, 0.8f, 0.7f, 0.6f;
  data.feature_names = {"a", "b", "c", "d"};
  data.target_kind = TargetKind::Classes;
  data.labels = {0, 1, 0};
  data.class_names = {"x", "y"};
  data.image_shape = ImageShape{2, 2, 1};
  return data;
}

TEST(ImagePadding, CentresTheImageInANoiseBorder) {
  const Dataset data = small_images();
  const Dataset padded = pad_images_with_noise(data, {4, 6, 1}, 5);
  ASSERT_EQ(padded.rows(), 3);
  ASSERT_EQ(padded.cols(), 24);
  ASSERT_TRUE(padded.image_shape);
  EXPECT_EQ(padded.image_shape->width, 6);
  EXPECT_EQ(padded.labels, data.labels);
  EXPECT_EQ(padded.feature_names[7], "px_1_1");
  int border = 0;
  for (std::int64_t column = 0; column < 24; ++column)
    border += is_padding_pixel({2, 2, 1}, {4, 6, 1}, column);
  EXPECT_EQ(border, 24 - 4);
  for (std::int64_t i = 0; i < 3; ++i) {
    // The 2x2 image sits at rows 1..2, columns 2..3 of the 4x6 one.
    EXPECT_EQ(padded.features(i, 1 * 6 + 2), data.features(i, 0));
    EXPECT_EQ(padded.features(i, 1 * 6 + 3), data.features(i, 1));
    EXPECT_EQ(padded.features(i, 2 * 6 + 2), data.features(i, 2));
    EXPECT_EQ(padded.features(i, 2 * 6 + 3), data.features(i, 3));
    for (std::int64_t column = 0; column < 24; ++column) {
      EXPECT_GE(padded.features(i, column), 0.0f);
      EXPECT_LE(padded.features(i, column), 1.0f);
    }
  }
  // Noise differs between pixels and is reproducible from the seed.
  EXPECT_NE(padded.features(0, 0), padded.features(0, 1));
  EXPECT_EQ(padded.features, pad_images_with_noise(data, {4, 6, 1}, 5).features);
  EXPECT_NE(padded.features, pad_images_with_noise(data, {4, 6, 1}, 6).features);
}

TEST(ImagePadding, RefusesDataItCannotPad) {
  Dataset data = small_images();
  EXPECT_TRUE(test::contains(test::error_of<OptionError>([&] {
                               pad_images_with_noise(data, {1, 6, 1});
                             }),
                             "smaller than the 2x2 images"));
  data.image_shape.reset();
  EXPECT_TRUE(test::contains(test::error_of<OptionError>([&] {
                               pad_images_with_noise(data, {4, 4, 1});
                             }),
                             "needs image data"));
}

}  // namespace
}  // namespace topkfs
