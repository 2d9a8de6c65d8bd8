#pragma once
// Private to `convert`. Writing NPY arrays, alone or as the stored members of
// an NPZ (zip) archive, with the payload written by a callback, so that an
// array never has to be in memory whole.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace topkfs::detail {

// Receives payload bytes in order.
using ByteSink = std::function<void(const char* bytes, std::size_t count)>;

struct NpyOutput {
  std::string name;   // the NPZ member's array name ("X"); unused for a lone NPY
  std::string descr;  // "<f4", "<i8", "<f8"
  std::vector<std::uint64_t> shape;
  std::uint64_t payload_bytes = 0;
  // Writes exactly payload_bytes to the sink; may be called more than once
  // (an NPZ member's CRC is computed before its local header is written).
  std::function<void(const ByteSink&)> write_payload;
};

// A version 1.0 NPY header: magic to newline, padded with spaces to a
// multiple of 64 bytes, so that the payload after it is aligned.
std::string npy_header(const std::string& descr, const std::vector<std::uint64_t>& shape);

// The array as an NPY file.
void write_npy(std::ostream& out, const NpyOutput& array);

// The arrays as an NPZ archive (numpy.savez's layout): members "<name>.npy"
// stored without compression, zip64 sizes throughout, and each member's
// payload at a 64-byte aligned offset (a padding extra field), so that a
// float32 member maps in place.
void write_npz(std::ostream& out, const std::vector<NpyOutput>& arrays);

}  // namespace topkfs::detail
