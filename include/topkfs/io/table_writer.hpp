#pragma once
// Writing data back out as CSV: the reduced data of `select --output-data` and
// `transform`.
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

// Writes columns `columns` of `data` (in that order) and then the target
// column(s) as CSV with a header line; class targets are written with their
// original names. Atomic: no partial file on failure.
void write_selected_columns(const std::string& path, const Dataset& data,
                            const std::vector<std::int64_t>& columns);

}  // namespace topkfs
