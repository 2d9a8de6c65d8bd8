// The libFuzzer entry of one reader; TOPKFS_FUZZ_READER names it at compile
// time (one executable per reader, so that each has its own coverage).
#include "fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  topkfs::fuzz::read_bytes(TOPKFS_FUZZ_READER, data, size);
  return 0;
}
