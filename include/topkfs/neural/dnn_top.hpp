#pragma once
// DNN^top (Wu & Cheng, eq. 6 and 8): a one-to-one layer w, a body (MLP or CNN),
// and the sub-model that shares every body weight but sees only the k inputs
// with the largest |w|. With lambda3 = 0 it is DFS (Li et al. 2016).
// This header keeps libtorch out: the implementation lives in src/neural/.
#include <memory>
#include <string>

#include "topkfs/neural/training_options.hpp"
#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

struct DnnTopOptions : NeuralTrainingOptions {
  // hidden: MLP hidden sizes; CNN: the dense layer(s) after the convolutions
  std::string body = "mlp";  // mlp | cnn
  double beta1 = 0.9;
  double beta2 = 0.999;
  double weight_decay = 0.0;  // Adam weight decay on the body (w has lambda1/lambda2)
  double lambda1 = 1e-4;      // lambda1 * ||w||_2^2
  double lambda2 = 1e-4;      // lambda2 * ||w||_1
  double lambda3 = 1.0;       // weight of the sub-model's loss; 0 = DFS
  std::string image_shape;    // e.g. 28x28 for --body cnn when the data has none

  // Throws OptionError naming the offending field.
  void validate() const;
};

const OptionTable<DnnTopOptions>& dnn_top_option_table();

// `dnn-top` (lambda3 from the options) or `dfs` (lambda3 forced to 0).
std::unique_ptr<Selector> make_dnn_top_selector(bool dfs);

}  // namespace topkfs
