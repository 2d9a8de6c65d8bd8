#include "topkfs/core/option_ref.hpp"

namespace topkfs {
namespace {

// Characters of Unicode's private use area, which no message, path or
// option value holds and which survive the errors' printable_text (a control
// character would be escaped there): a reference is kStart name [kValue
// value] kEnd.
const std::string kStart = "\xEE\x80\x80";  // U+E000
const std::string kValue = "\xEE\x80\x81";  // U+E001
const std::string kEnd = "\xEE\x80\x82";    // U+E002

// `text` without any marker: one left without its partner (a message cut
// short) is dropped rather than shown.
std::string without_markers(std::string text) {
  for (const std::string* marker : {&kStart, &kValue, &kEnd}) {
    for (std::size_t at = text.find(*marker); at != std::string::npos;
         at = text.find(*marker, at)) {
      text.erase(at, marker->size());
    }
  }
  return text;
}

}  // namespace

std::string option_ref(const std::string& name) { return kStart + name + kEnd; }

std::string option_ref(const std::string& name, const std::string& value) {
  return kStart + name + kValue + value + kEnd;
}

std::string render_option_refs(const std::string& text, const OptionRefSpelling& spelling) {
  if (!has_option_ref(text)) return text;
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = text.find(kStart, at);
    const std::size_t end = start == std::string::npos ? start : text.find(kEnd, start);
    if (end == std::string::npos) {
      out.append(text, at, std::string::npos);
      break;
    }
    out.append(text, at, start - at);
    const std::string inside = text.substr(start + kStart.size(), end - start - kStart.size());
    const std::size_t split = inside.find(kValue);
    out += split == std::string::npos
               ? spelling(inside, std::string(), false)
               : spelling(inside.substr(0, split), inside.substr(split + kValue.size()), true);
    at = end + kEnd.size();
  }
  return without_markers(out);
}

bool has_option_ref(const std::string& text) {
  return text.find(kStart) != std::string::npos || text.find(kValue) != std::string::npos ||
         text.find(kEnd) != std::string::npos;
}

std::string command_line_spelling(const std::string& name, const std::string& value,
                                  bool has_value) {
  return has_value ? "--" + name + " " + value : "--" + name;
}

}  // namespace topkfs
