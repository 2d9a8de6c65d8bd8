// CSV and TSV reader: the whole file (gunzipped when it starts with the gzip
// magic) is parsed in one pass from memory, every number with std::from_chars
// straight into the row-major float32 feature matrix. Only the first records
// (detection, header) and malformed cells take the slower, quote-aware path.
//
// Detection rules (each can be overridden through ReadOptions):
//  - Delimiter: the first of  , TAB ; | space  that splits the first
//    kSampleRecords records into one consistent number (> 1) of fields (the
//    first record may have 2 fields: a shape line). "space" means runs of
//    blanks, as in whitespace-aligned files. Nothing fits: ',' and the
//    row-width errors then show where the file goes wrong.
//  - Shape line: a first record of exactly two positive integers followed by
//    records of another width (kin8nm starts with "8192,8"). It is skipped
//    when the first integer is the number of data rows or the second the
//    number of features (or of columns), with a note; otherwise it is
//    reported as a row of the wrong width.
//  - Header (HeaderMode::Auto): the first record holds names when
//     (a) one of its fields is text (not a number, not a missing-value
//         marker) while the same field of the next record is a number (or
//         there is no next record), or
//     (b) it is the column numbers 0,1,2,... or 1,2,3,... (at least three),
//         possibly followed by one text name: the headers of pyrim
//         ("1,...,26,y"), ailerons ("1,...,40,y") and cpu_act ("1,...,22",
//         all numbers). Rule (b) adds a note, since such a line could in
//         principle be data (--no-header reads it as data).
//  - Line ends: LF or CRLF ('\r' counts as a blank). Blanks around values are
//    ignored (kin8nm writes ", 3.6e-01"). Blank lines are skipped anywhere.
//    A delimiter at the very end of a record ("1,2,3,") is accepted as a
//    line terminator, both in the header and in the data.
//  - Missing cells ("", NA, N/A, null, ?) in feature columns and "nan"/"inf"
//    read as NaN/Inf: check_values then refuses them by default and drops
//    their samples under --nan drop.
//
// The shared datasets, checked line by line: pyrim has CRLF line ends;
// kin8nm the shape line and values after ", "; ailerons ends its lines
// plainly (41 fields on every one of its 13751 lines, LF, no trailing
// delimiter or blanks) and only mixes the notations "-0.0020" and "-8.0E-4",
// which from_chars reads alike; cpu_act has an all-number header.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "integer_labels.hpp"
#include "mapped_file.hpp"
#include "text_columns.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs {
namespace {

constexpr int kSampleRecords = 20;      // records looked at to choose the delimiter
constexpr std::size_t kMaxListed = 20;  // column names listed in a message
constexpr std::size_t kMaxQuoted = 40;  // characters of a cell quoted in a message

std::string shorten(std::string_view text) {
  if (text.size() <= kMaxQuoted) return std::string(text);
  return std::string(text.substr(0, kMaxQuoted)) + "...";
}

struct Dialect {
  char delimiter = ',';
  // Delimiter ' ': fields are separated by runs of blanks (spaces and tabs).
  bool whitespace = false;

  // '\r' counts as a blank so that CRLF line ends need no special case.
  bool is_blank(char c) const { return c == ' ' || c == '\r' || (c == '\t' && delimiter != '\t'); }
  bool ends_field(char c) const { return whitespace ? is_blank(c) : c == delimiter; }
  const char* skip_blanks(const char* p, const char* end) const {
    while (p < end && is_blank(*p)) ++p;
    return p;
  }
};

Dialect make_dialect(char delimiter) {
  Dialect dialect;
  dialect.delimiter = delimiter;
  dialect.whitespace = delimiter == ' ';
  return dialect;
}

std::string delimiter_name(char delimiter) {
  if (delimiter == '\t') return "tabs";
  if (delimiter == ' ') return "blanks";
  return fmt::format("'{}'", delimiter);
}

// A position in the text and its 1-based line number.
struct Cursor {
  const char* p = nullptr;
  const char* end = nullptr;
  std::int64_t line = 1;
};

// Moves past lines holding only blanks; false when the text ends first.
bool skip_blank_lines(Cursor& c) {
  for (;;) {
    const char* q = c.p;
    while (q < c.end && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
    if (q == c.end) {
      c.p = c.end;
      return false;
    }
    if (*q != '\n') return true;
    c.p = q + 1;
    ++c.line;
  }
}

struct Field {
  std::string text;  // unquoted, "" unescaped, without the blanks around it
  bool quoted = false;
};

// Reads the field at c.p; a quoted field may hold delimiters, "" and line
// ends. Leaves c.p at the delimiter, line end or end of text that follows
// (in whitespace mode: at the next field or the line end).
Field read_field(Cursor& c, const Dialect& dialect, const std::string& path) {
  Field field;
  c.p = dialect.skip_blanks(c.p, c.end);
  if (c.p < c.end && *c.p == '"') {
    field.quoted = true;
    const std::int64_t opened = c.line;
    ++c.p;
    for (;;) {
      if (c.p == c.end) {
        throw DataError(fmt::format(
            "{}: line {}: a quoted field is never closed (a '\"' is missing)", path, opened));
      }
      const char ch = *c.p++;
      if (ch == '"') {
        if (c.p < c.end && *c.p == '"') {
          field.text += '"';
          ++c.p;
          continue;
        }
        break;
      }
      if (ch == '\n') ++c.line;
      field.text += ch;
    }
    c.p = dialect.skip_blanks(c.p, c.end);
  }
  // Unquoted text, or anything written after a closing quote (kept as is).
  const char* start = c.p;
  while (c.p < c.end && *c.p != '\n' && !dialect.ends_field(*c.p)) ++c.p;
  const char* stop = c.p;
  while (stop > start && dialect.is_blank(stop[-1])) --stop;
  field.text.append(start, stop);
  c.p = dialect.skip_blanks(c.p, c.end);
  return field;
}

struct Record {
  std::vector<Field> fields;
  std::int64_t line = 0;
  const char* begin = nullptr;
  // The record ended with a delimiter: its last field is an empty artefact.
  bool trailing_delimiter = false;

  std::size_t width() const { return fields.size() - (trailing_delimiter ? 1 : 0); }
};

// Reads the record at c (not a blank line) with its line end.
Record read_record(Cursor& c, const Dialect& dialect, const std::string& path) {
  Record record;
  record.line = c.line;
  record.begin = c.p;
  for (;;) {
    record.fields.push_back(read_field(c, dialect, path));
    if (c.p == c.end || *c.p == '\n') break;
    if (!dialect.whitespace) ++c.p;  // the delimiter
  }
  if (c.p < c.end) {
    ++c.p;
    ++c.line;
  }
  const Field& last = record.fields.back();
  record.trailing_delimiter =
      !dialect.whitespace && record.fields.size() > 1 && last.text.empty() && !last.quoted;
  return record;
}

// The record's first line as written, for messages.
std::string record_text(const Record& record, const char* end) {
  const char* stop = record.begin;
  while (stop < end && *stop != '\n') ++stop;
  while (stop > record.begin && (stop[-1] == '\r' || stop[-1] == ' ')) --stop;
  return shorten(std::string_view(record.begin, static_cast<std::size_t>(stop - record.begin)));
}

// ----------------------------------------------------------------- cells

enum class CellKind { Number, Missing, Text };

// Reads a whole cell as a number; "nan" and "inf" are numbers (NaN, Inf).
CellKind parse_cell(const std::string& text, double& value,
                    const detail::MissingMarkers& is_missing_marker) {
  if (is_missing_marker(text)) {
    value = std::numeric_limits<double>::quiet_NaN();
    return CellKind::Missing;
  }
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (*begin == '+') ++begin;
  const auto result = std::from_chars(begin, end, value);
  if (begin == end || result.ptr != end) return CellKind::Text;
  if (result.ec == std::errc::result_out_of_range) {
    value = std::strtod(std::string(begin, end).c_str(), nullptr);  // +-HUGE_VAL or 0
  } else if (result.ec != std::errc()) {
    return CellKind::Text;
  }
  if (std::isnan(value)) value = std::numeric_limits<double>::quiet_NaN();  // "nan(123)" too
  return CellKind::Number;
}

bool is_number(const std::string& text) {
  double value = 0;
  return parse_cell(text, value, detail::MissingMarkers()) == CellKind::Number;
}

float to_float(double value) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (std::fabs(value) > kMax) return value > 0 ? kInf : -kInf;  // the cast would be undefined
  return static_cast<float>(value);
}

// Clinger's fast path for float: a decimal with a mantissa below 2^24 and a
// power of ten up to 10 is one exactly-rounded float multiplication or
// division of two exact floats, so the result is the correctly rounded value
// (what from_chars gives), about twice as fast. Returns the end of the number,
// or nullptr for anything else (more digits, big exponents, nan, inf), which
// then goes to from_chars.
const char* parse_short_float(const char* p, const char* end, float& value) {
  constexpr std::uint32_t kExactLimit = 1u << 24;
  static constexpr float kPowers[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                      1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  const bool negative = p < end && *p == '-';
  if (p < end && (*p == '-' || *p == '+')) ++p;
  std::uint32_t mantissa = 0;
  int digits = 0;
  int exponent = 0;
  for (; p < end && static_cast<unsigned>(*p - '0') < 10; ++p, ++digits) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    if (mantissa >= kExactLimit) return nullptr;
  }
  if (p < end && *p == '.') {
    for (++p; p < end && static_cast<unsigned>(*p - '0') < 10; ++p, ++digits, --exponent) {
      mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
      if (mantissa >= kExactLimit) return nullptr;
    }
  }
  if (digits == 0) return nullptr;
  if (p < end && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    const bool minus = q < end && *q == '-';
    if (q < end && (*q == '-' || *q == '+')) ++q;
    if (q == end || static_cast<unsigned>(*q - '0') >= 10) return nullptr;
    int power = 0;
    for (; q < end && static_cast<unsigned>(*q - '0') < 10; ++q) {
      power = power * 10 + (*q - '0');
      if (power > 100) return nullptr;
    }
    exponent += minus ? -power : power;
    p = q;
  }
  if (exponent < -10 || exponent > 10) return nullptr;
  float result = static_cast<float>(mantissa);  // exact: below 2^24
  result = exponent < 0 ? result / kPowers[-exponent] : result * kPowers[exponent];
  value = negative ? -result : result;
  return p;
}

bool parse_positive(const std::string& text, std::int64_t& value) {
  if (text.empty() || text.size() > 18) return false;
  if (!std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return false;
  }
  value = std::stoll(text);
  return value > 0;
}

// ------------------------------------------------------- detection rules

std::vector<std::size_t> sample_widths(std::string_view body, const Dialect& dialect,
                                       const std::string& path) {
  Cursor c{body.data(), body.data() + body.size(), 1};
  std::vector<std::size_t> widths;
  try {
    while (static_cast<int>(widths.size()) < kSampleRecords && skip_blank_lines(c)) {
      widths.push_back(read_record(c, dialect, path).width());
    }
  } catch (const DataError&) {
    return {};  // a quote left open under this delimiter: not the one
  }
  return widths;
}

bool consistent(const std::vector<std::size_t>& widths) {
  if (widths.empty()) return false;
  if (widths.size() == 1) return widths[0] > 1;
  const std::size_t width = widths[1];
  if (width < 2) return false;
  for (std::size_t i = 2; i < widths.size(); ++i) {
    if (widths[i] != width) return false;
  }
  return widths[0] == width || widths[0] == 2;  // the first record may be a shape line
}

Dialect detect_dialect(std::string_view body, const std::string& path) {
  for (const char candidate : {',', '\t', ';', '|', ' '}) {
    const Dialect dialect = make_dialect(candidate);
    if (consistent(sample_widths(body, dialect, path))) return dialect;
  }
  return make_dialect(',');
}

bool looks_like_shape_line(const Record& first, const Record& second) {
  std::int64_t value = 0;
  return first.width() == 2 && second.width() != 2 && parse_positive(first.fields[0].text, value) &&
         parse_positive(first.fields[1].text, value);
}

// Length of the run 0,1,2,... or 1,2,3,... (plain digits) the record starts with.
std::size_t column_number_run(const Record& record) {
  std::size_t count = 0;
  std::int64_t first = 0;
  for (const Field& field : record.fields) {
    std::int64_t value = 0;
    const bool digits = field.text == "0" || parse_positive(field.text, value);
    if (!digits) break;
    if (count == 0) {
      if (value > 1) break;
      first = value;
    } else if (value != first + static_cast<std::int64_t>(count)) {
      break;
    }
    ++count;
  }
  return count;
}

enum class HeaderEvidence { None, Names, ColumnNumbers, TextNames };

// Rule (c) for a table whose every column holds text (house_votes84): the
// first record is names when each of its fields is text that the same column
// of the records after it never repeats, while at least one such column
// repeats its own values (a column of categories, whose first cell would
// come again if it were data).
bool text_header(const Record& top, const std::vector<Record>& after,
                 const detail::MissingMarkers& is_missing_marker) {
  if (after.empty() || top.width() < 2) return false;
  bool repeats = false;
  for (std::size_t j = 0; j < top.width(); ++j) {
    const std::string& name = top.fields[j].text;
    if (is_missing_marker(name) || is_number(name)) return false;
    std::vector<std::string_view> seen;
    for (const Record& record : after) {
      if (j >= record.fields.size()) return false;
      const std::string& cell = record.fields[j].text;
      if (cell == name) return false;
      if (is_missing_marker(cell)) continue;
      if (std::find(seen.begin(), seen.end(), cell) != seen.end()) repeats = true;
      seen.push_back(cell);
    }
  }
  return repeats;
}

HeaderEvidence header_evidence(const Record& top, const std::vector<Record>& after,
                               const detail::MissingMarkers& is_missing_marker) {
  const Record* next = after.empty() ? nullptr : &after.front();
  for (std::size_t j = 0; j < top.fields.size(); ++j) {
    const std::string& text = top.fields[j].text;
    if (is_missing_marker(text) || is_number(text)) continue;
    if (next == nullptr || j >= next->fields.size() || is_number(next->fields[j].text)) {
      return HeaderEvidence::Names;
    }
  }
  if (text_header(top, after, is_missing_marker)) return HeaderEvidence::TextNames;
  const std::size_t run = column_number_run(top);
  const std::size_t width = top.width();
  if (run >= 3 && (run == width || (run + 1 == width && !is_number(top.fields[run].text)))) {
    return HeaderEvidence::ColumnNumbers;
  }
  return HeaderEvidence::None;
}

// What comes before the data: shape line, header, names, the row width.
struct Preamble {
  std::optional<Record> shape_line;
  bool has_header = false;
  std::int64_t header_line = 0;
  std::vector<std::string> names;  // one per column
  std::string width_source;        // "the header" or "line N", for messages
  Cursor data;                     // where the data records start
  std::vector<std::string> notes;
};

Preamble read_preamble(std::string_view body, const Dialect& dialect, const ReadOptions& options,
                       const std::string& path) {
  Cursor c{body.data(), body.data() + body.size(), 1};
  std::vector<Record> records;
  std::vector<Cursor> starts;  // starts[i]: cursor at record i; the last: after the last read
  while (records.size() < static_cast<std::size_t>(kSampleRecords) && skip_blank_lines(c)) {
    starts.push_back(c);
    records.push_back(read_record(c, dialect, path));
  }
  starts.push_back(c);
  if (records.empty())
    throw DataError(fmt::format("{}: no data: the file holds only blank lines", path));

  Preamble pre;
  std::size_t top = 0;
  if (records.size() >= 2 && looks_like_shape_line(records[0], records[1])) {
    pre.shape_line = records[0];
    top = 1;
  }
  const Record& first = records[top];
  const std::vector<Record> after(records.begin() + static_cast<std::ptrdiff_t>(top + 1),
                                  records.end());
  switch (options.header) {
    case HeaderMode::Yes: pre.has_header = true; break;
    case HeaderMode::No: break;
    case HeaderMode::Auto: {
      const HeaderEvidence evidence =
          header_evidence(first, after, detail::MissingMarkers(options.na_values));
      pre.has_header = evidence != HeaderEvidence::None;
      if (evidence == HeaderEvidence::ColumnNumbers) {
        pre.notes.push_back(
            fmt::format("line {} '{}' holds the column numbers and was read as the header (pass {} "
                        "if it is data)",
                        first.line, record_text(first, c.end), option_ref("no-header")));
      } else if (evidence == HeaderEvidence::TextNames) {
        pre.notes.push_back(
            fmt::format("line {} '{}' holds text that no later line repeats in its column and was "
                        "read as the header (pass {} if it is data)",
                        first.line, record_text(first, c.end), option_ref("no-header")));
      }
      break;
    }
  }
  const std::size_t width = first.width();
  for (std::size_t j = 0; j < width; ++j) {
    const std::string& text = first.fields[j].text;
    pre.names.push_back(pre.has_header && !text.empty()
                            ? text
                            : default_feature_name(static_cast<std::int64_t>(j)));
  }
  if (pre.has_header) {
    pre.header_line = first.line;
    pre.width_source = "the header";
    pre.data = starts[top + 1];
  } else {
    pre.width_source = fmt::format("line {}", first.line);
    pre.data = starts[top];
  }
  return pre;
}

// ------------------------------------------------------------ columns

// Which file column goes where.
struct Columns {
  std::vector<std::string> names;  // per file column
  std::vector<int> targets;        // file columns of the targets, in the order asked
  std::vector<int> role;           // per file column: feature index, or -1 - target position
  int features = 0;
  // Per feature: --numeric (a text cell is an error) and --categorical.
  std::vector<char> numeric_only;
  std::vector<char> categorical;
};

std::string list_names(const std::vector<std::string>& names) {
  std::string listed;
  for (std::size_t j = 0; j < names.size() && j < kMaxListed; ++j) {
    listed += (j ? ", '" : "'") + names[j] + "'";
  }
  if (names.size() > kMaxListed)
    listed += fmt::format(" (the first {} of {})", kMaxListed, names.size());
  return listed;
}

bool parse_index(const std::string& text, std::int64_t& index) {
  const bool negative = !text.empty() && text[0] == '-';
  std::int64_t magnitude = 0;
  if (!parse_positive(text.substr(negative ? 1 : 0), magnitude) &&
      text.substr(negative ? 1 : 0) != "0") {
    return false;
  }
  index = negative ? -magnitude : magnitude;
  return true;
}

// The 0-based column of index `spec` (negative from the end), or -1 when
// `spec` is not an index; throws when it is one out of range.
int column_at_index(const std::string& spec, std::int64_t columns, const std::string& path) {
  std::int64_t index = 0;
  if (!parse_index(spec, index)) return -1;
  if (index < -columns || index >= columns) {
    throw DataError(
        fmt::format("{}: target index {} is out of range: the file has {} columns (0..{}, or "
                    "-{}..-1 from the end)",
                    path, spec, columns, columns - 1, columns));
  }
  return static_cast<int>(index < 0 ? index + columns : index);
}

// A target given by name or by 0-based index (negative from the end);
// "name:X" and "index:N" say which when a name reads as an index.
int find_column(const std::string& spec, const Preamble& pre, const std::string& path) {
  const auto& names = pre.names;
  const auto m = static_cast<std::int64_t>(names.size());
  const std::string name_prefix = "name:";
  const std::string index_prefix = "index:";
  const bool named = std::find(names.begin(), names.end(), spec) != names.end();
  if (!named && spec.rfind(index_prefix, 0) == 0) {
    const std::string index = spec.substr(index_prefix.size());
    const int column = column_at_index(index, m, path);
    if (column < 0) {
      throw DataError(fmt::format("{}: '{}' after index: is not a column index", path, index));
    }
    return column;
  }
  const std::string name =
      !named && spec.rfind(name_prefix, 0) == 0 ? spec.substr(name_prefix.size()) : spec;
  std::vector<int> hits;
  for (std::size_t j = 0; j < names.size(); ++j) {
    if (names[j] == name) hits.push_back(static_cast<int>(j));
  }
  if (hits.size() > 1) {
    throw DataError(
        fmt::format("{}: the target '{}' names {} columns (0-based {}); give its index instead",
                    path, name, hits.size(), fmt::join(hits, ", ")));
  }
  if (hits.size() == 1) {
    std::int64_t index = 0;
    const bool also_index = name == spec && parse_index(spec, index) && index >= -m && index < m;
    const int by_index = also_index ? column_at_index(spec, m, path) : -1;
    if (by_index >= 0 && by_index != hits.front()) {
      throw DataError(
          fmt::format("{}: the target '{}' is both the name of column {} (0-based) and the index "
                      "of column '{}'; pass {} name:{} or {} index:{}",
                      path, spec, hits.front(), names[static_cast<std::size_t>(by_index)],
                      option_ref("target"), spec, option_ref("target"), spec));
    }
    return hits.front();
  }
  if (name == spec) {
    const int by_index = column_at_index(spec, m, path);
    if (by_index >= 0) return by_index;
  }
  if (!pre.has_header) {
    throw DataError(fmt::format(
        "{}: no column named '{}': the file has no header, so its {} columns are x0..x{}; give the "
        "target as a name of that form or as a 0-based index",
        path, name, m, m - 1));
  }
  throw DataError(
      fmt::format("{}: no column named '{}'; the columns are {}", path, name, list_names(names)));
}

Columns plan_columns(const Preamble& pre, const ReadOptions& options, const std::string& path) {
  Columns columns;
  columns.names = pre.names;
  const int m = static_cast<int>(pre.names.size());
  if (options.target.empty() && !options.no_target) {
    columns.targets.push_back(m - 1);
  } else {
    // Under --no-target none (read_dataset refuses --target beside it).
    for (const auto& spec : options.target) {
      const int column = find_column(spec, pre, path);
      if (std::find(columns.targets.begin(), columns.targets.end(), column) !=
          columns.targets.end()) {
        throw OptionError(
            fmt::format("{}: the target column '{}' is given twice", path, pre.names[column]));
      }
      columns.targets.push_back(column);
    }
  }
  columns.role.assign(static_cast<std::size_t>(m), 0);
  for (std::size_t t = 0; t < columns.targets.size(); ++t) {
    columns.role[static_cast<std::size_t>(columns.targets[t])] = -1 - static_cast<int>(t);
  }
  for (int& role : columns.role) {
    if (role >= 0) role = columns.features++;
  }
  columns.numeric_only.assign(static_cast<std::size_t>(columns.features), 0);
  columns.categorical.assign(static_cast<std::size_t>(columns.features), 0);
  const auto mark = [&](const std::vector<std::string>& specs, std::vector<char>& flags,
                        const std::string& flag) {
    for (const auto& spec : specs) {
      const int column = find_column(spec, pre, path);
      const int role = columns.role[static_cast<std::size_t>(column)];
      if (role < 0) {
        throw OptionError(
            fmt::format("{}: {} '{}' names the target column, not a feature", path, flag, spec));
      }
      flags[static_cast<std::size_t>(role)] = 1;
    }
  };
  mark(options.categorical, columns.categorical, option_ref("categorical"));
  mark(options.numeric, columns.numeric_only, option_ref("numeric"));
  for (int j = 0; j < columns.features; ++j) {
    if (columns.categorical[static_cast<std::size_t>(j)] &&
        columns.numeric_only[static_cast<std::size_t>(j)]) {
      throw OptionError(fmt::format("{}: a column is given to both {} and {}", path,
                                    option_ref("categorical"), option_ref("numeric")));
    }
  }
  return columns;
}

// ---------------------------------------------------------- data rows

// Target cells as read: numbers, and the text for a target of class names.
struct TargetCells {
  std::vector<double> values;          // rows x q, row-major; NaN where missing or text
  std::vector<std::string_view> text;  // rows x q, unquoted
  std::deque<std::string> unescaped;   // storage for cells read the quote-aware way
  bool numeric = true;                 // no cell held text
  std::int64_t text_line = 0;          // the first text cell, for messages
  int text_column = 0;
  std::string first_text;
};

class RowParser {
 public:
  // `text`: where the levels of text cells in feature columns go; null
  // refuses such cells (the row-block passes, which hold no levels).
  RowParser(const std::string& path, const Dialect& dialect, const Columns& columns,
            const Preamble& pre, const detail::MissingMarkers& markers, detail::TextColumns* text)
      : path_(path),
        dialect_(dialect),
        columns_(columns),
        pre_(pre),
        markers_(markers),
        text_(text),
        width_(static_cast<int>(columns.names.size())),
        features_(columns.features),
        outputs_(static_cast<int>(columns.targets.size())) {}

  // Parses every record from `c` on into `out` (capacity rows of features,
  // enough for all) and appends their target cells to `targets`; returns
  // the number of rows.
  std::int64_t run(Cursor c, float* out, std::int64_t capacity, TargetCells& targets) {
    const std::int64_t rows = run_some(c, out, capacity, targets);
    TOPKFS_ASSERT(!skip_blank_lines(c));
    return rows;
  }

  // The same for at most `capacity` records, leaving `c` after the last.
  std::int64_t run_some(Cursor& c, float* out, std::int64_t capacity, TargetCells& targets) {
    std::int64_t rows = 0;
    while (rows < capacity && skip_blank_lines(c)) {
      const Cursor row_start = c;
      float* row = out + rows * features_;
      const std::size_t target_base = targets.values.size();
      targets.values.resize(target_base + static_cast<std::size_t>(outputs_));
      targets.text.resize(targets.values.size());
      for (int j = 0; j < width_; ++j) {
        const int role = columns_.role[static_cast<std::size_t>(j)];
        if (role >= 0) {
          feature_cell(c, row[role], role, j);
        } else {
          target_cell(c, targets, target_base + static_cast<std::size_t>(-1 - role), j);
        }
        if (j + 1 < width_) {
          if (c.p == c.end || *c.p == '\n') ragged(row_start);
          if (!dialect_.whitespace) ++c.p;  // the delimiter, as the cell readers guarantee
        } else {
          end_row(c, row_start);
        }
      }
      ++rows;
    }
    return rows;
  }

 private:
  // Fast path: a plain number followed by the delimiter or the line end.
  bool try_number(Cursor& c, float& value) const {
    const char* p = dialect_.skip_blanks(c.p, c.end);
    if (const char* stop = parse_short_float(p, c.end, value)) return accept_end(c, stop);
    const auto result = std::from_chars(p, c.end, value);
    if (result.ec != std::errc()) return false;
    value = detail::plain(value);  // a NaN payload is a text cell's (text_columns.hpp)
    return accept_end(c, result.ptr);
  }

  bool try_number(Cursor& c, double& value, std::string_view& text) const {
    const char* p = dialect_.skip_blanks(c.p, c.end);
    const auto result = std::from_chars(p, c.end, value);
    if (result.ec != std::errc()) return false;
    text = std::string_view(p, static_cast<std::size_t>(result.ptr - p));
    return accept_end(c, result.ptr);
  }

  // The cell text from `start` to `stop` without the blanks around it.
  std::string_view trimmed(const char* start, const char* stop) const {
    start = dialect_.skip_blanks(start, stop);
    while (stop > start && dialect_.is_blank(stop[-1])) --stop;
    return {start, static_cast<std::size_t>(stop - start)};
  }

  // True (and c.p moved on) when the number that ends at `stop` is the whole cell.
  bool accept_end(Cursor& c, const char* stop) const {
    const char* q = dialect_.skip_blanks(stop, c.end);
    const bool ends =
        q == c.end || *q == '\n' || (dialect_.whitespace ? q != stop : *q == dialect_.delimiter);
    if (ends) c.p = q;
    return ends;
  }

  void feature_cell(Cursor& c, float& value, int feature, int column) const {
    const char* start = c.p;
    if (try_number(c, value)) {
      if (markers_.has_numbers() && markers_(trimmed(start, c.p)))
        value = std::numeric_limits<float>::quiet_NaN();
      return;
    }
    const std::int64_t line = c.line;
    Field field = read_field(c, dialect_, path_);
    double number = 0;
    if (parse_cell(field.text, number, markers_) == CellKind::Text) {
      if (text_ == nullptr || columns_.numeric_only[static_cast<std::size_t>(feature)]) {
        not_a_number(line, column, field.text, feature);
      }
      value = text_->add(feature, std::move(field.text), line, path_,
                         columns_.names[static_cast<std::size_t>(column)]);
      return;
    }
    if (std::isfinite(number) && std::fabs(number) > std::numeric_limits<float>::max()) {
      throw DataError(fmt::format(
          "{}: line {}, column {} ('{}'): {} is beyond float32's range (+-3.4e38), in which "
          "features are held; rescale the column",
          path_, line, column + 1, columns_.names[static_cast<std::size_t>(column)],
          shorten(field.text)));
    }
    value = to_float(number);
  }

  void target_cell(Cursor& c, TargetCells& targets, std::size_t slot, int column) const {
    if (try_number(c, targets.values[slot], targets.text[slot])) {
      if (markers_.has_numbers() && markers_(targets.text[slot])) {
        targets.values[slot] = std::numeric_limits<double>::quiet_NaN();
      }
      return;
    }
    const std::int64_t line = c.line;
    Field field = read_field(c, dialect_, path_);
    if (parse_cell(field.text, targets.values[slot], markers_) == CellKind::Text) {
      targets.values[slot] = std::numeric_limits<double>::quiet_NaN();
      if (targets.numeric) {
        targets.numeric = false;
        targets.text_line = line;
        targets.text_column = column;
        targets.first_text = field.text;
      }
    }
    targets.unescaped.push_back(std::move(field.text));
    targets.text[slot] = targets.unescaped.back();
  }

  // After the last field: the line end, or a trailing delimiter and the line end.
  void end_row(Cursor& c, const Cursor& row_start) const {
    if (c.p < c.end && *c.p != '\n') {
      const char* q = dialect_.whitespace ? c.p : dialect_.skip_blanks(c.p + 1, c.end);
      if (dialect_.whitespace || !(q == c.end || *q == '\n')) ragged(row_start);
      c.p = q;
    }
    if (c.p < c.end) {
      ++c.p;
      ++c.line;
    }
  }

  [[noreturn]] void ragged(const Cursor& row_start) const {
    Cursor c = row_start;
    const Record record = read_record(c, dialect_, path_);
    const std::size_t width = static_cast<std::size_t>(width_);
    const std::size_t count = record.fields.size() > width ? record.width() : record.fields.size();
    throw DataError(fmt::format("{}: line {}: {} fields, expected {} (as in {})", path_,
                                record.line, count, width_, pre_.width_source));
  }

  [[noreturn]] void not_a_number(std::int64_t line, int column, const std::string& text,
                                 int feature) const {
    const bool first_line = !pre_.has_header && line == pre_.data.line;
    const std::string why =
        columns_.numeric_only[static_cast<std::size_t>(feature)]
            ? fmt::format("{} says the column holds numbers", option_ref("numeric"))
            : "this reading of the file by row blocks takes numbers only; "
              "read it whole for categorical columns";
    throw DataError(fmt::format(
        "{}: line {}, column {} ('{}'): '{}' is not a number ({}{})", path_, line, column + 1,
        columns_.names[static_cast<std::size_t>(column)], shorten(text), why,
        first_line
            ? fmt::format("; if line {} holds column names, pass {}", line, option_ref("header"))
            : ""));
  }

  const std::string& path_;
  const Dialect& dialect_;
  const Columns& columns_;
  const Preamble& pre_;
  const detail::MissingMarkers& markers_;
  detail::TextColumns* text_;
  const int width_;
  const int features_;
  const int outputs_;
};

// Rows the data can hold at most: each ends with '\n' but the last, and a row
// of w fields needs w - 1 delimiters; so a corrupt file cannot make us
// allocate more than a few times its size.
std::int64_t row_capacity(const Cursor& data, int width) {
  const auto bytes = static_cast<std::int64_t>(data.end - data.p);
  const auto lines = static_cast<std::int64_t>(std::count(data.p, data.end, '\n')) + 1;
  return std::min(lines, bytes / std::max(width - 1, 1) + 1);
}

// Keeps the rows flagged in `keep` (in order), in the features and the targets.
void keep_rows(Dataset& data, TargetCells& targets, const std::vector<char>& keep, int outputs) {
  const auto q = static_cast<std::size_t>(outputs);
  Eigen::Index kept = 0;
  for (Eigen::Index i = 0; i < data.rows(); ++i) {
    const auto from = static_cast<std::size_t>(i);
    const auto to = static_cast<std::size_t>(kept);
    if (!keep[from]) continue;
    if (kept != i) {
      data.features.row(kept) = data.features.row(i);
      std::copy_n(targets.values.begin() + from * q, q, targets.values.begin() + to * q);
      std::copy_n(targets.text.begin() + from * q, q, targets.text.begin() + to * q);
    }
    ++kept;
  }
  data.features.conservativeResize(kept, data.cols());
  targets.values.resize(static_cast<std::size_t>(kept) * q);
  targets.text.resize(targets.values.size());
}

// A class label cannot be missing: refuse it (NanPolicy::Error) or drop the sample.
void handle_missing_labels(Dataset& data, TargetCells& targets, const std::string& name,
                           const ReadOptions& options, const std::string& path) {
  const detail::MissingMarkers is_missing_marker(options.na_values);
  std::vector<char> keep(targets.text.size(), 1);
  std::int64_t missing = 0;
  for (std::size_t i = 0; i < targets.text.size(); ++i) {
    const bool usable = !is_missing_marker(targets.text[i]) &&
                        !(targets.numeric && !std::isfinite(targets.values[i]));
    if (usable) continue;
    if (options.nan == NanPolicy::Error) {
      throw DataError(
          fmt::format("{}: sample {}: the class label '{}' is missing or not finite ('{}'); fill "
                      "it in or pass {} to drop such samples",
                      path, i + 1, name, targets.text[i], option_ref("nan", "drop")));
    }
    keep[i] = 0;
    ++missing;
  }
  if (missing == 0) return;
  const auto total = data.rows();
  keep_rows(data, targets, keep, 1);
  data.notes.push_back(fmt::format("dropped {} of {} samples whose class label '{}' is missing",
                                   missing, total, name));
}

// True when every target cell that is not missing is an integer literal.
bool integer_literals(const TargetCells& targets, const ReadOptions& options) {
  const detail::MissingMarkers is_missing_marker(options.na_values);
  detail::IntegerLabel label;
  return std::all_of(targets.text.begin(), targets.text.end(), [&](std::string_view cell) {
    return is_missing_marker(cell) || detail::parse_integer_label(cell, label);
  });
}

void set_target(Dataset& data, TargetCells& targets, const Columns& columns,
                const ReadOptions& options, const std::string& path) {
  const int outputs = static_cast<int>(columns.targets.size());
  if (outputs == 0) return;  // --no-target: the data has none (TargetKind::None)
  std::vector<std::string> names;
  for (int column : columns.targets)
    names.push_back(columns.names[static_cast<std::size_t>(column)]);
  // Integer labels beyond 2^53 are read from their text, where they stay
  // exact (integer_labels.hpp).
  const bool exact_labels = outputs == 1 && options.task != TaskHint::Regression &&
                            detail::has_inexact_integers(targets.values) &&
                            integer_literals(targets, options);
  if (targets.numeric && !exact_labels &&
      (options.task != TaskHint::Classification || outputs > 1)) {
    // NaN here is a missing real value: check_values deals with it.
    set_target_from_numbers(data, targets.values, outputs, names, options, path);
    return;
  }
  if (!targets.numeric && outputs > 1) {
    throw DataError(fmt::format(
        "{}: line {}, column {} ('{}'): '{}' is not a number; several target columns are read as "
        "multi-output regression and must all hold numbers",
        path, targets.text_line, targets.text_column + 1,
        columns.names[static_cast<std::size_t>(targets.text_column)], shorten(targets.first_text)));
  }
  handle_missing_labels(data, targets, names.front(), options, path);
  if (targets.numeric && !exact_labels) {
    set_target_from_numbers(data, targets.values, 1, names, options, path);
    return;
  }
  const std::vector<std::string> labels(targets.text.begin(), targets.text.end());
  set_target_from_text(data, labels, names.front(), options, path);
}

// The shape line is skipped only if its numbers fit the data read.
void check_shape_line(Dataset& data, const Preamble& pre, const Columns& columns,
                      const char* text_end, const std::string& path) {
  if (!pre.shape_line) return;
  const Record& shape = *pre.shape_line;
  std::int64_t rows = 0;
  std::int64_t second = 0;
  parse_positive(shape.fields[0].text, rows);
  parse_positive(shape.fields[1].text, second);
  const auto width = static_cast<std::int64_t>(columns.names.size());
  if (rows != data.rows() && second != columns.features && second != width) {
    throw DataError(fmt::format("{}: line {}: 2 fields, expected {} (as in {})", path, shape.line,
                                width, pre.width_source));
  }
  data.notes.push_back(
      fmt::format("line {} '{}' looks like a shape line (rows, features) and was skipped",
                  shape.line, record_text(shape, text_end)));
}

// What reading a CSV text decides before the data records: the dialect,
// the preamble and the columns.
struct CsvLayout {
  Dialect dialect;
  Preamble pre;
  Columns columns;
  detail::MissingMarkers markers;
};

// Lines ended by CR alone (classic Mac OS) read as one line: said so,
// rather than "no data rows".
void refuse_cr_line_ends(std::string_view body, const std::string& path) {
  const std::string_view head = body.substr(0, std::size_t{1} << 20);
  if (head.find('\n') == std::string_view::npos && head.find('\r') != std::string_view::npos &&
      head.find('\r') + 1 < head.size()) {
    throw DataError(fmt::format(
        "{}: the lines end with CR alone (old Mac OS line ends), so the file reads as one line; "
        "convert the line ends to LF or CRLF (e.g. tr '\\r' '\\n' < {} > fixed.csv)",
        path, path));
  }
}

// Why the lines split into one field each, when something in the first
// lines tells: a comment line, or lines that use different delimiters.
std::string one_field_reason(std::string_view body) {
  std::size_t at = 0;
  std::vector<std::pair<char, int>> seen;  // delimiter, its first line
  for (int line = 1; line <= kSampleRecords && at < body.size(); ++line) {
    const std::size_t end = std::min(body.find('\n', at), body.size());
    const std::string_view text = body.substr(at, end - at);
    at = end + 1;
    if (!text.empty() && text.front() == '#') {
      return fmt::format("; line {} begins with '#', and comment lines are not read: remove them",
                         line);
    }
    for (const char candidate : {',', '\t', ';', '|'}) {
      const bool listed = std::any_of(seen.begin(), seen.end(),
                                      [&](const auto& entry) { return entry.first == candidate; });
      if (!listed && text.find(candidate) != std::string_view::npos) {
        seen.emplace_back(candidate, line);
      }
    }
  }
  if (seen.size() < 2) return "";
  return fmt::format("; the first lines mix delimiters ({} on line {}, {} on line {}): use one",
                     delimiter_name(seen[0].first), seen[0].second, delimiter_name(seen[1].first),
                     seen[1].second);
}

CsvLayout plan_csv(std::string_view& body, const ReadOptions& options, const std::string& path) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);  // UTF-8 byte order mark
  refuse_cr_line_ends(body, path);

  if (options.delimiter &&
      (*options.delimiter == '"' || *options.delimiter == '\n' || *options.delimiter == '\r')) {
    throw OptionError(
        fmt::format("{} cannot be a double quote or a line end", option_ref("delimiter")));
  }
  const Dialect dialect =
      options.delimiter ? make_dialect(*options.delimiter) : detect_dialect(body, path);
  const Preamble pre = read_preamble(body, dialect, options, path);
  if (pre.names.size() == 1 && !options.no_target) {
    const std::string reason = one_field_reason(body);
    throw DataError(fmt::format(
        "{}: the lines hold one field each when split at {} ({}), so there is no feature "
        "column besides the target{}",
        path, delimiter_name(dialect.delimiter), options.delimiter ? "as given" : "as detected",
        reason.empty() ? fmt::format("; if the file uses another delimiter, give it with {}",
                                     option_ref("delimiter"))
                       : reason));
  }
  return {dialect, pre, plan_columns(pre, options, path),
          detail::MissingMarkers(options.na_values)};
}

// The feature names of `columns` in file order, and the target from
// `targets`, after the data records: what read_csv and the row blocks share.
void finish_csv(Dataset& data, TargetCells& targets, const CsvLayout& layout, const char* text_end,
                const ReadOptions& options, const std::string& path) {
  const Columns& columns = layout.columns;
  for (std::size_t j = 0; j < columns.names.size(); ++j) {
    if (columns.role[j] >= 0) data.feature_names.push_back(columns.names[j]);
  }
  data.notes = layout.pre.notes;
  check_shape_line(data, layout.pre, columns, text_end, path);
  set_target(data, targets, columns, options, path);
}

[[noreturn]] void no_rows(const Preamble& pre, const std::string& path) {
  throw DataError(pre.has_header ? fmt::format("{}: no data rows after the header (line {})", path,
                                               pre.header_line)
                                 : fmt::format("{}: no data rows", path));
}

// The features of a CSV file mapped into memory, parsed again on each pass
// by row blocks (RowSource), never held whole: what `topkfs convert` reads
// a plain CSV file with. A pass in row order parses the text once; rows out
// of order cost a parse from the first record each.
class CsvRowBlocks final : public RowPasses {
 public:
  // `levels`: the first pass's plan for the categorical columns (null when
  // there are none). A pass parses from the first record, so its text
  // codes are the first pass's, and the plan maps them to level indices.
  CsvRowBlocks(std::shared_ptr<const detail::MappedFile> file, CsvLayout layout, std::string path,
               std::int64_t rows, std::shared_ptr<const detail::LevelPlan> levels)
      : RowPasses(rows, layout.columns.features),
        file_(std::move(file)),
        layout_(std::move(layout)),
        path_(std::move(path)),
        levels_(std::move(levels)) {}

  void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                      const RowBlockVisitor& visit) const override {
    const std::int64_t step = std::max<std::int64_t>(1, block_rows);
    detail::TextColumns text(column_count());
    RowParser parser(path_, layout_.dialect, layout_.columns, layout_.pre, layout_.markers,
                     levels_ ? &text : nullptr);
    std::vector<float> buffer(static_cast<std::size_t>(step * column_count()));
    Cursor c = layout_.pre.data;
    for (std::int64_t at = 0; at < last;) {
      TargetCells targets;  // read again on each pass, and not kept
      const std::int64_t n = parser.run_some(c, buffer.data(), std::min(step, last - at), targets);
      TOPKFS_ASSERT(n > 0);
      if (levels_) levels_->apply(buffer.data(), n);
      // The part of the block from `first` on.
      const std::int64_t skip = std::max<std::int64_t>(0, first - at);
      if (skip < n) visit(at + skip, n - skip, buffer.data() + skip * column_count());
      at += n;
    }
  }

 private:
  std::shared_ptr<const detail::MappedFile> file_;  // keeps the text of layout_ alive
  CsvLayout layout_;
  std::string path_;
  std::shared_ptr<const detail::LevelPlan> levels_;
};

}  // namespace

Dataset read_csv_by_row_blocks(const std::string& path, const ReadOptions& options,
                               std::shared_ptr<const RowSource>& rows) {
  auto file = std::make_shared<const detail::MappedFile>(path);
  std::string_view body(file->data(), static_cast<std::size_t>(file->size()));
  const CsvLayout layout = plan_csv(body, options, path);
  Dataset data;
  data.source = path;
  data.format = layout.dialect.delimiter == '\t' ? "tsv" : "csv";
  // The first pass: every record parsed, block by block, for the row count,
  // the target, the levels of text columns and the checks; the features are
  // checked and let go (each column's distinct numbers are kept up to
  // --max-levels, for the columns that turn out categorical).
  const std::int64_t m = layout.columns.features;
  detail::TextColumns text(m);
  detail::NumberSets numbers(m, options.max_levels);
  RowParser parser(path, layout.dialect, layout.columns, layout.pre, layout.markers, &text);
  const std::int64_t block =
      std::max<std::int64_t>(1, (std::int64_t{1} << 20) / std::max<std::int64_t>(1, m));
  std::vector<float> buffer(static_cast<std::size_t>(block * m));
  TargetCells targets;
  Cursor c = layout.pre.data;
  std::int64_t n = 0;
  // A missing cell (NaN) is imputed when the rows are encoded (convert), so
  // under Impute only an infinite value is refused here; a text cell is
  // never a bad value.
  const bool impute = options.nan == NanPolicy::Impute;
  std::vector<std::pair<std::int64_t, std::int64_t>> non_finite;  // first only: (row, column)
  while (const std::int64_t got = parser.run_some(c, buffer.data(), block, targets)) {
    numbers.add_block(buffer.data(), got);
    for (std::int64_t at = 0; non_finite.empty() && at < got * m; ++at) {
      const float v = buffer[static_cast<std::size_t>(at)];
      if (v != v && detail::text_code(v) < 0) data.missing_cells_seen = true;
      const bool bad = impute ? std::isinf(v) : !std::isfinite(v) && detail::text_code(v) < 0;
      if (bad) non_finite.push_back({n + at / m, at % m});
    }
    n += got;
  }
  if (n == 0) no_rows(layout.pre, path);
  data.features.resize(n, 0);
  finish_csv(data, targets, layout, body.data() + body.size(), options, path);
  auto levels = std::make_shared<const detail::LevelPlan>(
      text, numbers, detail::ColumnKinds{layout.columns.categorical}, options.max_levels,
      data.feature_names, path, data.notes);
  data.column_levels = levels->column_levels();
  if (!levels->any()) levels.reset();
  if (!non_finite.empty() &&
      (options.nan == NanPolicy::Error || options.nan == NanPolicy::Impute)) {
    const auto [row, column] = non_finite.front();
    std::vector<float> value(static_cast<std::size_t>(m));
    // Parse the row again for its value (NaN or infinite) for the message.
    rows = std::make_shared<CsvRowBlocks>(file, layout, path, n, levels);
    rows->copy_rows(&row, 1, value.data());
    refuse_feature_value(data, row, column, value[static_cast<std::size_t>(column)], path);
  }
  // Rows dropped while the target was read (a missing class label under
  // NanPolicy::Keep) would leave the features out of step: no row blocks.
  if (data.rows() == n) {
    rows = std::make_shared<CsvRowBlocks>(std::move(file), layout, path, n, std::move(levels));
  }
  return data;
}

Dataset read_csv(const std::string& path, const ReadOptions& options) {
  const std::string text = read_text_maybe_gzip(path);
  std::string_view body(text);
  const CsvLayout layout = plan_csv(body, options, path);
  const Dialect& dialect = layout.dialect;
  const Preamble& pre = layout.pre;
  const Columns& columns = layout.columns;

  Dataset data;
  data.source = path;
  data.format = dialect.delimiter == '\t' ? "tsv" : "csv";
  const std::int64_t capacity = row_capacity(pre.data, static_cast<int>(columns.names.size()));
  data.features.resize(capacity, columns.features);
  TargetCells targets;
  detail::TextColumns text_cells(columns.features);
  RowParser parser(path, dialect, columns, pre, layout.markers, &text_cells);
  const std::int64_t rows = parser.run(pre.data, data.features.data(), capacity, targets);
  if (rows == 0) no_rows(pre, path);
  // Row-major with the column count unchanged: a realloc, not a copy.
  data.features.conservativeResize(rows, columns.features);
  finish_csv(data, targets, layout, body.data() + body.size(), options, path);
  // After the target: a row dropped for its missing label is gone by now.
  detail::finish_text_columns(data, text_cells, {columns.categorical}, options.max_levels, path);
  return data;
}

}  // namespace topkfs
