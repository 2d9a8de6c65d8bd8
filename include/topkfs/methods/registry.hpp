#pragma once
// Every selection method by name: the one list the CLI and the Python package
// read.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/select/selector.hpp"

namespace topkfs {

struct MethodInfo {
  std::string name;
  std::string summary;
  std::function<std::unique_ptr<Selector>()> make;
};

const std::vector<MethodInfo>& registered_methods();

// Throws OptionError listing the registered names when `name` is unknown.
std::unique_ptr<Selector> make_selector(const std::string& name);

}  // namespace topkfs
