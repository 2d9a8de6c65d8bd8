#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/neural/dnn_top.hpp"
#include "training_option_table.hpp"

namespace topkfs {

void DnnTopOptions::validate() const {
  validate_training();
  auto fail = [](const std::string& message) { throw OptionError(message); };
  if (body != "mlp" && body != "cnn") fail(fmt::format("--body takes mlp or cnn, not '{}'", body));
  if (!(beta1 >= 0 && beta1 < 1)) fail(fmt::format("--beta1 must be in [0, 1), got {}", beta1));
  if (!(beta2 >= 0 && beta2 < 1)) fail(fmt::format("--beta2 must be in [0, 1), got {}", beta2));
  if (weight_decay < 0) fail("--weight-decay must not be negative");
  if (lambda1 < 0 || lambda2 < 0 || lambda3 < 0) {
    fail(fmt::format("--lambda1/2/3 must not be negative (got {}, {}, {})", lambda1, lambda2,
                     lambda3));
  }
}

const OptionTable<DnnTopOptions>& dnn_top_option_table() {
  static const OptionTable<DnnTopOptions> table = [] {
    OptionTable<DnnTopOptions> t;
    add_training_options(t,
                         "Hidden layer sizes of the body, comma-separated (MLP: every layer; CNN: "
                         "the dense layers after the convolutions)");
    t.add("body", &DnnTopOptions::body, "mlp, or cnn for image data (needs an image shape)")
        .add("beta1", &DnnTopOptions::beta1, "Adam beta1")
        .add("beta2", &DnnTopOptions::beta2, "Adam beta2")
        .add("weight-decay", &DnnTopOptions::weight_decay,
             "Adam weight decay on the body (w is regularised by lambda1 and lambda2)")
        .add("lambda1", &DnnTopOptions::lambda1, "Weight of ||w||_2^2")
        .add("lambda2", &DnnTopOptions::lambda2, "Weight of ||w||_1")
        .add("lambda3", &DnnTopOptions::lambda3,
             "Weight of the top-k sub-model's loss (0 gives DFS)")
        .add("image-shape", &DnnTopOptions::image_shape,
             "HxW[xC] of the images for --body cnn when the data does not carry one");
    return t;
  }();
  return table;
}

}  // namespace topkfs
