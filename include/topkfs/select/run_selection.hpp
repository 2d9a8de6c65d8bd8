#pragma once
// Running a selector on a dataset the way `topkfs select` and the Python
// package do: choose the rows it may learn from, fit, and describe the data in
// the result.
#include <cstdint>
#include <string>

#include "topkfs/data/dataset.hpp"
#include "topkfs/data/splits.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

enum class SelectionRows {
  Auto,        // the predefined training split where there is one, else every row
  Predefined,  // the predefined training split (error when there is none)
  Random,      // a stratified random split; learn from its training part
  All,         // every row
};

SelectionRows parse_selection_rows(const std::string& name);  // auto|predefined|random|all

struct SelectionSplitOptions {
  SelectionRows rows = SelectionRows::Auto;
  double test_size = 0.2;  // for Random
  std::uint64_t seed = 0;  // for Random
};

// The rows a selector learns from, and a note saying which they are.
std::vector<std::int64_t> selection_rows(const Dataset& data, const SelectionSplitOptions& split,
                                         std::string& note);

// Fits `selector` on the rows chosen by `split` and fills the result's data
// description and notes.
SelectionResult run_selection(const Dataset& data, Selector& selector, int k,
                              const SelectionSplitOptions& split, const FitCallbacks& callbacks);

}  // namespace topkfs
