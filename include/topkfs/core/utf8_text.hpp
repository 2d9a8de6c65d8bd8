#pragma once
// Text that reaches a user, a JSON file or Python is UTF-8. Names and labels
// read from files in another encoding are read as Latin-1 (every byte is a
// Latin-1 character, so this never fails and never merges two names), and
// messages show control bytes and bytes that are not UTF-8 as \xNN escapes,
// so that a NUL does not cut a message and binary data is not echoed to a
// terminal (docs/bad-input.md, "Text encodings").
#include <string>
#include <string_view>

namespace topkfs {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or
// code points above U+10FFFF).
bool is_utf8(std::string_view text);

// Whether every byte of `text` is below 0x80 (the same text in ASCII,
// Latin-1 and UTF-8).
bool is_ascii(std::string_view text);

// Each byte of `text` as the Latin-1 character of that code (U+0000..U+00FF),
// in UTF-8.
std::string latin1_to_utf8(std::string_view text);

// `text` with its UTF-8 characters kept and every other byte, and every
// control character but newline and tab, written as \xNN.
std::string printable_text(std::string_view text);

}  // namespace topkfs
