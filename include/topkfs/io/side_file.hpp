#pragma once
// The small CSV files that come beside a dataset (--groups, --weight-file,
// --class-weight): lines of comma-separated fields, each trimmed of blanks
// and of one pair of double quotes; blank lines are skipped.
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct SideFileLine {
  std::int64_t number = 0;  // 1-based line of the file
  std::vector<std::string> fields;
};

// Every non-blank line of `path`; DataError "PATH: cannot open the WHAT"
// when it cannot be read.
std::vector<SideFileLine> read_side_file(const std::string& path, const std::string& what);

// The column of `data` that `spec` names: a column name first, else a
// 0-based index; -1 when it names none.
std::int64_t column_named(const Dataset& data, const std::string& spec);

}  // namespace topkfs
