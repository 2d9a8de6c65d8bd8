#pragma once
// Private to the .mat reader. matio accepts a v5 variable whose stored values
// are fewer than its dimensions claim: the missing values come back as
// uninitialised memory (a short target) or zeros (a short matrix). These
// checks read each top-level element's own description instead, compressed
// (miCOMPRESSED) or not, before matio reads a value.
#include <cstdint>
#include <istream>
#include <string>

namespace topkfs::detail {

// Checks the top-level v5 element whose 8-byte tag is at `offset` and whose
// body is `length` bytes (already known to lie inside the file). Throws
// DataError naming `path`, the byte offset and the variable when a numeric
// matrix stores fewer bytes than its dimensions need.
void check_mat_v5_element(std::istream& in, std::uint64_t offset, std::uint64_t length,
                          bool swapped, const std::string& path);

}  // namespace topkfs::detail
