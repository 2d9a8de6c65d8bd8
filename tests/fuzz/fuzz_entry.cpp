#include "fuzz_entry.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "reader_process_protocol.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/evaluation/report_io.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/resource_limits.hpp"
#include "topkfs/io/result_json.hpp"

namespace topkfs::fuzz {
namespace {

struct Reader {
  Format format;
  const char* extension;
};

// The result JSON has no Format: it is read by read_selection (`transform`)
// and read_report_json (`report`).
const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> table = {
      {"csv", {Format::Csv, ".csv"}},        {"libsvm", {Format::Libsvm, ".svm"}},
      {"idx", {Format::Idx, ".idx"}},        {"npy", {Format::Npy, ".npy"}},
      {"npz", {Format::Npz, ".npz"}},        {"mat", {Format::Mat, ".mat"}},
      {"hdf5", {Format::Hdf5, ".h5"}},       {"result_json", {Format::Auto, ".json"}},
      {"reader_answer", {Format::Auto, ""}},
  };
  return table;
}

// Scratch files in memory-backed /dev/shm where there is one: each input is
// written once per execution.
std::string scratch(const std::string& name) {
  static const std::string folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return folder + "/topkfs-fuzz-" + std::to_string(::getpid()) + "-" + name;
}

void write(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// An IDX images file needs its labels: a fixed labels file of as many labels
// as the images header claims rows (at most a few thousand), so the fuzzer
// gets past the pairing check into the payload.
std::string labels_for(const std::uint8_t* data, std::size_t size) {
  std::uint32_t rows = 0;
  if (size >= 8) rows = (data[4] << 24) | (data[5] << 16) | (data[6] << 8) | data[7];
  if (rows > 4096) rows = 1;
  std::string bytes("\0\0\x08\x01", 4);
  for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((rows >> shift) & 0xff);
  for (std::uint32_t i = 0; i < rows; ++i) bytes += static_cast<char>(i % 3);
  const std::string path = scratch("labels");
  write(path, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return path;
}

// The HDF5 reader program's answer (its CBOR report of what it read, beside
// the matrix): the reading process decodes it after the program has read a
// file that may be hostile, so it is checked as any input is. A decoded
// answer small enough to hold is given its matrix and validated as
// read_dataset validates what it returns.
void decode_reader_answer(const std::uint8_t* data, std::size_t size) {
  namespace protocol = detail::reader_process;
  protocol::MatrixShape shape;
  Dataset decoded = protocol::dataset_from_description(
      std::string(reinterpret_cast<const char*>(data), size), &shape, "answer");
  if (static_cast<std::uint64_t>(shape.rows) * static_cast<std::uint64_t>(shape.cols) >
      (1u << 20)) {
    return;
  }
  decoded.features = FeatureMatrix(shape.rows, shape.cols);
  decoded.features.setZero();
  decoded.validate();
}

}  // namespace

bool is_reader(const std::string& name) { return readers().count(name) == 1; }

void read_bytes(const std::string& name, const std::uint8_t* data, std::size_t size) {
  // The readers refuse what exceeds the memory they may use. At 1 GB every
  // allocation they accept stays under the fuzzers' 2 GB limit (with ASan's
  // overhead), so a larger one is an allocation no check saw. The limits of
  // the environment (TOPKFS_MEMORY_LIMIT, TOPKFS_HDF5_READER_MEMORY_MB, which
  // scripts/fuzz.sh sets) are taken as the command takes them; a memory
  // limit there wins.
  static const bool limited = [] {
    ResourceLimits limits = resource_limits_from_environment();
    if (limits.memory_bytes == 0) limits.memory_bytes = std::uint64_t{1} << 30;
    set_resource_limits(limits);
    return true;
  }();
  (void)limited;
  if (name == "reader_answer") {
    try {
      decode_reader_answer(data, size);
    } catch (const Error&) {
    }
    return;
  }
  const Reader& reader = readers().at(name);
  const std::string path = scratch("input" + std::string(reader.extension));
  write(path, data, size);
  try {
    if (name == "result_json") {
      try {
        read_selection(path);
      } catch (const Error&) {
      }
      read_report_json(path);
    } else {
      ReadOptions options;
      options.format = reader.format;
      if (name != "libsvm") {
        // The same bytes read without a target (`transform --no-target`):
        // every CSV column a feature, X alone, IDX images without labels.
        ReadOptions features_only = options;
        features_only.no_target = true;
        try {
          read_dataset(path, features_only);
        } catch (const Error&) {
        }
      }
      if (name == "idx") options.labels_path = labels_for(data, size);
      read_dataset(path, options);
    }
  } catch (const Error&) {
    // A refused input: the expected outcome.
  }
  std::remove(path.c_str());
  // The IDX labels file too: a fuzz run that ends leaves nothing in /dev/shm.
  if (name == "idx") std::remove(scratch("labels").c_str());
}

}  // namespace topkfs::fuzz
