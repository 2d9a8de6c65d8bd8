#pragma once
// Private to the readers. Typed binary elements (any width, either byte
// order) decoded into float/double, and the NPY header. The IDX reader shares
// the element decoding (its payload is big-endian typed values); the NPY and
// NPZ readers share the header and the layout (C or Fortran order) handling.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::detail {

enum class ElementKind { Bool, Signed, Unsigned, Float };

struct ElementType {
  ElementKind kind = ElementKind::Float;
  int size = 4;  // bytes per element: 1, 2, 4 or 8
  bool big_endian = false;

  std::string name() const;  // "float32", "uint8", "bool", ...
};

// Converts `count` packed elements at `src` (no alignment needed).
void decode_to_float(const ElementType& type, const char* src, std::size_t count, float* dst);
void decode_to_double(const ElementType& type, const char* src, std::size_t count, double* dst);
// Integers exactly (every 64-bit value fits); `type` must not be a float.
void decode_to_integers(const ElementType& type, const char* src, std::size_t count, __int128* dst);

// Product of `dims`; throws DataError naming `where` when it overflows 64 bits.
std::uint64_t checked_product(const std::vector<std::uint64_t>& dims, std::uint64_t factor,
                              const std::string& where);

// "60000 x 28 x 28"
std::string join_dims(const std::vector<std::uint64_t>& dims, const char* separator = " x ");

// ---- NPY ----

struct NpyHeader {
  std::string descr;  // as in the file: "<f8", "|u1", ...
  ElementType type;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t header_bytes = 0;  // magic to the first payload byte

  std::uint64_t elements() const;  // product of shape (checked at parse time)
  std::uint64_t payload_bytes() const { return elements() * static_cast<std::uint64_t>(type.size); }
  std::string shape_text() const;  // Python style: "(3, 4)", "(5,)"
};

// Bytes needed before parse_npy_header can run: the fixed preamble.
constexpr std::size_t kNpyPreambleBytes = 12;

// Total header length (magic to payload) from the first bytes of an NPY
// blob (`size` may be less than kNpyPreambleBytes for tiny, broken blobs).
std::uint64_t npy_header_length(const char* data, std::size_t size, const std::string& where);

// Parses a whole header (`size` >= npy_header_length). Rejects dtypes the
// readers cannot turn into numbers (complex, object, strings, structured).
NpyHeader parse_npy_header(const char* data, std::size_t size, const std::string& where);

// Throws DataError unless exactly payload_bytes() follow the header
// (`available` = bytes after the header). Call before allocating.
void check_npy_payload(const NpyHeader& header, std::uint64_t available, const std::string& where);

// How an array becomes a feature matrix: rows = shape[0], columns = the
// remaining axes flattened in C order; 3-D arrays are images (n, h, w) and
// 4-D arrays channels-last images (n, h, w, c).
struct MatrixLayout {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::optional<ImageShape> image;
};
// `mapped`: the matrix will be mapped, not allocated (see check_feature_shape).
MatrixLayout feature_layout(const NpyHeader& header, const std::string& what, bool mapped = false);

// Whether an array with this header can be used in place as the feature
// matrix: little-endian float32 in C order (a mapped file, an NPZ member
// stored without compression).
bool npy_maps_as_features(const NpyHeader& header);

// Decodes `count` elements, the ones at positions first..first+count-1 of
// the payload in file order, into the row-major matrix `out` of the
// array's own shape (handles Fortran order by scattering).
void decode_npy_elements(const NpyHeader& header, const char* src, std::uint64_t first,
                         std::size_t count, float* out);

// The whole array as row-major doubles (for targets).
std::vector<double> decode_npy_values(const NpyHeader& header, const char* payload);

// Feature names for a layout: "px_r_c" for images, "x<j>" otherwise.
std::vector<std::string> feature_names_for(const MatrixLayout& layout);

// A whole NPY blob in memory (a target file, an NPZ member).
struct NpyArray {
  NpyHeader header;
  std::string bytes;  // header included
  std::string where;  // names the array in messages: "y.npy", "data.npz: Y.npy"
  const char* payload() const { return bytes.data() + header.header_bytes; }
};

// Parses the header of `bytes` and checks the payload size against it.
NpyArray parse_npy_blob(std::string bytes, std::string where);

// Sets the target of `data` (via set_target_from_numbers) from `arrays`
// stacked by rows; each is (n_i,) or (n_i, q) with n_i == rows[i]. `name`
// names the target ("y", the array's name).
void set_npy_target(Dataset& data, const std::vector<const NpyArray*>& arrays,
                    const std::vector<std::int64_t>& rows, const std::string& name,
                    const ReadOptions& options);

// The feature matrix, allocated once; DataError instead of std::bad_alloc.
FeatureMatrix allocate_features(std::int64_t rows, std::int64_t cols, const std::string& where);

}  // namespace topkfs::detail
