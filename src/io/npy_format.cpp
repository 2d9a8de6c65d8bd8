#include "npy_format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

#include "integer_labels.hpp"
#include "memory_budget.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs::detail {
namespace {

constexpr bool kHostBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

// The unsigned integer as wide as an element, to byte-swap it.
template <std::size_t Size>
using Bits = std::conditional_t<
    Size == 1, std::uint8_t,
    std::conditional_t<Size == 2, std::uint16_t,
                       std::conditional_t<Size == 4, std::uint32_t, std::uint64_t>>>;

inline std::uint8_t byte_swap(std::uint8_t v) { return v; }
inline std::uint16_t byte_swap(std::uint16_t v) { return __builtin_bswap16(v); }
inline std::uint32_t byte_swap(std::uint32_t v) { return __builtin_bswap32(v); }
inline std::uint64_t byte_swap(std::uint64_t v) { return __builtin_bswap64(v); }

template <typename T, bool Swap>
inline T load(const char* p) {
  Bits<sizeof(T)> bits;
  std::memcpy(&bits, p, sizeof bits);
  if constexpr (Swap) bits = byte_swap(bits);
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The swap flag is a template argument so that the common case (native or
// single-byte data) compiles to a plain, vectorisable conversion loop.
template <typename T, typename Out, bool Swap>
void decode_loop(const char* src, std::size_t count, Out* dst) {
  for (std::size_t i = 0; i < count; ++i) {
    dst[i] = static_cast<Out>(load<T, Swap>(src + i * sizeof(T)));
  }
}

template <typename T, typename Out>
void decode_typed(bool swap, const char* src, std::size_t count, Out* dst) {
  if (swap && sizeof(T) > 1) {
    decode_loop<T, Out, true>(src, count, dst);
  } else {
    decode_loop<T, Out, false>(src, count, dst);
  }
}

template <typename Out>
void decode_any(const ElementType& type, const char* src, std::size_t count, Out* dst) {
  const bool swap = type.big_endian != kHostBigEndian;
  switch (type.kind) {
    case ElementKind::Bool:
      for (std::size_t i = 0; i < count; ++i) dst[i] = src[i] != 0 ? Out(1) : Out(0);
      return;
    case ElementKind::Unsigned:
      switch (type.size) {
        case 1: return decode_typed<std::uint8_t>(swap, src, count, dst);
        case 2: return decode_typed<std::uint16_t>(swap, src, count, dst);
        case 4: return decode_typed<std::uint32_t>(swap, src, count, dst);
        case 8: return decode_typed<std::uint64_t>(swap, src, count, dst);
      }
      break;
    case ElementKind::Signed:
      switch (type.size) {
        case 1: return decode_typed<std::int8_t>(swap, src, count, dst);
        case 2: return decode_typed<std::int16_t>(swap, src, count, dst);
        case 4: return decode_typed<std::int32_t>(swap, src, count, dst);
        case 8: return decode_typed<std::int64_t>(swap, src, count, dst);
      }
      break;
    case ElementKind::Float:
      switch (type.size) {
        case 4: return decode_typed<float>(swap, src, count, dst);
        case 8: return decode_typed<double>(swap, src, count, dst);
      }
      break;
  }
  TOPKFS_ASSERT(false && "element type validated by the header parser");
}

// ---- the header dictionary: a Python literal ----

struct Literal {
  enum class Kind { String, Bool, Integer, Sequence, None } kind = Kind::None;
  std::string text;
  bool flag = false;
  std::uint64_t integer = 0;
  std::vector<Literal> items;
};

// Parses the small subset of Python literals numpy writes in NPY headers:
// a dict of str keys to str, bool, int and tuple/list values. Sequences nest
// at most kMaxNesting deep: numpy writes one level (the shape), and the
// parser recurses once per level, so a hostile header of thousands of
// brackets would otherwise overflow the stack.
class LiteralParser {
  static constexpr int kMaxNesting = 32;

 public:
  LiteralParser(const std::string& text, const std::string& where) : text_(text), where_(where) {}

  std::vector<std::pair<std::string, Literal>> parse_dict() {
    std::vector<std::pair<std::string, Literal>> entries;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      Literal key = parse_value();
      if (key.kind != Literal::Kind::String) fail("a dictionary key that is not a string");
      expect(':');
      entries.emplace_back(key.text, parse_value());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("',' or '}'");
    }
    ++pos_;
    return entries;
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  void expect(char c) {
    skip_space();
    if (peek() != c) fail(fmt::format("'{}'", c));
    ++pos_;
  }

  [[noreturn]] void fail(const std::string& expected) const {
    throw DataError(fmt::format("{}: malformed NPY header at character {}: expected {} in \"{}\"",
                                where_, pos_ + 1, expected, text_.substr(0, 200)));
  }

  bool take_word(const char* word) {
    const std::size_t length = std::strlen(word);
    if (text_.compare(pos_, length, word) != 0) return false;
    pos_ += length;
    return true;
  }

  Literal parse_value() {
    skip_space();
    Literal value;
    const char c = peek();
    if (c == '\'' || c == '"') {
      value.kind = Literal::Kind::String;
      const std::size_t end = text_.find(c, pos_ + 1);
      if (end == std::string::npos) fail("the end of a string");
      value.text = text_.substr(pos_ + 1, end - pos_ - 1);
      pos_ = end + 1;
    } else if (c == '(' || c == '[') {
      if (depth_ == kMaxNesting) {
        fail(fmt::format("at most {} nested brackets (numpy writes one level)", kMaxNesting));
      }
      const DepthGuard guard(depth_);
      value.kind = Literal::Kind::Sequence;
      const char close = c == '(' ? ')' : ']';
      ++pos_;
      while (true) {
        skip_space();
        if (peek() == close) break;
        value.items.push_back(parse_value());
        skip_space();
        if (peek() == ',') {
          ++pos_;
        } else if (peek() != close) {
          fail(fmt::format("',' or '{}'", close));
        }
      }
      ++pos_;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      value.kind = Literal::Kind::Integer;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const std::uint64_t digit = static_cast<std::uint64_t>(peek() - '0');
        if (value.integer > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
          fail("an integer that fits in 64 bits");
        }
        value.integer = value.integer * 10 + digit;
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literals in old files
    } else if (take_word("True")) {
      value.kind = Literal::Kind::Bool;
      value.flag = true;
    } else if (take_word("False")) {
      value.kind = Literal::Kind::Bool;
    } else if (take_word("None")) {
      value.kind = Literal::Kind::None;
    } else {
      fail("a string, a number, True, False or a tuple");
    }
    return value;
  }

  struct DepthGuard {
    explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
    ~DepthGuard() { --depth_; }
    int& depth_;
  };

  const std::string& text_;
  const std::string& where_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

[[noreturn]] void unsupported_dtype(const std::string& descr, const std::string& why,
                                    const std::string& where) {
  throw DataError(fmt::format(
      "{}: unsupported dtype '{}' ({}); supported: float ('f4', 'f8'), integers ('i1' to 'i8', "
      "'u1' to 'u8') and bool ('b1'); convert with arr.astype('float32') before saving",
      where, descr, why));
}

ElementType parse_descr(const std::string& descr, const std::string& where) {
  std::size_t pos = 0;
  ElementType type;
  type.big_endian = kHostBigEndian;
  if (pos < descr.size() && std::strchr("<>|=", descr[pos]) != nullptr) {
    if (descr[pos] == '<') type.big_endian = false;
    if (descr[pos] == '>') type.big_endian = true;
    ++pos;
  }
  if (pos >= descr.size()) unsupported_dtype(descr, "empty type", where);
  const char code = descr[pos++];
  const std::string digits = descr.substr(pos);
  const bool numeric_size = !digits.empty() && digits.size() <= 2 &&
                            std::all_of(digits.begin(), digits.end(),
                                        [](unsigned char d) { return std::isdigit(d) != 0; });
  const int size = numeric_size ? std::stoi(digits) : 0;
  switch (code) {
    case 'f':
      if (size == 4 || size == 8) return {ElementKind::Float, size, type.big_endian};
      unsupported_dtype(descr, size == 2 ? "half precision" : "float width", where);
    case 'i':
    case 'u':
      if (size == 1 || size == 2 || size == 4 || size == 8) {
        return {code == 'i' ? ElementKind::Signed : ElementKind::Unsigned, size, type.big_endian};
      }
      unsupported_dtype(descr, "integer width", where);
    case 'b':
      if (size == 1) return {ElementKind::Bool, 1, false};
      unsupported_dtype(descr, "bool width", where);
    case 'c': unsupported_dtype(descr, "complex numbers", where);
    case 'O': unsupported_dtype(descr, "Python objects", where);
    case 'U':
    case 'S':
    case 'a': unsupported_dtype(descr, "strings", where);
    case 'M':
    case 'm': unsupported_dtype(descr, "dates or time spans", where);
    case 'V': unsupported_dtype(descr, "raw or structured records", where);
    default: unsupported_dtype(descr, "unknown type code", where);
  }
}

std::uint32_t little_endian_u32(const unsigned char* p, int bytes) {
  std::uint32_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

// Row-major strides of the array's own shape, in elements.
std::vector<std::uint64_t> c_strides(const std::vector<std::uint64_t>& shape) {
  std::vector<std::uint64_t> strides(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  return strides;
}

// Writes `count` values, the Fortran-order elements first..first+count-1,
// to their row-major places in `out`.
template <typename T>
void scatter_fortran(const std::vector<std::uint64_t>& shape, std::uint64_t first, const T* values,
                     std::size_t count, T* out) {
  const auto strides = c_strides(shape);
  std::vector<std::uint64_t> index(shape.size());
  std::uint64_t position = 0;
  std::uint64_t rest = first;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    index[k] = rest % shape[k];
    rest /= shape[k];
    position += index[k] * strides[k];
  }
  for (std::size_t i = 0; i < count; ++i) {
    out[position] = values[i];
    for (std::size_t k = 0; k < shape.size(); ++k) {
      ++index[k];
      position += strides[k];
      if (index[k] < shape[k]) break;
      position -= shape[k] * strides[k];
      index[k] = 0;
    }
  }
}

bool is_fortran_multi_axis(const NpyHeader& header) {
  return header.fortran_order && header.shape.size() > 1;
}

}  // namespace

std::string ElementType::name() const {
  switch (kind) {
    case ElementKind::Bool: return "bool";
    case ElementKind::Signed: return fmt::format("int{}", size * 8);
    case ElementKind::Unsigned: return fmt::format("uint{}", size * 8);
    case ElementKind::Float: return fmt::format("float{}", size * 8);
  }
  return "?";
}

void decode_to_float(const ElementType& type, const char* src, std::size_t count, float* dst) {
  decode_any(type, src, count, dst);
}

void decode_to_double(const ElementType& type, const char* src, std::size_t count, double* dst) {
  decode_any(type, src, count, dst);
}

void decode_to_integers(const ElementType& type, const char* src, std::size_t count,
                        __int128* dst) {
  TOPKFS_ASSERT(type.kind != ElementKind::Float);
  decode_any(type, src, count, dst);
}

std::uint64_t checked_product(const std::vector<std::uint64_t>& dims, std::uint64_t factor,
                              const std::string& where) {
  std::uint64_t product = factor;
  for (auto d : dims) {
    if (__builtin_mul_overflow(product, d, &product)) {
      throw DataError(fmt::format("{}: the header claims an impossible size {} (over 2^64 bytes)",
                                  where, join_dims(dims)));
    }
  }
  return product;
}

std::string join_dims(const std::vector<std::uint64_t>& dims, const char* separator) {
  return fmt::format("{}", fmt::join(dims, separator));
}

std::uint64_t NpyHeader::elements() const {
  std::uint64_t product = 1;
  for (auto d : shape) product *= d;
  return product;
}

std::string NpyHeader::shape_text() const {
  if (shape.size() == 1) return fmt::format("({},)", shape.front());
  return fmt::format("({})", join_dims(shape, ", "));
}

std::uint64_t npy_header_length(const char* data, std::size_t size, const std::string& where) {
  static const char magic[] = "\x93NUMPY";
  if (size < 8 || std::memcmp(data, magic, 6) != 0) {
    std::string hex;
    for (std::size_t i = 0; i < std::min<std::size_t>(size, 6); ++i) {
      hex += fmt::format("{}{:02x}", i ? " " : "", static_cast<unsigned char>(data[i]));
    }
    throw DataError(fmt::format(
        "{}: not an NPY file: it starts with bytes {}, expected \\x93NUMPY (93 4e 55 4d 50 59)",
        where, hex.empty() ? "(none)" : hex));
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  const int major = bytes[6];
  if (major < 1 || major > 3) {
    throw DataError(fmt::format("{}: NPY format version {}.{} is not supported (1.0 to 3.0 are)",
                                where, major, bytes[7]));
  }
  const int length_bytes = major == 1 ? 2 : 4;
  if (size < static_cast<std::size_t>(8 + length_bytes)) {
    throw DataError(fmt::format("{}: truncated NPY header ({} bytes)", where, size));
  }
  return 8u + static_cast<std::uint64_t>(length_bytes) + little_endian_u32(bytes + 8, length_bytes);
}

NpyHeader parse_npy_header(const char* data, std::size_t size, const std::string& where) {
  NpyHeader header;
  header.header_bytes = npy_header_length(data, size, where);
  TOPKFS_ASSERT(size >= header.header_bytes);
  const std::size_t text_start = data[6] == 1 ? 10 : 12;
  const std::string text(data + text_start, data + header.header_bytes);
  bool have_descr = false, have_order = false, have_shape = false;
  for (const auto& [key, value] : LiteralParser(text, where).parse_dict()) {
    if (key == "descr") {
      if (value.kind != Literal::Kind::String) {
        throw DataError(fmt::format(
            "{}: structured dtype (a record of named fields) is not supported; save a plain "
            "numeric array",
            where));
      }
      header.descr = value.text;
      have_descr = true;
    } else if (key == "fortran_order") {
      if (value.kind != Literal::Kind::Bool) {
        throw DataError(fmt::format("{}: NPY header: 'fortran_order' is not True/False", where));
      }
      header.fortran_order = value.flag;
      have_order = true;
    } else if (key == "shape") {
      if (value.kind != Literal::Kind::Sequence) {
        throw DataError(fmt::format("{}: NPY header: 'shape' is not a tuple", where));
      }
      for (const auto& item : value.items) {
        if (item.kind != Literal::Kind::Integer) {
          throw DataError(fmt::format("{}: NPY header: 'shape' holds a non-integer", where));
        }
        header.shape.push_back(item.integer);
      }
      have_shape = true;
    }
  }
  if (!have_descr || !have_order || !have_shape) {
    throw DataError(fmt::format(
        "{}: NPY header lacks '{}' (it needs 'descr', 'fortran_order' and 'shape')", where,
        !have_descr   ? "descr"
        : !have_order ? "fortran_order"
                      : "shape"));
  }
  header.type = parse_descr(header.descr, where);
  checked_product(header.shape, static_cast<std::uint64_t>(header.type.size), where);
  return header;
}

void check_npy_payload(const NpyHeader& header, std::uint64_t available, const std::string& where) {
  const std::uint64_t needed = header.payload_bytes();
  if (available < needed) {
    throw DataError(
        fmt::format("{}: truncated: header says shape {} of '{}' = {} bytes, file holds {}", where,
                    header.shape_text(), header.descr, needed, available));
  }
  if (available > needed) {
    throw DataError(fmt::format(
        "{}: header says shape {} of '{}' = {} bytes, but {} bytes follow the header (the "
        "header or the file is corrupt)",
        where, header.shape_text(), header.descr, needed, available));
  }
}

bool npy_maps_as_features(const NpyHeader& header) {
  return header.type.kind == ElementKind::Float && header.type.size == 4 &&
         !header.type.big_endian && !is_fortran_multi_axis(header);
}

MatrixLayout feature_layout(const NpyHeader& header, const std::string& what, bool mapped) {
  const auto& shape = header.shape;
  if (shape.size() < 2) {
    throw DataError(
        fmt::format("{}: features need a 2-D array (samples x features), this one has shape {}{}",
                    what, header.shape_text(),
                    shape.size() == 1 ? "; for a single feature save X.reshape(-1, 1)" : ""));
  }
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
  // The columns are counted on their own: with 0 rows the whole product is
  // 0 whatever the other axes claim.
  const std::uint64_t cols =
      checked_product(std::vector<std::uint64_t>(shape.begin() + 1, shape.end()), 1, what);
  check_feature_shape(shape[0], cols, header.shape_text(), what, mapped);
  MatrixLayout layout;
  layout.rows = static_cast<std::int64_t>(shape[0]);
  layout.cols = static_cast<std::int64_t>(cols);
  const bool image =
      (shape.size() == 3 || shape.size() == 4) &&
      std::all_of(shape.begin() + 1, shape.end(), [&](auto d) { return d <= limit; });
  if (image) {
    layout.image = ImageShape{static_cast<int>(shape[1]), static_cast<int>(shape[2]),
                              shape.size() == 4 ? static_cast<int>(shape[3]) : 1};
  }
  return layout;
}

void decode_npy_elements(const NpyHeader& header, const char* src, std::uint64_t first,
                         std::size_t count, float* out) {
  if (!is_fortran_multi_axis(header)) {
    decode_to_float(header.type, src, count, out + first);
    return;
  }
  // Bounded scratch, so that a whole NPZ member never needs a second copy.
  constexpr std::size_t kBlock = 1 << 16;
  std::vector<float> block(std::min(count, kBlock));
  for (std::size_t done = 0; done < count; done += block.size()) {
    const std::size_t n = std::min(block.size(), count - done);
    decode_to_float(header.type, src + done * static_cast<std::size_t>(header.type.size), n,
                    block.data());
    scatter_fortran(header.shape, first + done, block.data(), n, out);
  }
}

std::vector<double> decode_npy_values(const NpyHeader& header, const char* payload) {
  const auto count = static_cast<std::size_t>(header.elements());
  std::vector<double> values(count);
  decode_to_double(header.type, payload, count, values.data());
  if (!is_fortran_multi_axis(header)) return values;
  std::vector<double> ordered(count);
  scatter_fortran(header.shape, 0, values.data(), count, ordered.data());
  return ordered;
}

std::vector<std::string> feature_names_for(const MatrixLayout& layout) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(layout.cols));
  if (layout.image) {
    const auto& image = *layout.image;
    for (int r = 0; r < image.height; ++r) {
      for (int c = 0; c < image.width; ++c) {
        if (image.channels == 1) {
          names.push_back(fmt::format("px_{}_{}", r, c));
        } else {
          for (int ch = 0; ch < image.channels; ++ch) {
            names.push_back(fmt::format("px_{}_{}_{}", r, c, ch));
          }
        }
      }
    }
    return names;
  }
  for (std::int64_t j = 0; j < layout.cols; ++j) names.push_back(default_feature_name(j));
  return names;
}

namespace {

// q of a target array (n,) or (n, q), checking n against the features.
int target_width(const NpyHeader& header, std::int64_t rows, const std::string& what) {
  const auto& shape = header.shape;
  if (shape.empty() || shape.size() > 2) {
    throw DataError(
        fmt::format("{}: a target must be 1-D (n,) or 2-D (n, outputs), this one has shape {}",
                    what, header.shape_text()));
  }
  if (shape[0] != static_cast<std::uint64_t>(rows)) {
    throw DataError(
        fmt::format("{}: the target has {} rows but the features have {}", what, shape[0], rows));
  }
  const std::uint64_t q = shape.size() == 2 ? shape[1] : 1;
  if (q == 0 || q > 100000) {
    throw DataError(fmt::format("{}: a target with {} outputs (shape {}) is not usable", what, q,
                                header.shape_text()));
  }
  return static_cast<int>(q);
}

std::vector<std::string> target_names_for(const std::string& name, int q) {
  if (q == 1) return {name};
  std::vector<std::string> names;
  for (int j = 0; j < q; ++j) names.push_back(fmt::format("{}{}", name, j));
  return names;
}

// 64-bit integer labels beyond 2^53 would merge as doubles: such a target
// is read exactly, as text (integer_labels.hpp).
bool exact_labels_needed(const NpyArray& array, int q, const ReadOptions& options) {
  const ElementType& type = array.header.type;
  if (q != 1 || type.size != 8 || type.kind == ElementKind::Float ||
      options.task == TaskHint::Regression) {
    return false;
  }
  std::vector<__int128> labels(static_cast<std::size_t>(array.header.elements()));
  decode_to_integers(type, array.payload(), labels.size(), labels.data());
  const auto bound = static_cast<__int128>(kExactIntegerBound);
  return std::any_of(labels.begin(), labels.end(),
                     [&](__int128 v) { return v >= bound || v <= -bound; });
}

void set_exact_npy_target(Dataset& data, const std::vector<const NpyArray*>& arrays,
                          const std::string& name, const ReadOptions& options) {
  std::vector<std::string> texts;
  for (const NpyArray* array : arrays) {
    const auto count = static_cast<std::size_t>(array->header.elements());
    std::vector<__int128> labels(count);
    if (array->header.type.kind == ElementKind::Float) {
      throw DataError(fmt::format(
          "{}: 64-bit integer class labels beyond 2^53 in {}, floats here: store every part's "
          "target as integers",
          array->where, arrays.front()->where));
    }
    decode_to_integers(array->header.type, array->payload(), count, labels.data());
    for (const __int128 v : labels) {
      // Every 64-bit integer, signed or not, is within +-2^64.
      texts.push_back(v < 0 ? "-" + std::to_string(static_cast<unsigned long long>(-v))
                            : std::to_string(static_cast<unsigned long long>(v)));
    }
  }
  set_target_from_text(data, texts, target_names_for(name, 1).front(), options,
                       arrays.front()->where);
}

}  // namespace

NpyArray parse_npy_blob(std::string bytes, std::string where) {
  NpyArray array;
  array.where = std::move(where);
  const std::uint64_t length = npy_header_length(bytes.data(), bytes.size(), array.where);
  if (length > bytes.size()) {
    throw DataError(fmt::format("{}: truncated: the NPY header claims {} bytes, file holds {}",
                                array.where, length, bytes.size()));
  }
  array.header = parse_npy_header(bytes.data(), bytes.size(), array.where);
  check_npy_payload(array.header, bytes.size() - length, array.where);
  array.bytes = std::move(bytes);
  return array;
}

void set_npy_target(Dataset& data, const std::vector<const NpyArray*>& arrays,
                    const std::vector<std::int64_t>& rows, const std::string& name,
                    const ReadOptions& options) {
  TOPKFS_ASSERT(!arrays.empty() && arrays.size() == rows.size());
  std::vector<double> values;
  int q = 0;
  for (std::size_t p = 0; p < arrays.size(); ++p) {
    const NpyArray& array = *arrays[p];
    const int width = target_width(array.header, rows[p], array.where);
    if (p > 0 && width != q) {
      throw DataError(fmt::format("{}: {} target columns, but {} has {}", array.where, width,
                                  arrays.front()->where, q));
    }
    q = width;
    if (exact_labels_needed(array, q, options)) {
      set_exact_npy_target(data, arrays, name, options);
      return;
    }
    const auto part = decode_npy_values(array.header, array.payload());
    values.insert(values.end(), part.begin(), part.end());
  }
  set_target_from_numbers(data, values, q, target_names_for(name, q), options,
                          arrays.front()->where);
}

FeatureMatrix allocate_features(std::int64_t rows, std::int64_t cols, const std::string& where) {
  try {
    return FeatureMatrix(rows, cols);
  } catch (const std::bad_alloc&) {
    throw DataError(fmt::format("{}: not enough memory for {} x {} features ({:.1f} GB as float32)",
                                where, rows, cols, 4.0 * static_cast<double>(rows) * cols / 1e9));
  }
}

}  // namespace topkfs::detail
