#pragma once
// Files built byte by byte, as a hostile user or a corrupt disk makes them:
// headers that claim what the data does not hold. Python's writers cannot
// produce these, so the tests build them here.
#include <cstdint>
#include <string>
#include <vector>

namespace topkfs::test {

// An NPY blob with the header dictionary `dict`, padded as numpy pads it (to
// a multiple of 64 bytes, ending in a newline); `major` 1 has a 2-byte header
// length, 2 a 4-byte one.
std::string npy_bytes(const std::string& dict, const std::string& payload, int major = 1);

// A zip member: its name, its bytes, and whether it is deflated. A deflated
// member's size field says `claimed_size` when it is not 0.
struct ZipMember {
  std::string name;
  std::string bytes;
  bool deflate = false;
  std::uint64_t claimed_size = 0;
};

// A zip archive (as numpy.savez writes one) of `members`.
std::string zip_bytes(const std::vector<ZipMember>& members);

// A MATLAB v5 file of double matrices: each variable has its dimensions and
// its stored values, which may be fewer than the dimensions need.
struct MatVariable {
  std::string name;
  std::uint32_t rows = 0;
  std::uint32_t cols = 0;
  std::vector<double> values;  // column-major
};
std::string mat_v5_bytes(const std::vector<MatVariable>& variables);

// A big-endian IDX header (type 0x08, unsigned bytes) for `dims`.
std::string idx_header(const std::vector<std::uint32_t>& dims);

// Writes `head` to a new file in temp_dir() and extends it with a hole to
// `size` bytes: a file that claims terabytes costs no disk.
std::string sparse_file(const std::string& name, const std::string& head, std::uint64_t size);

}  // namespace topkfs::test
