#pragma once
// How a library message names an option. The library does not know whether
// its reader typed `--w-step` on the command line or `w_step=` in Python, so
// a message names the option by a marked reference,
//   fmt::format("{} takes adam or shared", option_ref("w-step"))
//   fmt::format("use {}", option_ref("screen", "off"))
// with the option's name as the option tables spell it (the command's flag
// without its dashes). Each face renders the references in its own spelling
// where messages reach its user (render_option_refs): the command at its
// error report, its printed notes and warnings and the JSON it writes
// (`--w-step`, `--screen off`); the Python package at its exception
// translator, its warnings and every result it converts (`w_step`,
// `screen='off'`). No marker reaches a user: each face's tests check it.
#include <fmt/format.h>

#include <functional>
#include <string>
#include <type_traits>

namespace topkfs {

// A reference to option `name` ("w-step"), optionally with the value the
// message suggests or quotes ("off").
std::string option_ref(const std::string& name);
std::string option_ref(const std::string& name, const std::string& value);
// A value of another type, as fmt writes it ("--k 12", "--lr 0.0001").
template <typename T, typename = std::enable_if_t<!std::is_convertible_v<T, std::string>>>
std::string option_ref(const std::string& name, const T& value) {
  return option_ref(name, fmt::format("{}", value));
}

// How a face spells a reference: the option's name, and its value when the
// reference carries one (has_value).
using OptionRefSpelling =
    std::function<std::string(const std::string& name, const std::string& value, bool has_value)>;

// `text` with every reference replaced by its spelling; other text as it is.
std::string render_option_refs(const std::string& text, const OptionRefSpelling& spelling);

// True when `text` still holds a reference (or a stray marker): what the
// faces' tests look for in everything they show.
bool has_option_ref(const std::string& text);

// The command line's spelling: "--w-step", "--screen off".
std::string command_line_spelling(const std::string& name, const std::string& value,
                                  bool has_value);

}  // namespace topkfs
