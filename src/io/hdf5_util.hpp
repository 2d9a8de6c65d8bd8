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

// Object header message types (HDF5 File Format Specification, "Header
// Message Type #"), for the checks that read object headers themselves.
enum MessageType : std::uint16_t {
  kDataspaceMessage = 0x01,
  kDatatypeMessage = 0x03,
  kOldFillValueMessage = 0x04,
  kFillValueMessage = 0x05,
  kExternalFilesMessage = 0x07,
  kLayoutMessage = 0x08,
  kFilterPipelineMessage = 0x0B,
  kAttributeMessage = 0x0C,
  kContinuationMessage = 0x10,
  kSymbolTableMessage = 0x11,
};

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
// it cannot be read. A side may be 0 in a corrupt file: check_storage
// refuses those, and each caller says what it does with them.
std::optional<std::vector<hsize_t>> chunk_shape(hid_t plist, int rank);

// Throws DataError naming `path` and `name` unless the dataset's number type
// and storage layout are consistent with its shape. libhdf5 1.10 trusts what
// it finds in the file and overruns its buffers on a corrupt type or layout
// (a chunk larger than a fixed dimension, a raw chunk shorter than the chunk
// shape, a gzip chunk inflating to less than a chunk), so every dataset is
// checked before H5Dread: its layout, and every written chunk of a filtered
// dataset read raw and decoded. check_storage is both; the probe, which
// reads a large dataset's first and last rows only, checks the layout once
// and decodes the chunks of each range of rows it reads
// (check_decoded_rows: rows [first, first + count); `progress`, when
// given, is called every 256 chunks).
void check_storage(hid_t dataset, const std::string& path, const std::string& name);
void check_storage_layout(hid_t dataset, const std::string& path, const std::string& name);
void check_decoded_rows(hid_t dataset, const std::string& path, const std::string& name,
                        std::uint64_t first, std::uint64_t count,
                        const std::function<void()>& progress);

// Throws DataError naming `path` when the symbol table of a group points
// outside the file: its B-tree, or a local heap whose link names would lie
// past the end. libhdf5 1.10 reads them without checking when it looks a
// name up (H5Lexists, H5Oopen) or lists a group (H5Lvisit), and crashes on a
// null buffer (fuzzed files: the root group's heap, then a subgroup's).
// Every group reachable from the root is checked, in files with a version
// 0 or 1 superblock, as h5py and MATLAB write; so are the object headers'
// sizes and continuation blocks and the superblock's driver information
// block, whose claimed sizes libhdf5 allocates before reading them, and the
// messages libhdf5 decodes when it opens a dataset, attributes' datatypes
// and dataspaces included (message_overrun).
void check_symbol_tables(const std::string& path);

// Empty when `body`, an object header message of `type`, holds all that its
// own fields claim, as libhdf5 1.10 decodes it when it opens a dataset (its
// dataspace, datatype, fill value, layout and filter pipeline; other types
// pass); otherwise what would be read past its end. libhdf5 trusts those
// fields: a fuzzed enumerated type claiming 13,361 members had its names
// copied up to their NULs past the end of the object header's buffer.
// `offset_size` and `length_size` are the file's address and length widths.
std::string message_overrun(unsigned type, const std::string& body, unsigned offset_size,
                            unsigned length_size);

// True when the object `name` (below `location`) is a dataset that keeps its
// values in other files: its object header holds an external file list.
// Read from the header's list of message types, without opening the object
// or decoding the list (false when the header cannot be read).
bool has_external_storage(hid_t location, const char* name);

// Throws DataError naming `path` and the dataset when any dataset of the file
// keeps its values in other files. libhdf5 1.10 copies each file name of an
// external file list out of a local heap up to its NUL, when it opens the
// dataset, without bounds (a hand-made name with no NUL before the heap's
// end was read past its block); and a sound list names files anywhere on the
// machine, which would be read as the data. For files the probe has walked.
void check_no_external_storage(const std::string& path);

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
