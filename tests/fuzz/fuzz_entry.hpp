#pragma once
// One entry per reader for the fuzz targets (built with libFuzzer when
// TOPKFS_FUZZ is ON) and for the replay test, which runs every seed and
// every crash the fuzzers ever found through the same entry in a normal
// build: a crash found once stays fixed.
#include <cstddef>
#include <cstdint>
#include <string>

namespace topkfs::fuzz {

// The reader names, which are also the corpus and regression folder names:
// csv, libsvm, idx, npy, npz, mat, hdf5, result_json, and reader_answer
// (the HDF5 reader program's report, decoded by the reading process).
bool is_reader(const std::string& name);

// Writes the bytes to a scratch file the reader can open and reads it;
// errors the reader reports (topkfs::Error) are the expected outcome for
// most inputs, anything else (a crash, a sanitizer report, another
// exception) is a finding.
void read_bytes(const std::string& reader, const std::uint8_t* data, std::size_t size);

}  // namespace topkfs::fuzz
