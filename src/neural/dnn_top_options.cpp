#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/neural/dnn_top.hpp"

namespace topkfs {

void DnnTopOptions::validate() const {
  auto fail = [](const std::string& message) { throw OptionError(message); };
  for (int size : hidden) {
    if (size <= 0) fail(fmt::format("--hidden: sizes must be positive, got {}", size));
  }
  if (body != "mlp" && body != "cnn") fail(fmt::format("--body takes mlp or cnn, not '{}'", body));
  if (epochs < 1) fail(fmt::format("--epochs must be at least 1, got {}", epochs));
  if (batch < 1) fail(fmt::format("--batch must be at least 1, got {}", batch));
  if (!(lr > 0)) fail(fmt::format("--lr must be positive, got {}", lr));
  if (!(beta1 >= 0 && beta1 < 1)) fail(fmt::format("--beta1 must be in [0, 1), got {}", beta1));
  if (!(beta2 >= 0 && beta2 < 1)) fail(fmt::format("--beta2 must be in [0, 1), got {}", beta2));
  if (weight_decay < 0) fail("--weight-decay must not be negative");
  if (lambda1 < 0 || lambda2 < 0 || lambda3 < 0) {
    fail(fmt::format("--lambda1/2/3 must not be negative (got {}, {}, {})", lambda1, lambda2,
                     lambda3));
  }
  if (!(validation >= 0 && validation < 1)) {
    fail(fmt::format("--validation must be in [0, 1), got {}", validation));
  }
  if (patience < 0) fail("--patience must not be negative");
  if (clip < 0) fail("--clip must not be negative");
  if (scaling != "auto" && scaling != "standard" && scaling != "minmax" && scaling != "image" &&
      scaling != "none") {
    fail(fmt::format("--scaling takes auto, standard, minmax, image or none, not '{}'", scaling));
  }
  if (threads < 0) fail("--threads must not be negative");
}

const OptionTable<DnnTopOptions>& dnn_top_option_table() {
  static const OptionTable<DnnTopOptions> table = [] {
    OptionTable<DnnTopOptions> t;
    t.add("hidden", &DnnTopOptions::hidden,
          "Hidden layer sizes of the body, comma-separated (MLP: every layer; CNN: the dense "
          "layers after the convolutions)")
        .add("body", &DnnTopOptions::body, "mlp, or cnn for image data (needs an image shape)")
        .add("epochs", &DnnTopOptions::epochs, "Maximum number of passes over the training rows")
        .add("batch", &DnnTopOptions::batch, "Minibatch size")
        .add("lr", &DnnTopOptions::lr, "Adam learning rate")
        .add("beta1", &DnnTopOptions::beta1, "Adam beta1")
        .add("beta2", &DnnTopOptions::beta2, "Adam beta2")
        .add("weight-decay", &DnnTopOptions::weight_decay,
             "Adam weight decay on the body (w is regularised by lambda1 and lambda2)")
        .add("lambda1", &DnnTopOptions::lambda1, "Weight of ||w||_2^2")
        .add("lambda2", &DnnTopOptions::lambda2, "Weight of ||w||_1")
        .add("lambda3", &DnnTopOptions::lambda3,
             "Weight of the top-k sub-model's loss (0 gives DFS)")
        .add("validation", &DnnTopOptions::validation,
             "Fraction of the training rows held out (stratified) for early stopping; 0 = none")
        .add("patience", &DnnTopOptions::patience,
             "Stop after this many epochs without a better validation loss (0 = never); the best "
             "weights are restored")
        .add("clip", &DnnTopOptions::clip, "Clip the gradient norm to this value (0 = off)")
        .add("scaling", &DnnTopOptions::scaling,
             "Input scaling fitted on the training rows: auto (image for image data, else "
             "standard), standard, minmax, image (divide by the largest value), none")
        .add("image-shape", &DnnTopOptions::image_shape,
             "HxW[xC] of the images for --body cnn when the data does not carry one")
        .add("seed", &DnnTopOptions::seed, "Seed of every random choice (init, shuffling, split)")
        .add("threads", &DnnTopOptions::threads,
             "Threads for libtorch, OpenMP and OpenBLAS together (0 = every core)");
    return t;
  }();
  return table;
}

}  // namespace topkfs
