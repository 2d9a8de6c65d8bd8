#pragma once
// The reader options as the command and the Python package give them, parsed
// and checked here once, so that both take the same values and refuse the
// same ones in the same words; and which formats each option is for. An
// option given for a format it does not apply to changed nothing, silently
// (`--x-var` for a CSV read the CSV's own columns): it is refused. A message
// names an option by reference (option_ref), which each face spells its way
// ("--x-var" on the command line, "x_var" in Python).
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "topkfs/io/read_options.hpp"

namespace topkfs {

// How a reader option's value is given.
//  Text: "csv", "tab", "y.npy".
//  Texts: a list of texts (the columns of target, categorical, numeric; the
//    markers of na-values); one text is a list of one.
//  Switch: on or off (no-target, in-memory; header: on reads the first line
//    as names, off as data, absent detects).
//  Count: a whole number from 1 to 2^31 - 1, as text, so that a value of the
//    wrong kind is refused here with the others ("abc", "0", "1e99").
enum class ReaderValueKind { Text, Texts, Switch, Count };

struct ReaderOptionInfo {
  const char* name;
  ReaderValueKind kind;
};

// Every option parse_read_options takes, in the order the options are listed.
const std::vector<ReaderOptionInfo>& reader_option_infos();

// A value as a caller gives it; implicit, so that a list of options reads
// {"nan", "drop"}, {"no-target", true} (the constructor from const char*
// keeps a literal text from converting to a switch).
struct ReaderValue {
  ReaderValue(std::string text) : value(std::move(text)) {}
  ReaderValue(const char* text) : value(std::string(text)) {}
  ReaderValue(std::vector<std::string> texts) : value(std::move(texts)) {}
  ReaderValue(bool on) : value(on) {}
  std::variant<std::string, std::vector<std::string>, bool> value;
};

// What the data is read for. Inspect (describing or loading the data as it
// is) takes nan "keep"; Select (selecting, evaluating, converting,
// transforming) refuses it: the methods cannot take missing values left in.
enum class ReadPurpose { Inspect, Select };

// The ReadOptions that `given` (name -> value, each name one of
// reader_option_infos(); an option not given keeps its default) asks for
// reading `path`. Throws OptionError naming the option (option_ref) for a bad
// value, for nan "keep" under ReadPurpose::Select, for an option that
// does not apply to the format `path` is read as (misapplied_option), and
// for a target named beside no-target. A name it does not know or a value of
// the wrong kind is the caller's mistake: std::invalid_argument.
ReadOptions parse_read_options(const std::string& path,
                               const std::vector<std::pair<std::string, ReaderValue>>& given,
                               ReadPurpose purpose);

struct MisappliedOption {
  std::string option;    // the command's flag without its dashes: "x-var", "no-header"
  std::string for_what;  // the formats it is for: "MATLAB .mat and NPZ files"
  Format format;         // the format the data is read as

  // "--x-var is for MATLAB .mat and NPZ files; train.csv is read as csv",
  // naming the option by `option_reference` (option_ref), which each face
  // spells its way ("--x-var", "x_var").
  std::string message(const std::string& option_reference, const std::string& path) const;
};

// The first option of `options` set away from its default that does not
// apply to the format `path` is read as (options.format, or the one
// read_dataset detects); none when every set option applies. An option left
// at its default cannot be told from an absent one, and changes nothing.
std::optional<MisappliedOption> misapplied_option(const std::string& path,
                                                  const ReadOptions& options);

// With options.no_target, an option that names the target anyway ("target",
// "y-var", "y-path", "labels", "y-file": the flag without its dashes); none
// otherwise. read_dataset and the other entry points refuse such options
// (check_target_options).
std::optional<std::string> option_naming_the_target(const ReadOptions& options);

// Throws OptionError ("--y-var and --no-target exclude each other: give one
// of them") when option_naming_the_target finds one, and when no_target is
// asked of `format` LIBSVM, whose lines start with their labels.
void check_target_options(const ReadOptions& options, Format format);

}  // namespace topkfs
