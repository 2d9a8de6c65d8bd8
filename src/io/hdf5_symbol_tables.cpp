// The groups of an HDF5 file, checked before libhdf5 opens the file, looks a
// name up in a group or lists them (hdf5_util.hpp says why). Only the layout that files with a
// version 0 or 1 superblock use is read here: the superblock's root
// symbol-table entry, version 1 object headers, and each group's symbol
// table: its local heap, its B-tree of symbol nodes and the entries in them,
// which lead to the groups below. Newer superblocks and object headers carry
// checksums, which libhdf5 verifies itself.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hdf5_util.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"

namespace topkfs::hdf5 {
namespace {

constexpr char kSignature[] = "\x89HDF\r\n\x1a\n";
constexpr std::uint64_t kSharedMessageFlag = 0x02;  // the message is kept elsewhere
constexpr std::uint64_t kGroupNodeType = 0;         // a v1 B-tree of symbol nodes
constexpr std::uint64_t kUndefinedAddress = ~std::uint64_t{0};
// Far more than the few messages of a group's object header.
constexpr std::uint64_t kMaxHeaderBytes = 1 << 16;
// Bounds on the walk: a B-tree deeper than this, or more structures than
// this, is not one that h5py or MATLAB wrote, and a corrupt file could
// otherwise keep the walk going (libhdf5 reports what is left itself).
constexpr int kMaxTreeLevel = 64;
constexpr int kAnyLevel = -1;  // a tree's root may be of any level up to kMaxTreeLevel
constexpr std::size_t kMaxVisits = 1 << 16;
// What bytes() reads at once: the fields of an entry, a node or a header
// lie within it, and a larger window (64 KB) cost more in copying than it
// saved, as the walk jumps from header to header across the file.
constexpr std::uint64_t kWindowBytes = 1 << 12;
constexpr std::uint64_t kNoFreeBlock = 1;    // the end of a local heap's free list
constexpr std::uint64_t kSoftLinkCache = 2;  // an entry's cache type for a soft link
// The longest link name read whole: a name runs to its NUL inside the
// heap's data, which libhdf5 copies up to that NUL.
constexpr std::uint64_t kMaxNameBytes = 1 << 16;
// What the messages that message_overrun walks are, for messages; null for
// the others, whose bytes are then not read.
const char* message_name(std::uint16_t type) {
  switch (type) {
    case kDataspaceMessage: return "a dataspace";
    case kDatatypeMessage: return "a datatype";
    case kOldFillValueMessage:
    case kFillValueMessage: return "a fill value";
    case kLayoutMessage: return "a data layout";
    case kFilterPipelineMessage: return "a filter pipeline";
    default: return nullptr;
  }
}

// Where a group's link names are: its local heap's data segment.
struct LinkNames {
  std::uint64_t data = 0;
  std::uint64_t size = 0;
};

class SymbolTableCheck {
 public:
  explicit SymbolTableCheck(const std::string& path)
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
    // libhdf5 allocates the driver information block's claimed size when it
    // opens the file (a fuzzed 1.9 GB).
    group_ = "the superblock";
    const std::uint64_t driver = address(addresses + 3 * offset_size_);
    if (driver != kUndefinedAddress) {
      require_inside(driver, 16 + number(driver + 4, 4), "driver information block");
    }
    check_entry(addresses + 4 * offset_size_, "the root group");
  }

 private:
  static bool usable_width(unsigned width) { return width == 2 || width == 4 || width == 8; }

  // The bytes [at, at + count) of the file; empty past its end or when they
  // cannot be read. The walk reads a few bytes at a time, mostly close
  // together, so they come from a window of the file: a seek of the stream
  // empties its buffer, and refilling it for every number read made
  // `topkfs info` on a file of 20,000 links take 2.6 s instead of 1.8.
  std::string bytes(std::uint64_t at, std::uint64_t count) {
    if (at > size_ || count > size_ - at) return std::string();
    if (at < window_start_ || at - window_start_ > window_.size() ||
        count > window_.size() - (at - window_start_)) {
      if (count > kWindowBytes) return read(at, count);
      window_ = read(at, std::min(kWindowBytes, size_ - at));
      window_start_ = at;
      if (window_.size() < count) return std::string();
    }
    return window_.substr(static_cast<std::size_t>(at - window_start_), count);
  }

  std::string read(std::uint64_t at, std::uint64_t count) {
    std::string out(static_cast<std::size_t>(count), '\0');
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
    throw DataError(fmt::format("{}: {} is corrupt: {}; the file is truncated or damaged", path_,
                                group_, what));
  }

  void require_inside(std::uint64_t at, std::uint64_t count, const char* what) const {
    if (at == kUndefinedAddress) corrupt(fmt::format("its {} has no address", what));
    if (at > size_ || count > size_ - at) {
      corrupt(fmt::format("its {} at byte {} ({} bytes) lies past the end of the file ({} bytes)",
                          what, at, count, size_));
    }
  }

  // True the first time `at` is seen: hard links may make a group its own
  // descendant, and the walk visits each structure once.
  bool first_visit(std::uint64_t at) {
    if (visited_.size() >= kMaxVisits) return false;
    return visited_.insert(at).second;
  }

  // A symbol table entry (the superblock's root entry, or one in a symbol
  // node): its object header, and the symbol table it may cache.
  void check_entry(std::uint64_t entry, const std::string& group) {
    const std::string outer = group_;
    group_ = group;
    const std::uint64_t header = address(entry + offset_size_);
    require_inside(header, 16, "object header");
    // A link back to a group above is legal, and where H5Lvisit stops, only
    // when that object counts more than one link: H5Lvisit remembers only
    // those.
    if (std::find(ancestors_.begin(), ancestors_.end(), header) != ancestors_.end()) {
      if (number(header, 1) != 1 || number(header + 4, 4) >= 2) {
        group_ = outer;
        return;
      }
      corrupt(
          fmt::format("it links back to the group above it whose object header at byte {} "
                      "counts {} link(s)",
                      header, number(header + 4, 4)));
    }
    ancestors_.push_back(header);
    if (number(entry + 2 * offset_size_, 4) == 1) {  // the entry caches the symbol table
      const std::uint64_t scratch = entry + 2 * offset_size_ + 8;
      check_symbol_table(address(scratch), address(scratch + offset_size_));
    }
    check_object_header(header);
    ancestors_.pop_back();
    group_ = outer;
  }

  // The version 1 object header's messages, for the symbol table message
  // (the B-tree and local heap addresses), following continuation blocks
  // as libhdf5 does; other versions are checksummed. The header's blocks
  // must lie inside the file: libhdf5 allocates a block's claimed size
  // before reading it (a fuzzed continuation of 4.3 GB).
  void check_object_header(std::uint64_t header) {
    if (!first_visit(header) || number(header, 1) != 1) return;
    const std::uint64_t size = number(header + 8, 4);
    require_inside(header + 16, size, "object header");
    each_message(header, Continuations::Checked, [&](const Message& message) {
      if (message.type == kSymbolTableMessage) {
        check_symbol_table(address(message.body), address(message.body + offset_size_));
      } else if (message.type == kAttributeMessage && !message.shared) {
        check_attribute(message.body, message.size);
      } else if (!message.shared && message.type != kContinuationMessage &&
                 message_name(message.type) != nullptr) {
        check_message(message.type, message.body, message.size, message_name(message.type));
      }
      return true;
    });
  }

  struct Message {
    std::uint16_t type;
    std::uint64_t body;  // where its bytes start
    std::uint64_t size;
    bool shared;  // its body says where the message is kept
  };
  // How each_message follows continuation blocks: the walk's own (each
  // must lie inside the file, and is visited once by the whole walk), or a
  // lookup's (followed when inside the file, each once per lookup).
  enum class Continuations { Checked, Quiet };

  // Calls `visit` with each message of the version 1 object header at
  // `header`, in the order of its blocks (at most kMaxHeaderBytes of each),
  // until it returns false.
  template <class Visit>
  void each_message(std::uint64_t header, Continuations continuations, Visit visit) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks = {
        {header + 16, std::min(number(header + 8, 4), kMaxHeaderBytes)}};
    std::set<std::uint64_t> followed;
    for (std::size_t b = 0; b < blocks.size() && b < kMaxVisits; ++b) {
      const auto [start, length] = blocks[b];
      for (std::uint64_t at = start; at + 8 <= start + length && at + 8 <= size_;) {
        const Message message{static_cast<std::uint16_t>(number(at, 2)), at + 8, number(at + 2, 2),
                              (number(at + 4, 1) & kSharedMessageFlag) != 0};
        if (message.type == kContinuationMessage) {
          const std::uint64_t next = address(message.body);
          const std::uint64_t claimed = number(message.body + offset_size_, length_size_);
          if (continuations == Continuations::Checked) {
            require_inside(next, claimed, "object header continuation");
            if (first_visit(next)) blocks.emplace_back(next, std::min(claimed, kMaxHeaderBytes));
          } else if (next < size_ && followed.insert(next).second) {
            blocks.emplace_back(next, std::min(claimed, kMaxHeaderBytes));
          }
        }
        if (!visit(message)) return;
        at += 8 + message.size;
      }
    }
  }

  // An attribute message holds its name, datatype and dataspace one after
  // the other (each padded to 8 bytes in version 1), with their sizes up
  // front; libhdf5 1.10 decodes the three from those sizes without
  // comparing them to the message's, and copies the name up to its NUL (a
  // fuzzed dataspace of 65518 bytes in a 48-byte message read past a freed
  // block while matio opened MATLAB_class).
  void check_attribute(std::uint64_t body, std::uint64_t message) {
    const auto version = static_cast<unsigned>(number(body, 1));
    if (version < 1 || version > 3) return;  // libhdf5 refuses other versions itself
    const std::uint64_t name = number(body + 2, 2);
    const std::uint64_t datatype = number(body + 4, 2);
    const std::uint64_t dataspace = number(body + 6, 2);
    const auto padded = [&](std::uint64_t size) {
      return version == 1 ? (size + 7) / 8 * 8 : size;
    };
    const std::uint64_t prefix = version == 3 ? 9 : 8;
    const std::uint64_t needed = prefix + padded(name) + padded(datatype) + padded(dataspace);
    if (needed > message) {
      corrupt(fmt::format(
          "an attribute at byte {} claims a name of {}, a datatype of {} and a dataspace of {} "
          "bytes, more than its message's {}",
          body, name, datatype, dataspace, message));
    }
    if (name == 0 || number(body + prefix + name - 1, 1) != 0) {
      corrupt(fmt::format("an attribute at byte {} has a name that does not end in its {} bytes",
                          body, name));
    }
    // From version 2, flags say the datatype or the dataspace is shared:
    // kept elsewhere, where it is checked as a message of its own.
    const std::uint64_t flags = version == 1 ? 0 : number(body + 1, 1);
    const std::uint64_t type_at = body + prefix + padded(name);
    if ((flags & 0x01) == 0) {
      check_message(kDatatypeMessage, type_at, datatype, "an attribute's datatype");
    }
    if ((flags & 0x02) == 0) {
      check_message(kDataspaceMessage, type_at + padded(datatype), dataspace,
                    "an attribute's dataspace");
    }
    // The values follow, and libhdf5 copies as many bytes as the dataspace
    // and datatype make, whatever the message has left (a 73-byte copy past
    // the end of a 280-byte header while the probe listed attributes). A
    // shared datatype or dataspace is read where its reference says.
    const std::uint64_t space_at = type_at + padded(datatype);
    const auto type = (flags & 0x01) == 0 ? type_at : shared_message(type_at, kDatatypeMessage);
    const auto space = (flags & 0x02) == 0 ? space_at : shared_message(space_at, kDataspaceMessage);
    if (!type || !space) {
      corrupt(fmt::format(
          "an attribute at byte {} has a shared {} that no object header of the file holds", body,
          type ? "dataspace" : "datatype"));
    }
    const std::uint64_t values = value_bytes(*type, *space);
    if (values > message - needed) {
      corrupt(fmt::format(
          "an attribute at byte {} claims {} bytes of values (its dataspace's points times its "
          "datatype's size), more than the {} its message has left",
          body,
          values == kUndefinedAddress ? std::string("more than 2^64") : std::to_string(values),
          message - needed));
    }
  }

  // Where libhdf5 1.10 reads a shared message whose reference is at `at`:
  // the first message of `type` in the object header the reference names
  // (versions 1 and 2, and 3 of a committed datatype), itself followed when
  // it is shared in turn; its body, once walked as libhdf5 decodes it. None
  // for a reference into the shared-message heap, which files of these
  // superblocks do not have, or to a header that is not a version 1 one
  // inside the file or holds no message of `type`.
  std::optional<std::uint64_t> shared_message(std::uint64_t at, std::uint16_t type) {
    constexpr std::uint64_t kInSharedMessageHeap = 1;
    constexpr int kMaxReferences = 8;  // a chain of shared messages; a loop
    for (int reference = 0; reference < kMaxReferences; ++reference) {
      const auto version = number(at, 1);
      std::uint64_t header = kUndefinedAddress;
      if (version == 1) {
        header = address(at + 8 + length_size_);  // after the reserved bytes and a heap address
      } else if (version == 2 || (version == 3 && number(at + 1, 1) != kInSharedMessageHeap)) {
        header = address(at + 2);
      }
      if (header >= size_ || size_ - header < 16 || number(header, 1) != 1) return std::nullopt;
      std::optional<Message> found;
      each_message(header, Continuations::Quiet, [&](const Message& message) {
        if (message.type == type) found = message;
        return !found;
      });
      if (!found) return std::nullopt;
      if (!found->shared) {
        check_message(type, found->body, found->size, message_name(type));
        return found->body;
      }
      at = found->body;
    }
    return std::nullopt;
  }

  // An attribute's values in bytes as libhdf5 1.10 counts them: the points
  // of the dataspace at `space` (none for a null one, 1 for a scalar) times
  // the size in the datatype at `type` (a variable-length value is stored
  // as its length and a global heap ID). Both messages were walked first,
  // so their fields lie inside them. kUndefinedAddress (2^64 - 1) when the
  // product does not fit in 64 bits.
  std::uint64_t value_bytes(std::uint64_t type, std::uint64_t space) {
    constexpr std::uint64_t kVariableLengthClass = 9;
    constexpr std::uint64_t kNullDataspace = 2;
    std::uint64_t size = number(type + 4, 4);
    if ((number(type, 1) & 0x0f) == kVariableLengthClass) {
      size = std::max<std::uint64_t>(size, 4 + offset_size_ + 4);
    }
    const auto version = number(space, 1);
    if (version >= 2 && number(space + 3, 1) == kNullDataspace) return 0;
    const std::uint64_t dimensions = space + (version == 1 ? 8 : 4);
    std::uint64_t bytes = size;
    for (std::uint64_t d = 0; d < number(space + 1, 1); ++d) {
      if (__builtin_mul_overflow(bytes, number(dimensions + d * length_size_, length_size_),
                                 &bytes)) {
        return kUndefinedAddress;
      }
    }
    return bytes;
  }

  // A message of `type` in the `size` bytes at `at`, walked as libhdf5
  // decodes it (message_overrun).
  void check_message(std::uint16_t type, std::uint64_t at, std::uint64_t size, const char* what) {
    const std::string problem = message_overrun(type, bytes(at, std::min(size, kMaxHeaderBytes)),
                                                offset_size_, length_size_);
    if (!problem.empty()) {
      corrupt(fmt::format("{} at byte {} is cut short: {}", what, at, problem));
    }
  }

  // The group's B-tree must start inside the file, and its local heap (the
  // link names) must hold its data segment inside the file: libhdf5 reads
  // both without comparing them to the file's size. Then the groups below,
  // through the B-tree's symbol nodes.
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
    check_free_list(heap, data, data_size);
    // Each group has a B-tree of its own: one that is a group's above it
    // makes a loop that H5Lvisit walks until the stack or the path names
    // give out (a fuzzed group whose symbol table was the root's).
    if (std::find(tables_above_.begin(), tables_above_.end(), btree) != tables_above_.end()) {
      corrupt(fmt::format("its symbol table B-tree at byte {} is that of a group above it", btree));
    }
    tables_above_.push_back(btree);
    // A group reached through several links (or through the symbol table
    // its entry caches and then its header's) has its tree walked once for
    // each local heap it is given with: libhdf5 takes the names from the
    // heap of the header's message, which a corrupt file can make another
    // than the one its entry caches.
    if (walked_trees_.insert({btree, heap}).second) {
      std::set<std::uint64_t> nodes_of_tree;
      check_group_node(btree, kAnyLevel, nodes_of_tree, LinkNames{data, data_size});
    }
    tables_above_.pop_back();
  }

  // libhdf5 1.10 reads a local heap's free list (each free block starts
  // with the offset of the next and its own size) into a list of its own
  // without looking for a loop: a fuzzed block whose next was itself grew
  // the probe process to 9 GB in its 10 s of processor time. Each block
  // must be met once; one outside the data segment libhdf5 refuses itself.
  void check_free_list(std::uint64_t heap, std::uint64_t data, std::uint64_t data_size) {
    std::set<std::uint64_t> blocks;
    for (std::uint64_t block = number(heap + 8 + length_size_, length_size_);
         block != kNoFreeBlock && blocks.size() < kMaxVisits;
         block = number(data + block, length_size_)) {
      if (block >= data_size || 2 * length_size_ > data_size - block) return;
      if (!blocks.insert(block).second) {
        corrupt(fmt::format(
            "the free list of its local heap at byte {} comes back to the block at offset {}", heap,
            block));
      }
    }
  }

  // A v1 B-tree node of a group: its children are nodes one level down, or
  // at level 0 symbol nodes. A node that is not one (no signature, another
  // type) is left to libhdf5, which checks those itself and fails cleanly.
  // Its levels and its shape it does not check: H5Gget_info (which matio's
  // Mat_Open calls) recursed without end through a fuzzed node of level 16
  // whose one child was itself, and a node reached twice would be walked
  // twice for each path to it. So every child must be one level down and
  // each node appear once in its tree, as in every tree libhdf5 writes.
  void check_group_node(std::uint64_t node, int expected_level,
                        std::set<std::uint64_t>& nodes_of_tree, const LinkNames& names) {
    if (node == kUndefinedAddress || bytes(node, 4) != "TREE" ||
        number(node + 4, 1) != kGroupNodeType || ++nodes_walked_ > kMaxVisits) {
      return;
    }
    const auto level = static_cast<int>(number(node + 5, 1));
    if (expected_level == kAnyLevel ? level > kMaxTreeLevel : level != expected_level) {
      corrupt(fmt::format("its symbol table B-tree node at byte {} is of level {}, not {}", node,
                          level,
                          expected_level == kAnyLevel ? fmt::format("at most {}", kMaxTreeLevel)
                                                      : std::to_string(expected_level)));
    }
    require_once(node, nodes_of_tree);
    const std::uint64_t children = number(node + 6, 2);
    // After the siblings: key, child, key, ..., child, key (keys are heap offsets).
    const std::uint64_t first_child = node + 8 + 2 * offset_size_ + length_size_;
    for (std::uint64_t i = 0; i < children; ++i) {
      const std::uint64_t child = address(first_child + i * (offset_size_ + length_size_));
      if (child == kUndefinedAddress || child >= size_) return;  // libhdf5 fails on it
      if (level > 0) {
        check_group_node(child, level - 1, nodes_of_tree, names);
      } else {
        require_once(child, nodes_of_tree);
        check_symbol_node(child, names);
      }
    }
  }

  void require_once(std::uint64_t node, std::set<std::uint64_t>& nodes_of_tree) const {
    if (!nodes_of_tree.insert(node).second) {
      corrupt(fmt::format("its symbol table B-tree reaches the node at byte {} twice", node));
    }
  }

  // A symbol node: its entries, each a link of the group.
  void check_symbol_node(std::uint64_t node, const LinkNames& names) {
    if (bytes(node, 4) != "SNOD") return;
    const std::uint64_t entries = number(node + 6, 2);
    const std::uint64_t entry_size = 2 * offset_size_ + 8 + 16;
    for (std::uint64_t i = 0; i < entries; ++i) {
      const std::uint64_t entry = node + 8 + i * entry_size;
      if (entry > size_ || entry_size > size_ - entry) return;  // libhdf5 fails on it
      check_link_name(entry, names);
      if (number(entry + 2 * offset_size_, 4) == kSoftLinkCache) {
        // A soft link has no object header: its target is a path in the
        // heap (the scratch space holds its offset), resolved by name.
        heap_string(number(entry + 2 * offset_size_ + 8, 4), names, entry,
                    "the target of the soft link");
        continue;
      }
      check_entry(entry, fmt::format("the group or dataset whose entry is at byte {}", entry));
    }
  }

  // libhdf5 walks a group (H5Lvisit, and matio's reads) by looking each
  // link up by its name, which must then lead to the link's own entry: a
  // name that is empty, "." or holds a '/' is a path to another object ("."
  // to the group itself, which H5Lvisit entered again and again until the
  // stack ran out, on a fuzzed file).
  void check_link_name(std::uint64_t entry, const LinkNames& names) {
    const std::optional<std::string> found =
        heap_string(number(entry, offset_size_), names, entry, "the name of the link");
    if (!found) return;
    const std::string& name = *found;
    if (name.empty() || name == "." || name.find('/') != std::string::npos) {
      const bool printable = std::all_of(name.begin(), name.end(), [](char c) {
        return std::isprint(static_cast<unsigned char>(c)) != 0;
      });
      corrupt(fmt::format(
          "the link at byte {} is named '{}', a path that does not lead to the link's own object",
          entry, printable ? name : std::string("(unprintable, with a '/')")));
    }
  }

  // The string at `offset` in a group's local heap (a link's name, a soft
  // link's target), which libhdf5 copies up to its NUL: it must end inside
  // the heap. None when libhdf5 refuses the offset itself (past the heap)
  // or the string is longer than kMaxNameBytes.
  std::optional<std::string> heap_string(std::uint64_t offset, const LinkNames& names,
                                         std::uint64_t entry, const char* what) {
    if (offset >= names.size) return std::nullopt;
    const std::uint64_t readable = std::min(names.size - offset, kMaxNameBytes);
    // Names are short: read a little more at a time up to the NUL, not the
    // rest of the heap (64 KB a link took 20,000 links 1.3 GB of copying).
    std::string text;
    for (std::uint64_t piece = 64;; piece *= 4) {
      const std::uint64_t wanted = std::min(piece, readable);
      text = bytes(names.data + offset, wanted);
      if (text.find('\0') != std::string::npos || wanted == readable) break;
    }
    const std::size_t end = text.find('\0');
    if (end == std::string::npos) {
      if (readable < kMaxNameBytes) {
        corrupt(fmt::format("{} at byte {} does not end inside its local heap", what, entry));
      }
      return std::nullopt;
    }
    text.resize(end);
    return text;
  }

  const std::string& path_;
  std::ifstream in_;
  std::uint64_t size_;
  std::string window_;  // the file's bytes from window_start_
  std::uint64_t window_start_ = 0;
  unsigned offset_size_ = 8;
  unsigned length_size_ = 8;
  std::uint64_t base_ = 0;
  std::set<std::uint64_t> visited_;  // object headers and their continuation blocks
  // The (B-tree, local heap) pairs of the groups walked so far.
  std::set<std::pair<std::uint64_t, std::uint64_t>> walked_trees_;
  std::size_t nodes_walked_ = 0;             // their nodes, bounded by kMaxVisits
  std::vector<std::uint64_t> ancestors_;     // the object headers above the entry being checked
  std::vector<std::uint64_t> tables_above_;  // the symbol table B-trees above it
  std::string group_;                        // the group being checked, for messages
};

}  // namespace

void check_symbol_tables(const std::string& path) { SymbolTableCheck(path).run(); }

}  // namespace topkfs::hdf5
