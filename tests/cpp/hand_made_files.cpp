#include "hand_made_files.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cstring>

#include "test_support.hpp"

namespace topkfs::test {
namespace {

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

std::string raw_deflate(const std::string& bytes) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// A v5 data element: tag and data padded to 8 bytes.
void put_element(std::string& out, std::uint32_t type, const std::string& data) {
  put_le(out, type, 4);
  put_le(out, data.size(), 4);
  out += data;
  out.append((8 - data.size() % 8) % 8, '\0');
}

}  // namespace

std::string npy_bytes(const std::string& dict, const std::string& payload, int major) {
  const std::size_t preamble = major == 1 ? 10 : 12;
  std::string text = dict;
  while ((preamble + text.size() + 1) % 64 != 0) text += ' ';
  text += '\n';
  std::string bytes("\x93NUMPY", 6);
  bytes += static_cast<char>(major);
  bytes += '\0';
  put_le(bytes, text.size(), major == 1 ? 2 : 4);
  return bytes + text + payload;
}

std::string zip_bytes(const std::vector<ZipMember>& members) {
  std::string local;
  std::string central;
  for (const auto& member : members) {
    const std::string stored = member.deflate ? raw_deflate(member.bytes) : member.bytes;
    const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(member.bytes.data()),
                           static_cast<uInt>(member.bytes.size()));
    const std::uint64_t size = member.claimed_size != 0 ? member.claimed_size : member.bytes.size();
    const std::uint64_t offset = local.size();
    for (std::string* header : {&local, &central}) {
      const bool is_central = header == &central;
      put_le(*header, is_central ? 0x02014b50 : 0x04034b50, 4);
      if (is_central) put_le(*header, 20, 2);  // version made by
      put_le(*header, 20, 2);                  // version needed
      put_le(*header, 0, 2);                   // flags
      put_le(*header, member.deflate ? 8 : 0, 2);
      put_le(*header, 0, 4);  // time and date
      put_le(*header, crc, 4);
      put_le(*header, stored.size(), 4);
      put_le(*header, size, 4);
      put_le(*header, member.name.size(), 2);
      put_le(*header, 0, 2);  // extra
      if (is_central) {
        put_le(*header, 0, 2);  // comment
        put_le(*header, 0, 2);  // disk
        put_le(*header, 0, 2);  // internal attributes
        put_le(*header, 0, 4);  // external attributes
        put_le(*header, offset, 4);
      }
      *header += member.name;
    }
    local += stored;
  }
  std::string archive = local + central;
  put_le(archive, 0x06054b50, 4);
  put_le(archive, 0, 4);  // disks
  put_le(archive, members.size(), 2);
  put_le(archive, members.size(), 2);
  put_le(archive, central.size(), 4);
  put_le(archive, local.size(), 4);
  put_le(archive, 0, 2);  // comment
  return archive;
}

std::string mat_v5_bytes(const std::vector<MatVariable>& variables) {
  std::string out = "MATLAB 5.0 MAT-file, written by the topkfs tests";
  out.resize(116, ' ');
  out.append(8, '\0');  // subsystem data offset
  put_le(out, 0x0100, 2);
  out += "IM";
  for (const auto& variable : variables) {
    std::string body;
    std::string flags;
    put_le(flags, 6, 4);  // mxDOUBLE_CLASS
    put_le(flags, 0, 4);
    put_element(body, 6, flags);  // miUINT32
    std::string dims;
    put_le(dims, variable.rows, 4);
    put_le(dims, variable.cols, 4);
    put_element(body, 5, dims);  // miINT32
    put_element(body, 1, variable.name);
    std::string values(variable.values.size() * 8, '\0');
    if (!values.empty()) std::memcpy(values.data(), variable.values.data(), values.size());
    put_element(body, 9, values);  // miDOUBLE
    put_element(out, 14, body);    // miMATRIX
  }
  return out;
}

std::string idx_header(const std::vector<std::uint32_t>& dims) {
  std::string out("\0\0\x08", 3);
  out += static_cast<char>(dims.size());
  for (auto d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((d >> shift) & 0xff);
  }
  return out;
}

std::string sparse_file(const std::string& name, const std::string& head, std::uint64_t size) {
  const std::string path = write_temp_file(name, head);
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
    ADD_FAILURE() << "cannot extend " << path << " to " << size << " bytes";
  }
  return path;
}

}  // namespace topkfs::test
