// The object header messages that libhdf5 1.10 decodes when it opens a
// dataset, walked as it decodes them, to find what it would read past the
// message's bytes (hdf5_util.hpp says why). Layouts from the HDF5 File
// Format Specification: the dataspace, datatype, fill value (old and new),
// data layout (version 3) and filter pipeline messages. The datatype is an
// 8-byte header (class and version, 24 bits of class fields, the size),
// then properties by class, with member names and nested datatypes for the
// compound, enumerated, variable-length and array classes.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "hdf5_util.hpp"

namespace topkfs::hdf5 {
namespace {

enum DatatypeClass : unsigned {
  kClassFixedPoint = 0,
  kClassFloatingPoint = 1,
  kClassTime = 2,
  kClassString = 3,
  kClassBitfield = 4,
  kClassOpaque = 5,
  kClassCompound = 6,
  kClassReference = 7,
  kClassEnumerated = 8,
  kClassVariableLength = 9,
  kClassArray = 10,
};
// Far deeper than any datatype a tool writes; libhdf5 decodes nested types by
// recursion.
constexpr int kMaxDatatypeNesting = 32;

class MessageWalk {
 public:
  MessageWalk(const std::string& bytes, unsigned offset_size, unsigned length_size)
      : bytes_(bytes), offset_size_(offset_size), length_size_(length_size) {}

  // Walks a message of `type`; false (with problem()) when libhdf5 would
  // read past its end. A version libhdf5 refuses is left to it.
  bool walk(unsigned type) {
    switch (type) {
      case kDataspaceMessage: return dataspace();
      case kDatatypeMessage: {
        std::size_t at = 0;
        return datatype(at, 0);
      }
      case kOldFillValueMessage: return fits(0, 4, "its size") && value(4, number(0, 4));
      case kFillValueMessage: return fill_value();
      case kLayoutMessage: return layout();
      case kFilterPipelineMessage: return filter_pipeline();
      default: return true;
    }
  }

  const std::string& problem() const { return problem_; }

 private:
  bool dataspace() {
    if (!fits(0, 4, "its version, rank and flags")) return false;
    const unsigned version = byte(0);
    const std::uint64_t rank = byte(1);
    if (version < 1 || version > 2 || rank > 32) return true;
    // Version 1 has 5 reserved bytes, version 2 the class byte; then the
    // sizes and, with flag 1, the maximum sizes.
    const std::uint64_t sizes = rank * length_size_ * ((byte(2) & 1) != 0 ? 2 : 1);
    return fits(version == 1 ? 8 : 4, sizes, "its dimensions");
  }

  bool fill_value() {
    if (!fits(0, 2, "its version and flags")) return false;
    const unsigned version = byte(0);
    if (version < 1 || version > 3) return true;
    if (version < 3) {
      // Allocation time, write time, "defined", then a signed size.
      if (!fits(1, 3, "its times")) return false;
      if (byte(3) == 0) return true;  // no value defined: nothing more is read
      if (!fits(4, 4, "its size")) return false;
      const auto size = static_cast<std::int32_t>(number(4, 4));
      return size <= 0 || value(8, static_cast<std::uint64_t>(size));
    }
    constexpr unsigned kHasValue = 0x20;
    if ((byte(1) & kHasValue) == 0) return true;
    if (!fits(2, 4, "its size")) return false;
    return value(6, number(2, 4));
  }

  // A fill value of `size` bytes at `at`, copied whole by libhdf5.
  bool value(std::size_t at, std::uint64_t size) { return fits(at, size, "its fill value"); }

  bool layout() {
    if (!fits(0, 2, "its version and class")) return false;
    if (byte(0) != 3) return true;  // versions 1 and 2 predate the files read here
    switch (byte(1)) {
      case 0:  // compact: the values themselves, copied whole
        return fits(2, 2, "its size") && fits(4, number(2, 2), "its values");
      case 1:  // contiguous: address and size
        return fits(2, offset_size_ + length_size_, "its address and size");
      case 2: {  // chunked: rank, B-tree address, chunk dimensions
        if (!fits(2, 1, "its rank")) return false;
        const std::uint64_t rank = byte(2);  // libhdf5 refuses more than 33
        return rank > 33 || fits(3, offset_size_ + 4 * rank, "its chunk dimensions");
      }
      default: return true;
    }
  }

  bool filter_pipeline() {
    if (!fits(0, 2, "its version and filter count")) return false;
    const unsigned version = byte(0);
    const unsigned filters = byte(1);
    if (version < 1 || version > 2 || filters > 32) return true;
    std::size_t at = version == 1 ? 8 : 2;
    for (unsigned filter = 0; filter < filters; ++filter) {
      if (!fits(at, 2, "a filter's identifier")) return false;
      const std::uint64_t id = number(at, 2);
      at += 2;
      // Version 2 names only filters from 256 up.
      std::uint64_t name_length = 0;
      if (version == 1 || id >= 256) {
        if (!fits(at, 2, "a filter's name length")) return false;
        name_length = number(at, 2);
        at += 2;
      }
      if (!fits(at, 4, "a filter's flags and value count")) return false;
      const std::uint64_t values = number(at + 2, 2);
      at += 4;
      if (name_length > 0) {
        // libhdf5 takes the name up to its NUL, then skips the length given.
        std::size_t after = at;
        if (!name(after, false, "a filter's name") || !skip(at, name_length, "a filter's name")) {
          return false;
        }
      }
      const std::uint64_t padding = version == 1 && values % 2 == 1 ? 4 : 0;
      if (!skip(at, 4 * values + padding, "a filter's values")) return false;
    }
    return true;
  }

  // Walks the datatype at `at` and moves `at` past it.
  bool datatype(std::size_t& at, int depth) {
    if (depth > kMaxDatatypeNesting)
      return fail(fmt::format("it nests more than {} deep", kMaxDatatypeNesting));
    if (!fits(at, 8, "its header")) return false;
    const unsigned kind = byte(at) & 0x0f;
    const unsigned version = byte(at) >> 4;
    const std::uint64_t fields = number(at + 1, 3);
    const std::uint64_t size = number(at + 4, 4);
    at += 8;
    // Before version 3, names are padded with NULs to a multiple of 8 bytes.
    const bool padded = version < 3;
    switch (kind) {
      case kClassFixedPoint:
      case kClassBitfield: return skip(at, 4, "its bit offset and precision");
      case kClassFloatingPoint: return skip(at, 12, "its bit fields and exponent bias");
      case kClassTime: return skip(at, 2, "its precision");
      case kClassOpaque: return skip(at, fields & 0xff, "its tag");
      case kClassCompound:
        for (std::uint64_t member = 0; member < (fields & 0xffff); ++member) {
          if (!name(at, padded, "a member's name")) return false;
          // The member's offset: 4 bytes, or in version 3 as few as the
          // datatype's size needs; version 1 adds an array description.
          const std::uint64_t offset = version >= 3 ? bytes_for(size) : 4;
          if (!skip(at, offset + (version == 1 ? 28 : 0), "a member's offset")) return false;
          if (!datatype(at, depth + 1)) return false;
        }
        return true;
      case kClassEnumerated: {
        const std::size_t base = at;
        if (!datatype(at, depth + 1)) return false;
        const std::uint64_t members = fields & 0xffff;
        for (std::uint64_t member = 0; member < members; ++member) {
          if (!name(at, padded, "a member's name")) return false;
        }
        // libhdf5 decodes the values by the base type's size and copies
        // them by the enumerated type's own (a fuzzed type of 268,435,457
        // bytes over a 1-byte base: 536 MB copied from 2 bytes).
        const std::uint64_t value_size = number(base + 4, 4);
        if (size != value_size) {
          return fail(fmt::format(
              "its members' values ({} x {} bytes, by its size) would be read past the {} x {} "
              "it holds",
              members, size, members, value_size));
        }
        return skip(at, members * value_size, "its members' values");
      }
      case kClassVariableLength: return datatype(at, depth + 1);
      case kClassArray: {
        if (!fits(at, 1, "its rank")) return false;
        const std::uint64_t rank = byte(at);
        // Version 2 has 3 reserved bytes and a permutation after the sizes.
        const std::uint64_t described = version < 3 ? 3 + 8 * rank : 4 * rank;
        if (!skip(at, 1 + described, "its dimensions")) return false;
        return datatype(at, depth + 1);
      }
      case kClassString:
      case kClassReference:
      default:  // libhdf5 refuses a class it does not know
        return true;
    }
  }

  unsigned byte(std::size_t at) const { return static_cast<unsigned char>(bytes_[at]); }

  std::uint64_t number(std::size_t at, unsigned width) const {
    std::uint64_t value = 0;
    for (unsigned i = width; i-- > 0;) value = (value << 8) | byte(at + i);
    return value;
  }

  // The bytes libhdf5 uses for a member offset of a version 3 compound type
  // of `size` bytes: one per started 8 bits of the size's highest bit.
  static std::uint64_t bytes_for(std::uint64_t size) {
    unsigned log2 = 0;
    while (size >>= 1) ++log2;
    return log2 / 8 + 1;
  }

  bool fail(const std::string& what) {
    problem_ = what;
    return false;
  }

  bool fits(std::size_t at, std::uint64_t count, const char* what) {
    if (at <= bytes_.size() && count <= bytes_.size() - at) return true;
    return fail(fmt::format("{} ({} bytes at its byte {}) would be read past its end ({} bytes)",
                            what, count, at, bytes_.size()));
  }

  bool skip(std::size_t& at, std::uint64_t count, const char* what) {
    if (!fits(at, count, what)) return false;
    at += static_cast<std::size_t>(count);
    return true;
  }

  // A NUL-terminated name, padded or not.
  bool name(std::size_t& at, bool padded, const char* what) {
    const std::size_t end = at < bytes_.size() ? bytes_.find('\0', at) : std::string::npos;
    if (end == std::string::npos) {
      return fail(fmt::format("{} at its byte {} does not end within its {} bytes", what, at,
                              bytes_.size()));
    }
    const std::uint64_t length = end - at;
    return skip(at, padded ? (length + 8) / 8 * 8 : length + 1, what);
  }

  const std::string& bytes_;
  const unsigned offset_size_;
  const unsigned length_size_;
  std::string problem_;
};

}  // namespace

std::string message_overrun(unsigned type, const std::string& body, unsigned offset_size,
                            unsigned length_size) {
  MessageWalk walk(body, offset_size, length_size);
  return walk.walk(type) ? std::string() : walk.problem();
}

}  // namespace topkfs::hdf5
