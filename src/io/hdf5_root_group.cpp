// The root group of an HDF5 file, checked before libhdf5 looks a name up in
// it (hdf5_util.hpp says why). Only the layout that files with a version 0
// or 1 superblock use is read here: the superblock's root symbol-table entry,
// the version 1 object header it points to, and the local heap of the group's
// symbol table. Newer superblocks and object headers carry checksums, which
// libhdf5 verifies itself.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "hdf5_util.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"

namespace topkfs::hdf5 {
namespace {

constexpr char kSignature[] = "\x89HDF\r\n\x1a\n";
constexpr std::uint16_t kSymbolTableMessage = 0x11;
constexpr std::uint64_t kUndefinedAddress = ~std::uint64_t{0};
// Far more than the few messages of a group's object header.
constexpr std::uint64_t kMaxHeaderBytes = 1 << 16;

class RootGroupCheck {
 public:
  explicit RootGroupCheck(const std::string& path)
      : path_(path), in_(path, std::ios::binary), size_(file_size(path)) {}

  void run() {
    std::uint64_t superblock = 0;
    while (superblock < size_ && bytes(superblock, 8) != std::string(kSignature, 8)) {
      superblock = superblock == 0 ? 512 : superblock * 2;  // after a user block
    }
    if (superblock >= size_) return;  // H5Fis_hdf5 has the last word
    const std::string fixed = bytes(superblock + 8, 8);
    const auto version = static_cast<unsigned char>(fixed[0]);
    offset_size_ = static_cast<unsigned char>(fixed[5]);
    length_size_ = static_cast<unsigned char>(fixed[6]);
    if (version > 1 || !usable_width(offset_size_) || !usable_width(length_size_)) return;
    const std::uint64_t addresses = superblock + (version == 0 ? 24 : 28);
    base_ = number(addresses, offset_size_);
    // Base, free space, end of file and driver addresses, then the entry.
    const std::uint64_t entry = addresses + 4 * offset_size_;
    const std::uint64_t header = address(entry + offset_size_);
    require_inside(header, 16, "object header");
    if (number(entry + 2 * offset_size_, 4) == 1) {  // the entry caches the symbol table
      const std::uint64_t scratch = entry + 2 * offset_size_ + 8;
      check_symbol_table(address(scratch), address(scratch + offset_size_));
    }
    check_object_header(header);
  }

 private:
  static bool usable_width(unsigned width) { return width == 2 || width == 4 || width == 8; }

  std::string bytes(std::uint64_t at, std::uint64_t count) {
    std::string out(static_cast<std::size_t>(count), '\0');
    if (at > size_ || count > size_ - at) return std::string();
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(at));
    in_.read(out.data(), static_cast<std::streamsize>(count));
    return in_ ? out : std::string();
  }

  // A little-endian number of `width` bytes at `at` (0 past the end).
  std::uint64_t number(std::uint64_t at, unsigned width) {
    const std::string raw = bytes(at, width);
    std::uint64_t value = 0;
    for (std::size_t i = raw.size(); i-- > 0;) {
      value = (value << 8) | static_cast<unsigned char>(raw[i]);
    }
    return value;
  }

  // An address read at `at`, made absolute; kUndefinedAddress stays itself.
  std::uint64_t address(std::uint64_t at) {
    const std::uint64_t relative = number(at, offset_size_);
    const std::uint64_t undefined =
        offset_size_ == 8 ? kUndefinedAddress : (std::uint64_t{1} << (8 * offset_size_)) - 1;
    std::uint64_t absolute = 0;
    if (relative == undefined || __builtin_add_overflow(base_, relative, &absolute)) {
      return kUndefinedAddress;
    }
    return absolute;
  }

  [[noreturn]] void corrupt(const std::string& what) const {
    throw DataError(fmt::format(
        "{}: the root group is corrupt: {}; the file is truncated or damaged", path_, what));
  }

  void require_inside(std::uint64_t at, std::uint64_t count, const char* what) const {
    if (at == kUndefinedAddress) corrupt(fmt::format("its {} has no address", what));
    if (at > size_ || count > size_ - at) {
      corrupt(fmt::format("its {} at byte {} ({} bytes) lies past the end of the file ({} bytes)",
                          what, at, count, size_));
    }
  }

  // The version 1 object header's messages, for the symbol table message
  // (the B-tree and local heap addresses); other versions are checksummed.
  void check_object_header(std::uint64_t header) {
    if (number(header, 1) != 1) return;
    const std::uint64_t length = std::min(number(header + 8, 4), kMaxHeaderBytes);
    for (std::uint64_t at = header + 16; at + 8 <= header + 16 + length && at + 8 <= size_;) {
      const auto type = static_cast<std::uint16_t>(number(at, 2));
      const std::uint64_t message = number(at + 2, 2);
      if (type == kSymbolTableMessage) {
        check_symbol_table(address(at + 8), address(at + 8 + offset_size_));
      }
      at += 8 + message;
    }
  }

  // The group's B-tree must start inside the file, and its local heap (the
  // link names) must hold its data segment inside the file: libhdf5 reads
  // both without comparing them to the file's size.
  void check_symbol_table(std::uint64_t btree, std::uint64_t heap) {
    require_inside(btree, 8, "symbol table B-tree");
    const std::uint64_t prefix = 8 + 2 * length_size_ + offset_size_;
    require_inside(heap, prefix, "local heap");
    if (bytes(heap, 4) != "HEAP") {
      corrupt(fmt::format("its local heap at byte {} has no HEAP signature", heap));
    }
    const std::uint64_t data_size = number(heap + 8, length_size_);
    const std::uint64_t data = address(heap + 8 + 2 * length_size_);
    if (data == kUndefinedAddress || data > size_ || data_size > size_ - data) {
      corrupt(fmt::format(
          "its local heap at byte {} claims {} bytes of link names at byte {}, past the end of "
          "the file ({} bytes)",
          heap, data_size, data == kUndefinedAddress ? "(none)" : std::to_string(data), size_));
    }
  }

  const std::string& path_;
  std::ifstream in_;
  std::uint64_t size_;
  unsigned offset_size_ = 8;
  unsigned length_size_ = 8;
  std::uint64_t base_ = 0;
};

}  // namespace

void check_root_group(const std::string& path) { RootGroupCheck(path).run(); }

}  // namespace topkfs::hdf5
