#pragma once
// The linear lead models as selection methods: lasso, ridge, elastic-net
// (lambda3 = 0) and lasso-top, ridge-top, elastic-net-top (Wu & Cheng eq. 4
// and 5). The objective and its scaling are in linear_model.hpp; the choice of
// defaults is explained in docs/linear.md.
#include <memory>
#include <string>

#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

enum class LinearModel { Lasso, Ridge, ElasticNet };

struct LinearOptions {
  double lambda1 = 0.1;   // lambda1/2 ||w||^2 (elastic net, ridge); lasso has 0
  double lambda2 = -1.0;  // lambda2 ||w||_1; negative: walk the path (see help)
  double lambda3 = 1.0;   // weight of the top-k sub-model's loss (-top models)
  double tol = 1e-7;      // relative objective change between sweeps
  int max_iter = 1000;    // coordinate sweeps per fit (per path point)
  int path_points = 100;  // length of the lambda2 path
  double eps = 1e-3;      // the path ends at eps * lambda2_max
  std::string solver = "auto";  // auto | covariance | naive
  int threads = 0;              // 0 = every core

  // Throws OptionError naming the offending field.
  void validate() const;
};

const OptionTable<LinearOptions>& linear_option_table();

// The registry name of a model: "lasso", "ridge-top", ...
std::string linear_method_name(LinearModel model, bool top_k);

std::unique_ptr<Selector> make_linear_selector(LinearModel model, bool top_k);

}  // namespace topkfs
