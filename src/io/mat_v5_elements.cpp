#include "mat_v5_elements.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
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
constexpr std::uint32_t kFunctionClass = 16;  // a function handle: its parts as a cell's
constexpr std::uint64_t kTagBytes = 8;
constexpr std::uint64_t kArrayFlagsBytes = 8;  // class and flags, then nzmax
// The longest run of dimensions read at once.
constexpr std::uint64_t kChunkBytes = 4096;

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

// The body of a matrix element, read forward: from the file, or inflated
// from a compressed element as the walk goes, without holding all of it.
// read() copies `count` bytes at `at`, never before the end of the last read.
class BodySource {
 public:
  virtual ~BodySource() = default;
  virtual void read(std::uint64_t at, std::uint64_t count, char* out) = 0;
};

class FileBody : public BodySource {
 public:
  FileBody(std::istream& in, std::uint64_t start) : in_(in), start_(start) {}
  void read(std::uint64_t at, std::uint64_t count, char* out) override {
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(start_ + at));
    in_.read(out, static_cast<std::streamsize>(count));
  }

 private:
  std::istream& in_;
  std::uint64_t start_;
};

// Inflates `length` compressed bytes from the stream's current place.
class Inflater {
 public:
  Inflater(std::istream& in, std::uint64_t length, const std::string& where)
      : in_(in), left_(length), input_(1 << 16), output_(1 << 16) {
    if (inflateInit(&stream_) != Z_OK) {
      throw DataError(fmt::format("{}: cannot initialise zlib", where));
    }
  }
  ~Inflater() { inflateEnd(&stream_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // The next piece of inflated bytes; empty at the end of the data or of
  // a corrupt stream.
  std::string_view next() {
    while (status_ == Z_OK) {
      if (stream_.avail_in == 0 && left_ > 0) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(input_.size(), left_));
        in_.read(input_.data(), static_cast<std::streamsize>(want));
        left_ -= want;
        stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
        stream_.avail_in = static_cast<uInt>(want);
      }
      stream_.next_out = reinterpret_cast<Bytef*>(output_.data());
      stream_.avail_out = static_cast<uInt>(output_.size());
      status_ = inflate(&stream_, Z_NO_FLUSH);
      const std::size_t got = output_.size() - stream_.avail_out;
      if (status_ == Z_BUF_ERROR && stream_.avail_in == 0 && left_ > 0) status_ = Z_OK;
      if (got > 0) return {output_.data(), got};
    }
    return {};
  }

 private:
  std::istream& in_;
  std::uint64_t left_;
  std::vector<char> input_;
  std::vector<char> output_;
  z_stream stream_{};
  int status_ = Z_OK;
};

// A compressed element's inner body: the inflated bytes after the inner tag.
class InflatedBody : public BodySource {
 public:
  InflatedBody(std::istream& in, std::uint64_t length, const std::string& where)
      : inflater_(in, length, where) {}
  void read(std::uint64_t at, std::uint64_t count, char* out) override {
    at += 8;  // past the inner element's tag
    if (at < position_) throw std::logic_error("InflatedBody is read forward only");
    while (count > 0) {
      if (piece_.empty()) {
        piece_ = inflater_.next();
        if (piece_.empty()) return;  // the walk stays inside what inflated
      }
      const std::uint64_t skip = std::min<std::uint64_t>(at - position_, piece_.size());
      piece_.remove_prefix(skip);
      position_ += skip;
      if (position_ < at) continue;
      const std::uint64_t take = std::min<std::uint64_t>(count, piece_.size());
      std::memcpy(out, piece_.data(), take);
      piece_.remove_prefix(take);
      position_ += take;
      at += take;
      out += take;
      count -= take;
    }
  }

 private:
  Inflater inflater_;
  std::string_view piece_;
  std::uint64_t position_ = 0;  // of piece_'s first byte in the inflated data
};

// The sub-elements of a matrix element's body: array flags, dimensions,
// name, then the values (or, for cells and structs, what they hold). Every
// tag that matio reads is checked, against the whole body: matio allocates
// what a tag claims before reading.
class MatrixDescription {
 public:
  MatrixDescription(BodySource& body, std::uint64_t body_length, bool swapped)
      : body_(body), body_length_(body_length), swapped_(swapped) {}

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
    // Up to the parts matio reads for the class (known after the flags);
    // the elements of a cell or struct are matio's own walk.
    for (; fits(4) && part < parts_read(matrix_class, part); ++part) {
      std::uint32_t type = 0;
      std::uint64_t length = 0;
      const std::uint64_t tag_at = at_;
      if (!tag(type, length)) break;
      const char* what = kParts[std::min(part, 3)];
      const bool numeric = matrix_class >= kFirstNumericClass && matrix_class <= kLastNumericClass;
      if (small_ && length > 4) {
        fail(
            fmt::format("its {} (at byte {} of the variable) is a small element of {} bytes, "
                        "where at most 4 fit",
                        what, tag_at, length));
      }
      require_within(fail, fmt::format("its {}", what), tag_at, length);
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
      // matio reads a sparse matrix's row indices and column starts as
      // length / 4 values of the tag's type, and goes on from where that
      // read ended: another width (or an unknown type, read as nothing)
      // leaves it taking the next tag from inside these, and the next
      // length from anywhere (fuzzed types 251 and 11264 had it allocate
      // 4.3 GB for the values).
      if (matrix_class == kSparseClass && (part == 3 || part == 4) &&
          ((type != kMiInt32 && type != kMiUint32) || length % 4 != 0)) {
        fail(fmt::format(
            "its sparse {} (at byte {} of the variable) are {} bytes of type {}, "
            "where the format has 4-byte integers (type {})",
            part == 3 ? "row indices" : "column starts", tag_at, length, type, kMiInt32));
      }
      // The values, read as whole values of their type in the same way.
      const bool values = (numeric && part >= 3) || (matrix_class == kSparseClass && part >= 5);
      if (values && (element_width(type) == 0 || length % element_width(type) != 0)) {
        fail(
            fmt::format("its values (at byte {} of the variable) are {} bytes of type {}, not a "
                        "whole number of a numeric type's values",
                        tag_at, length, type));
      }
      if (part == 0 && fits(4)) matrix_class = u32(at_) & 0xFF;
      if (part == 1) {
        std::string sizes;
        for (std::uint64_t d = 0; d + 4 <= length; d += 4) {
          if (d % kChunkBytes == 0) sizes = bytes(at_ + d, std::min(kChunkBytes, length - d));
          overflow |= __builtin_mul_overflow(needed, word(sizes, d % kChunkBytes), &needed);
        }
      }
      if (part == 3 && numeric && element_width(type) != 0 && !overflow &&
          !__builtin_mul_overflow(needed, element_width(type), &needed) && length < needed) {
        fail(
            fmt::format("it stores {} bytes of values but its dimensions need {}", length, needed));
      }
      skip(length);
    }
    // matio allocates a pointer per element of a cell, struct, object or
    // function handle from its dimensions alone (a fuzzed cell of
    // 1952542982 x 1 had it ask for 15.6 GB, a function handle of
    // 1 x 1493237766 for 11.9 GB): each element needs a tag inside the
    // variable.
    const bool container = (matrix_class >= kCellClass && matrix_class <= kObjectClass) ||
                           matrix_class == kFunctionClass;
    if (container && part > 1 && (overflow || needed > body_length_ / kTagBytes)) {
      fail(
          fmt::format("its dimensions claim {} elements, but each needs at least {} bytes and "
                      "the variable holds {}",
                      overflow ? std::string("more than 2^64") : std::to_string(needed), kTagBytes,
                      body_length_));
    }
    // matio reads each element of a cell (or function handle) as a matrix
    // element, and loses what it allocated for the cell when one is not (a
    // fuzzed cell whose second element had type 12 leaked): each must be a
    // matrix tag that fits in the variable.
    if ((matrix_class == kCellClass || matrix_class == kFunctionClass) && part == 3 && !overflow) {
      for (std::uint64_t element = 0; element < needed; ++element) {
        const std::uint64_t tag_at = at_;
        std::uint32_t type = 0;
        std::uint64_t length = 0;
        if (!tag(type, length) || small_ || type != kMiMatrix) {
          fail(
              fmt::format("its element {} (at byte {} of the variable) has type {}, where "
                          "every element of a cell is a matrix element (type {})",
                          element + 1, tag_at, type, kMiMatrix));
        }
        require_within(fail, fmt::format("its element {}", element + 1), tag_at, length);
        skip(length);
      }
    }
    // matio reads these parts whether the variable holds them or not, past
    // its end into whatever follows (a fuzzed variable that ended after its
    // dimensions had it allocate 4 GB for a "name").
    const int parts = matrix_class == kSparseClass                                              ? 6
                      : matrix_class >= kFirstNumericClass && matrix_class <= kLastNumericClass ? 4
                                                                                                : 3;
    if (part < parts) {
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
  // The parts of a class that matio reads, before the flags say the class:
  // numeric values may have an imaginary part, a sparse matrix's too.
  static int parts_read(std::uint32_t matrix_class, int part) {
    if (part == 0) return 1;
    if (matrix_class == kSparseClass) return 7;
    if (matrix_class >= kFirstNumericClass && matrix_class <= kLastNumericClass) return 5;
    return 3;
  }

  std::string bytes(std::uint64_t at, std::uint64_t count) {
    std::string out(static_cast<std::size_t>(count), '\0');
    body_.read(at, count, out.data());
    return out;
  }

  std::uint64_t word(const std::string& from, std::uint64_t at) const {
    std::uint32_t value = 0;
    std::memcpy(&value, from.data() + at, 4);
    return swapped_ ? __builtin_bswap32(value) : value;
  }

  std::uint32_t u32(std::uint64_t at) { return static_cast<std::uint32_t>(word(bytes(at, 4), 0)); }

  // The bytes of the body after at_.
  std::uint64_t left() const { return body_length_ - std::min(body_length_, at_); }

  // Fails unless the `length` bytes that the tag of `part` (at `tag_at`)
  // claims are there: matio would allocate them before finding out.
  template <typename Fail>
  void require_within(Fail& fail, const std::string& part, std::uint64_t tag_at,
                      std::uint64_t length) const {
    if (length <= left()) return;
    fail(fmt::format(
        "the tag of {} (at byte {} of the variable) claims {} bytes, more than the {} left in "
        "the variable",
        part, tag_at, length, left()));
  }

  bool fits(std::uint64_t bytes) const {
    return at_ <= body_length_ && bytes <= body_length_ - at_;
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

  BodySource& body_;
  std::uint64_t body_length_;
  bool swapped_;
  std::uint64_t at_ = 0;
  bool small_ = false;
};

// The first 8 inflated bytes of a compressed element (its inner tag) and
// the inflated size, without holding the rest.
struct InnerTag {
  std::string tag;
  std::uint64_t total = 0;
};

InnerTag inflate_counting(std::istream& in, std::uint64_t length, const std::string& where) {
  Inflater inflater(in, length, where);
  InnerTag result;
  for (std::string_view piece = inflater.next(); !piece.empty(); piece = inflater.next()) {
    if (result.tag.size() < 8) result.tag.append(piece.substr(0, 8 - result.tag.size()));
    result.total += piece.size();
  }
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
  const auto check = [&](BodySource& body, std::uint64_t body_length) {
    MatrixDescription(body, body_length, swapped).check([&](const std::string& what) {
      throw DataError(fmt::format(
          "{}: the variable at byte {} is corrupt: {}; the file is truncated or damaged", path,
          offset, what));
    });
  };
  if (type == kMiMatrix) {
    FileBody body(in, offset + 8);
    check(body, length);
  } else if (type == kMiCompressed) {
    const InnerTag inner = inflate_counting(in, length, path);
    if (inner.tag.size() < 8) return;  // matio reports an unreadable variable
    std::uint32_t inner_type = 0;
    std::uint32_t inner_length = 0;
    std::memcpy(&inner_type, inner.tag.data(), 4);
    std::memcpy(&inner_length, inner.tag.data() + 4, 4);
    if (swapped) {
      inner_type = __builtin_bswap32(inner_type);
      inner_length = __builtin_bswap32(inner_length);
    }
    if (inner_type != kMiMatrix) return;
    // The inner element's own length, but no more than what inflated.
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset + 8));
    InflatedBody body(in, length, path);
    check(body, std::min<std::uint64_t>(inner_length, inner.total - 8));
  }
}

}  // namespace topkfs::detail
