#include "mat_v5_elements.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "topkfs/core/error.hpp"

namespace topkfs::detail {
namespace {

// Data types and classes of the MAT-file v5 format.
constexpr std::uint32_t kMiInt8 = 1, kMiUint8 = 2, kMiInt16 = 3, kMiUint16 = 4, kMiInt32 = 5,
                        kMiUint32 = 6, kMiSingle = 7, kMiDouble = 9, kMiInt64 = 12, kMiUint64 = 13,
                        kMiMatrix = 14, kMiCompressed = 15;
constexpr std::uint32_t kFirstNumericClass = 6;  // mxDOUBLE_CLASS .. mxUINT64_CLASS
constexpr std::uint32_t kLastNumericClass = 15;
constexpr std::uint32_t kSparseClass = 5;
// Cells, structs and objects hold their elements as matrix elements of
// their own, each at least a tag of 8 bytes.
constexpr std::uint32_t kCellClass = 1, kObjectClass = 3;
constexpr std::uint64_t kTagBytes = 8;
constexpr std::uint64_t kArrayFlagsBytes = 8;  // class and flags, then nzmax
// The array flags, dims, name and real-part tag of a matrix: a rank of up to
// a few hundred and a name of 63 characters fit well inside this.
constexpr std::size_t kDescriptionBytes = 4096;

std::uint64_t element_width(std::uint32_t type) {
  switch (type) {
    case kMiInt8:
    case kMiUint8: return 1;
    case kMiInt16:
    case kMiUint16: return 2;
    case kMiInt32:
    case kMiUint32:
    case kMiSingle: return 4;
    case kMiDouble:
    case kMiInt64:
    case kMiUint64: return 8;
    default: return 0;
  }
}

// The sub-elements of a matrix element's body: array flags, dimensions,
// name, then the values (or, for cells and structs, what they hold). Only
// the first kDescriptionBytes are at hand, but every length is checked
// against the whole body: matio allocates what a tag claims before reading.
class MatrixDescription {
 public:
  MatrixDescription(const std::string& head, std::uint64_t body_length, bool swapped)
      : head_(head), body_length_(body_length), swapped_(swapped) {}

  // Throws `Corrupt` (via fail) naming the sub-element whose length runs
  // past the body, or the values that are fewer than the dimensions need.
  template <typename Fail>
  void check(Fail&& fail) {
    // After the name: the values (real, then imaginary part), or a sparse
    // matrix's row indices, column starts and values, or a cell's cells.
    static const char* const kParts[] = {"array flags", "dimensions", "name", "data"};
    std::uint32_t matrix_class = 0;
    std::uint64_t needed = 1;
    bool overflow = false;
    int part = 0;
    for (; fits(4); ++part) {
      std::uint32_t type = 0;
      std::uint64_t length = 0;
      const std::uint64_t tag_at = at_;
      if (!tag(type, length)) break;
      const char* what = kParts[std::min(part, 3)];
      if (small_ && length > 4) {
        fail(
            fmt::format("its {} (at byte {} of the variable) is a small element of {} bytes, "
                        "where at most 4 fit",
                        what, tag_at, length));
      }
      if (length > body_length_ - std::min(body_length_, at_)) {
        fail(
            fmt::format("its {} (at byte {} of the variable) claim {} bytes, more than the {} "
                        "left in the variable",
                        what, tag_at, length, body_length_ - std::min(body_length_, at_)));
      }
      // matio reads 8 bytes of flags whatever their tag says, then the
      // dimensions' tag: other lengths would have it read a tag that this
      // walk skipped (a fuzzed 10 had it allocate 8 GB for dimensions).
      if (part == 0 && length != kArrayFlagsBytes) {
        fail(
            fmt::format("its array flags (at byte {} of the variable) are {} bytes, where the "
                        "format has {}",
                        tag_at, length, kArrayFlagsBytes));
      }
      // matio reads length / 4 sizes and goes on from there, not from the
      // padded end of the tag (a fuzzed 42 bytes had it take a size for a
      // name's length and allocate 4 GB).
      if (part == 1 && (type != kMiInt32 || length % 4 != 0)) {
        fail(
            fmt::format("its dimensions (at byte {} of the variable) are {} bytes of type {}, "
                        "where the format has 4-byte integers (type {})",
                        tag_at, length, type, kMiInt32));
      }
      if (part == 0 && fits(4)) matrix_class = u32(at_) & 0xFF;
      if (part == 1) {
        for (std::uint64_t d = 0; d + 4 <= length && fits(d + 4); d += 4) {
          overflow |= __builtin_mul_overflow(needed, std::uint64_t{u32(at_ + d)}, &needed);
        }
      }
      const bool numeric = matrix_class >= kFirstNumericClass && matrix_class <= kLastNumericClass;
      if (part == 3 && numeric && element_width(type) != 0 && !overflow &&
          !__builtin_mul_overflow(needed, element_width(type), &needed) && length < needed) {
        fail(
            fmt::format("it stores {} bytes of values but its dimensions need {}", length, needed));
      }
      skip(length);
    }
    // matio allocates a pointer per element of a cell, struct or object from
    // its dimensions alone (a fuzzed cell of 1952542982 x 1 had it ask for
    // 15.6 GB): each element needs a tag inside the variable.
    const bool container = matrix_class >= kCellClass && matrix_class <= kObjectClass;
    if (container && part > 1 && (overflow || needed > body_length_ / kTagBytes)) {
      fail(
          fmt::format("its dimensions claim {} elements, but each needs at least {} bytes and "
                      "the variable holds {}",
                      overflow ? std::string("more than 2^64") : std::to_string(needed), kTagBytes,
                      body_length_));
    }
    // matio reads these parts whether the variable holds them or not, past
    // its end into whatever follows (a fuzzed variable that ended after its
    // dimensions had it allocate 4 GB for a "name").
    const bool whole = head_.size() >= body_length_;
    const int parts = matrix_class == kSparseClass                                              ? 6
                      : matrix_class >= kFirstNumericClass && matrix_class <= kLastNumericClass ? 4
                                                                                                : 3;
    if (whole && part < parts) {
      fail(
          fmt::format("it ends after {} of the {} parts (array flags, dimensions, name{}) that "
                      "its class needs",
                      part, parts,
                      parts == 6   ? ", row indices, column starts, values"
                      : parts == 4 ? ", values"
                                   : ""));
    }
  }

 private:
  std::uint32_t u32(std::uint64_t at) const {
    std::uint32_t value = 0;
    std::memcpy(&value, head_.data() + at, 4);
    return swapped_ ? __builtin_bswap32(value) : value;
  }

  bool fits(std::uint64_t bytes) const {
    return at_ <= head_.size() && bytes <= head_.size() - at_;
  }

  // Reads a tag, normal (type, length) or small (length in the upper half of
  // the first word, data in the second); leaves at_ on the data.
  bool tag(std::uint32_t& type, std::uint64_t& length) {
    if (!fits(4)) return false;
    const std::uint32_t first = u32(at_);
    if ((first >> 16) != 0) {
      type = first & 0xFFFF;
      length = first >> 16;
      small_ = true;
      at_ += 4;
      return true;
    }
    if (!fits(8)) return false;
    type = first;
    length = u32(at_ + 4);
    small_ = false;
    at_ += 8;
    return true;
  }

  // Past the data of the last tag, padded to 8 bytes (4 for small data).
  void skip(std::uint64_t length) { at_ += small_ ? 4 : (length + 7) / 8 * 8; }

  const std::string& head_;
  std::uint64_t body_length_;
  bool swapped_;
  std::uint64_t at_ = 0;
  bool small_ = false;
};

// The element's body inflated: its first kDescriptionBytes, and the total
// inflated size, without holding the whole of it.
struct Inflated {
  std::string head;
  std::uint64_t total = 0;
};

Inflated inflate_counting(std::istream& in, std::uint64_t length, const std::string& where) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK)
    throw DataError(fmt::format("{}: cannot initialise zlib", where));
  Inflated result;
  std::vector<char> input(1 << 16);
  std::vector<char> output(1 << 16);
  std::uint64_t left = length;
  int status = Z_OK;
  while (status == Z_OK && left > 0) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(input.size(), left));
    in.read(input.data(), static_cast<std::streamsize>(want));
    left -= want;
    stream.next_in = reinterpret_cast<Bytef*>(input.data());
    stream.avail_in = static_cast<uInt>(want);
    do {
      stream.next_out = reinterpret_cast<Bytef*>(output.data());
      stream.avail_out = static_cast<uInt>(output.size());
      status = inflate(&stream, Z_NO_FLUSH);
      const std::size_t got = output.size() - stream.avail_out;
      if (result.head.size() < kDescriptionBytes) {
        result.head.append(output.data(), std::min(got, kDescriptionBytes - result.head.size()));
      }
      result.total += got;
    } while (status == Z_OK && stream.avail_out == 0);
    if (status == Z_BUF_ERROR) status = Z_OK;  // wants more input
  }
  inflateEnd(&stream);
  return result;
}

}  // namespace

void check_mat_v5_element(std::istream& in, std::uint64_t offset, std::uint64_t length,
                          bool swapped, const std::string& path) {
  std::uint32_t type = 0;
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(&type), 4);
  if (swapped) type = __builtin_bswap32(type);
  in.seekg(static_cast<std::streamoff>(offset + 8));
  std::string body;
  std::uint64_t body_length = length;
  if (type == kMiMatrix) {
    body.resize(static_cast<std::size_t>(std::min<std::uint64_t>(length, kDescriptionBytes)));
    in.read(body.data(), static_cast<std::streamsize>(body.size()));
  } else if (type == kMiCompressed) {
    Inflated inflated = inflate_counting(in, length, path);
    if (inflated.head.size() < 8) return;  // matio reports an unreadable variable
    std::uint32_t inner = 0;
    std::memcpy(&inner, inflated.head.data(), 4);
    if ((swapped ? __builtin_bswap32(inner) : inner) != kMiMatrix) return;
    // The inner element's own length, but no more than what inflated.
    std::uint32_t inner_length = 0;
    std::memcpy(&inner_length, inflated.head.data() + 4, 4);
    if (swapped) inner_length = __builtin_bswap32(inner_length);
    body = inflated.head.substr(8);
    body_length = std::min<std::uint64_t>(inner_length, inflated.total - 8);
  } else {
    return;
  }
  MatrixDescription(body, body_length, swapped).check([&](const std::string& what) {
    throw DataError(
        fmt::format("{}: the variable at byte {} is corrupt: {}; the file is truncated or damaged",
                    path, offset, what));
  });
}

}  // namespace topkfs::detail
