// The paper's representativeness study (docs/method.md §3, protocol 5): USPS
// padded from 16x16 to 28x28 with a noise border. Two thirds of the padded
// image is noise, so a selector that picks pixels at random puts two thirds of
// its selection there; dnn-top must leave the border almost alone.
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "topkfs/data/image_padding.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/select/run_selection.hpp"

namespace topkfs {
namespace {

TEST(Representativeness, DnnTopLeavesTheNoiseBorderOfPaddedUspsAlone) {
  TOPKFS_REQUIRE_SHARED_DATA("usps");
  const Dataset usps = read_dataset(test::shared_data("usps/usps.h5"));
  const Dataset padded = pad_images_with_noise(usps, {28, 28, 1});
  auto selector = make_selector("dnn-top");
  selector->set_option("epochs", "6");
  selector->set_option("seed", "0");
  const SelectionResult result = run_selection(padded, *selector, 50, {}, {});
  int border = 0;
  for (const auto column : result.selected)
    border += is_padding_pixel({16, 16, 1}, {28, 28, 1}, column);
  // 528 of the 784 pixels are noise: chance would put about 34 of 50 there.
  EXPECT_LE(border, 5) << border << " of 50 selected pixels are noise";
}

}  // namespace
}  // namespace topkfs
