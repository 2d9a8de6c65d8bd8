#include "npy_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include "topkfs/core/error.hpp"

namespace topkfs::detail {
namespace {

constexpr std::uint64_t kAlignment = 64;
constexpr std::uint32_t kSaturated = 0xffffffffu;
// An extra field id no zip tool assigns meaning to, holding only padding.
constexpr std::uint16_t kPaddingId = 0x7470;

class LittleEndian {
 public:
  LittleEndian& u16(std::uint64_t value) { return put(value, 2); }
  LittleEndian& u32(std::uint64_t value) { return put(value, 4); }
  LittleEndian& u64(std::uint64_t value) { return put(value, 8); }
  LittleEndian& text(const std::string& value) {
    bytes_ += value;
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  LittleEndian& put(std::uint64_t value, int count) {
    for (int i = 0; i < count; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
    return *this;
  }
  std::string bytes_;
};

void write_bytes(std::ostream& out, const char* bytes, std::size_t count) {
  out.write(bytes, static_cast<std::streamsize>(count));
}

void write_bytes(std::ostream& out, const std::string& bytes) {
  write_bytes(out, bytes.data(), bytes.size());
}

// Writes the payload and checks that it is as long as announced.
void stream_payload(std::ostream& out, const NpyOutput& array) {
  std::uint64_t written = 0;
  array.write_payload([&](const char* bytes, std::size_t count) {
    write_bytes(out, bytes, count);
    written += count;
  });
  TOPKFS_ASSERT(written == array.payload_bytes);
}

struct Member {
  std::string name;
  std::uint64_t offset = 0;  // of the local header
  std::uint64_t size = 0;    // NPY header + payload
  std::uint32_t crc = 0;
};

std::uint32_t member_crc(const std::string& header, const NpyOutput& array) {
  uLong crc =
      crc32_z(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(header.data()), header.size());
  array.write_payload([&](const char* bytes, std::size_t count) {
    crc = crc32_z(crc, reinterpret_cast<const Bytef*>(bytes), count);
  });
  return static_cast<std::uint32_t>(crc);
}

}  // namespace

std::string npy_header(const std::string& descr, const std::vector<std::uint64_t>& shape) {
  const std::string dims = shape.size() == 1 ? fmt::format("({},)", shape[0])
                                             : fmt::format("({})", fmt::join(shape, ", "));
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, dims);
  const std::size_t fixed = 10;  // magic (6), version (2), length (2)
  const std::size_t total = (fixed + dict.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  dict.append(total - fixed - dict.size() - 1, ' ');
  dict.push_back('\n');
  return LittleEndian()
      .text(std::string("\x93NUMPY\x01\x00", 8))
      .u16(dict.size())
      .text(dict)
      .bytes();
}

void write_npy(std::ostream& out, const NpyOutput& array) {
  write_bytes(out, npy_header(array.descr, array.shape));
  stream_payload(out, array);
}

void write_npz(std::ostream& out, const std::vector<NpyOutput>& arrays) {
  std::vector<Member> members;
  std::uint64_t at = 0;
  for (const auto& array : arrays) {
    const std::string header = npy_header(array.descr, array.shape);
    Member member{array.name + ".npy", at, header.size() + array.payload_bytes,
                  member_crc(header, array)};
    // Local header (30) + name + zip64 extra (20) + padding extra (4 + pad):
    // the NPY header (a multiple of 64 bytes) then starts, and so the
    // payload lies, at a multiple of 64.
    const std::uint64_t before_pad = at + 30 + member.name.size() + 20 + 4;
    const std::uint64_t pad = (kAlignment - before_pad % kAlignment) % kAlignment;
    LittleEndian local;
    local.u32(0x04034b50).u16(45).u16(0).u16(0).u16(0).u16(0x21);  // stored; 1980-01-01
    local.u32(member.crc).u32(kSaturated).u32(kSaturated);
    local.u16(member.name.size()).u16(20 + 4 + pad).text(member.name);
    local.u16(0x0001).u16(16).u64(member.size).u64(member.size);
    local.u16(kPaddingId).u16(pad).text(std::string(static_cast<std::size_t>(pad), '\0'));
    write_bytes(out, local.bytes());
    write_bytes(out, header);
    stream_payload(out, array);
    at += local.bytes().size() + member.size;
    members.push_back(std::move(member));
  }
  const std::uint64_t directory_offset = at;
  LittleEndian directory;
  for (const auto& member : members) {
    directory.u32(0x02014b50).u16(45).u16(45).u16(0).u16(0).u16(0).u16(0x21);
    directory.u32(member.crc).u32(kSaturated).u32(kSaturated);
    directory.u16(member.name.size()).u16(28).u16(0).u16(0).u16(0).u32(0).u32(kSaturated);
    directory.text(member.name);
    directory.u16(0x0001).u16(24).u64(member.size).u64(member.size).u64(member.offset);
  }
  const std::uint64_t directory_size = directory.bytes().size();
  const std::uint64_t zip64_end = directory_offset + directory_size;
  LittleEndian tail;
  tail.u32(0x06064b50).u64(44).u16(45).u16(45).u32(0).u32(0);
  tail.u64(members.size()).u64(members.size()).u64(directory_size).u64(directory_offset);
  tail.u32(0x07064b50).u32(0).u64(zip64_end).u32(1);
  tail.u32(0x06054b50).u16(0).u16(0).u16(0xffff).u16(0xffff);
  tail.u32(kSaturated).u32(kSaturated).u16(0);
  write_bytes(out, directory.bytes());
  write_bytes(out, tail.bytes());
}

}  // namespace topkfs::detail
