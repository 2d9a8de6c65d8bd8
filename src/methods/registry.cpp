#include "topkfs/select/registry.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#ifdef TOPKFS_WITH_TORCH
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
#endif
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
