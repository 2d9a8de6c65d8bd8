// An encoded HDF5 datatype, walked as libhdf5 1.10 decodes it, to find what it
// would read past the bytes it has (hdf5_util.hpp says why). The layout is
// the HDF5 File Format Specification's datatype message: an 8-byte header
// (class and version, 24 bits of class fields, the size), then properties
// that depend on the class, with member names and nested datatypes for the
// compound, enumerated, variable-length and array classes.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "hdf5_util.hpp"

namespace topkfs::hdf5 {
namespace {

enum Class : unsigned {
  kFixedPoint = 0,
  kFloatingPoint = 1,
  kTime = 2,
  kString = 3,
  kBitfield = 4,
  kOpaque = 5,
  kCompound = 6,
  kReference = 7,
  kEnumerated = 8,
  kVariableLength = 9,
  kArray = 10,
};
// Far deeper than any datatype a tool writes; libhdf5 decodes nested types by
// recursion.
constexpr int kMaxNesting = 32;

class DatatypeWalk {
 public:
  explicit DatatypeWalk(const std::string& bytes) : bytes_(bytes) {}

  // Walks the datatype at `at` and moves `at` past it; false (with
  // problem()) when something in it lies past the end.
  bool walk(std::size_t& at, int depth) {
    if (depth > kMaxNesting) return fail(fmt::format("it nests more than {} deep", kMaxNesting));
    if (!fits(at, 8, "its header")) return false;
    const unsigned kind = byte(at) & 0x0f;
    const unsigned version = byte(at) >> 4;
    const std::uint64_t fields = number(at + 1, 3);
    const std::uint64_t size = number(at + 4, 4);
    at += 8;
    // Before version 3, names are padded with NULs to a multiple of 8 bytes.
    const bool padded = version < 3;
    switch (kind) {
      case kFixedPoint:
      case kBitfield: return skip(at, 4, "its bit offset and precision");
      case kFloatingPoint: return skip(at, 12, "its bit fields and exponent bias");
      case kTime: return skip(at, 2, "its precision");
      case kOpaque: return skip(at, fields & 0xff, "its tag");
      case kCompound:
        for (std::uint64_t member = 0; member < (fields & 0xffff); ++member) {
          if (!name(at, padded, "a member's name")) return false;
          // The member's offset: 4 bytes, or in version 3 as few as the
          // datatype's size needs; version 1 adds an array description.
          const std::uint64_t offset = version >= 3 ? bytes_for(size) : 4;
          if (!skip(at, offset + (version == 1 ? 28 : 0), "a member's offset")) return false;
          if (!walk(at, depth + 1)) return false;
        }
        return true;
      case kEnumerated: {
        const std::size_t base = at;
        if (!walk(at, depth + 1)) return false;
        const std::uint64_t members = fields & 0xffff;
        for (std::uint64_t member = 0; member < members; ++member) {
          if (!name(at, padded, "a member's name")) return false;
        }
        return skip(at, members * number(base + 4, 4), "its members' values");
      }
      case kVariableLength: return walk(at, depth + 1);
      case kArray: {
        if (!fits(at, 1, "its rank")) return false;
        const std::uint64_t rank = byte(at);
        // Version 2 has 3 reserved bytes and a permutation after the sizes.
        const std::uint64_t described = version < 3 ? 3 + 8 * rank : 4 * rank;
        if (!skip(at, 1 + described, "its dimensions")) return false;
        return walk(at, depth + 1);
      }
      case kString:
      case kReference:
      default:  // libhdf5 refuses a class it does not know
        return true;
    }
  }

  const std::string& problem() const { return problem_; }

 private:
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
  std::string problem_;
};

}  // namespace

std::string datatype_overrun(const std::string& encoded) {
  DatatypeWalk walk(encoded);
  std::size_t at = 0;
  return walk.walk(at, 0) ? std::string() : walk.problem();
}

}  // namespace topkfs::hdf5
