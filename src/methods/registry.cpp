#include "topkfs/methods/registry.hpp"

#include <fmt/format.h>

#include "topkfs/baselines/inffs.hpp"
#include "topkfs/baselines/random_forest_selector.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/linear/linear_selector.hpp"
#ifdef TOPKFS_WITH_TORCH
#include "topkfs/neural/baselines.hpp"
#include "topkfs/neural/dnn_top.hpp"
#endif

namespace topkfs {

const std::vector<MethodInfo>& registered_methods() {
  static const std::vector<MethodInfo> methods = {
#ifdef TOPKFS_WITH_TORCH
      {"dnn-top",
       "Neural network with the top-k regularization term (Wu & Cheng, eq. 6/8): MLP or CNN",
       [] { return make_dnn_top_selector(false); }},
      {"dfs", "Deep Feature Selection (Li et al. 2016): dnn-top with lambda3 = 0",
       [] { return make_dnn_top_selector(true); }},
      {"concrete",
       "Concrete selector (Abid et al. 2019), supervised: k Gumbel-softmax selector nodes + MLP",
       [] { return make_concrete_selector(); }},
      {"stg", "Stochastic gates (Yamada et al. 2020): Gaussian-relaxed Bernoulli gates + MLP",
       [] { return make_stg_selector(); }},
      {"fir",
       "Feature importance ranking (Wojtas & Chen 2020): operator and selector networks, mask "
       "search",
       [] { return make_fir_selector(); }},
#endif
      {"elastic-net-top", "Elastic net with the top-k term (Wu & Cheng, eq. 5), coordinate descent",
       [] { return make_linear_selector(LinearModel::ElasticNet, true); }},
      {"lasso-top", "Lasso with the top-k term (Wu & Cheng, eq. 4), coordinate descent",
       [] { return make_linear_selector(LinearModel::Lasso, true); }},
      {"ridge-top", "Ridge regression with the top-k term (Wu & Cheng, eq. 5, lambda2 = 0)",
       [] { return make_linear_selector(LinearModel::Ridge, true); }},
      {"elastic-net", "Elastic net (Zou & Hastie 2005): elastic-net-top with lambda3 = 0",
       [] { return make_linear_selector(LinearModel::ElasticNet, false); }},
      {"lasso", "Lasso (Tibshirani 1996): lasso-top with lambda3 = 0",
       [] { return make_linear_selector(LinearModel::Lasso, false); }},
      {"ridge", "Ridge regression (Hoerl & Kennard 1970): ridge-top with lambda3 = 0",
       [] { return make_linear_selector(LinearModel::Ridge, false); }},
      {"random-forest",
       "Impurity importance of a random forest (Breiman 2001), 100 trees; kind extra-trees too",
       [] { return make_random_forest_selector(); }},
      {"inffs",
       "Infinite Feature Selection (Roffo et al. 2015), supervised; several classes, real targets",
       [] { return make_inffs_selector(); }},
  };
  return methods;
}

std::unique_ptr<Selector> make_selector(const std::string& name) {
  std::string known;
  for (const auto& method : registered_methods()) {
    if (method.name == name) return method.make();
    known += (known.empty() ? "" : ", ") + method.name;
  }
  throw OptionError(fmt::format("unknown method '{}'; choose one of: {}", name, known));
}

}  // namespace topkfs
