#pragma once
// Which formats each reader option is for. An option given for a format it
// does not apply to changed nothing, silently (`--x-var` for a CSV read the
// CSV's own columns): the command and the Python package refuse it, each in
// its own spelling of the option.
#include <optional>
#include <string>

#include "topkfs/io/read_options.hpp"

namespace topkfs {

struct MisappliedOption {
  std::string option;    // the command's flag without its dashes: "x-var", "no-header"
  std::string for_what;  // the formats it is for: "MATLAB .mat and NPZ files"
  Format format;         // the format the data is read as

  // "--x-var is for MATLAB .mat and NPZ files; train.csv is read as csv",
  // with the option as the caller spells it ("--x-var", "x_var").
  std::string message(const std::string& spelled_option, const std::string& path) const;
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
