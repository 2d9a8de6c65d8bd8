#pragma once
// Private helpers for the readers that touch libhdf5 (the HDF5 reader, and the
// .mat reader whose v7.3 files are HDF5 underneath): owning handles, and
// silencing the library's own error printing (the library never prints).
#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace topkfs::hdf5 {

// An owning hid_t that is closed with the close function of its kind on
// every path, exceptions included.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);

  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  explicit operator bool() const { return valid(); }

  void reset() {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

inline Handle file_handle(hid_t id) { return Handle(id, H5Fclose); }
inline Handle dataset_handle(hid_t id) { return Handle(id, H5Dclose); }
inline Handle space_handle(hid_t id) { return Handle(id, H5Sclose); }
inline Handle type_handle(hid_t id) { return Handle(id, H5Tclose); }
inline Handle object_handle(hid_t id) { return Handle(id, H5Oclose); }
inline Handle attribute_handle(hid_t id) { return Handle(id, H5Aclose); }

// "7291x256" ("scalar" for rank 0), as variables and datasets are listed in
// messages.
std::string shape_text(const std::vector<std::uint64_t>& dims);

// Throws DataError when a header claims more elements than a file of its size
// could hold even at zlib's best compression ratio (about 1:1032): a corrupt
// header must not make the reader allocate gigabytes. `what` names the
// variable or dataset. Returns the element count (the product of `dims`).
std::uint64_t checked_element_count(const std::vector<std::uint64_t>& dims, const std::string& path,
                                    const std::string& what);

// The shape of an open dataset (empty for a scalar or on failure).
std::vector<std::uint64_t> dataset_dims(hid_t dataset);

// The chunk shape that a chunked dataset's creation property list `plist`
// gives, of `rank` dimensions as the dataset's dataspace has; nothing when
// it cannot be read. A side may be 0 in a corrupt file: each caller says
// what it does with them.
std::optional<std::vector<hsize_t>> chunk_shape(hid_t plist, int rank);

// Throws DataError naming `path` and the dataset `name` when a chunked
// dataset is cut into more chunks than the file has bytes (and more than
// kMinChunkGrid): almost all of it is then unwritten fill value, which
// libhdf5 reads at microseconds and kilobytes a chunk (a fuzzed 4.6 KB
// file: 393,216 chunks, seconds to read). A fully written dataset is never
// refused.
void check_chunk_grid(hid_t dataset, const std::string& path, const std::string& name);

// True when the open `dataset` keeps its values in other files (an
// external file list). The readers refuse those: a list names files
// anywhere on the machine, which would be read as the data.
bool has_external_storage(hid_t dataset);

// While one exists, HDF5's automatic printing of its error stack on stderr is
// off (failures come back as return codes and become DataError: the library
// never prints); when the last one ends, the handler in force before the
// first is put back, so a program's own HDF5 error handling is left as it
// was. Each entry of the library into libhdf5 holds one; they nest, and
// threads share the count (Debian's libhdf5 is the serial build, whose
// error settings are the process's).
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
};

}  // namespace topkfs::hdf5
