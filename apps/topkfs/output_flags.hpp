#pragma once
// The "Output" option group of `select` and `evaluate`: the JSON file
// (--output), the picture of the selected pixels (--picture), JSON on stdout
// (--json) and --quiet, with each command's own outputs among them.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "reader_flags.hpp"
#include "topkfs/data/dataset.hpp"

namespace topkfs::cli {

struct OutputFlags {
  std::string output;
  std::string picture;
  bool json = false;
  bool quiet = false;
};

// The help of the shared flags in the command's words (what is written).
struct OutputHelp {
  std::string output;
  std::string picture;
  std::string json;
};

// Adds the group "Output" to `command`: --output,-o, then the command's own
// outputs (`add_own`), then --picture, --json and --quiet,-q.
void add_output_flags(CLI::App& command, OutputFlags& flags, const OutputHelp& help,
                      const std::function<void(CLI::Option_group& group)>& add_own);

// A file named on the command line, with the flag that named it.
struct NamedPath {
  std::string flag;  // "--output", "DATA"
  std::string path;
};

// The input files of the reader flags: DATA, --y-file and --labels.
std::vector<NamedPath> input_paths(const ReaderFlags& flags);

// Throws OptionError, before anything is read or written, when two outputs
// name the same file (one would silently replace the other) or an output
// names an input (writing it would destroy the data), and FileError when an
// output's folder does not exist. Unset paths are skipped; links and
// relative paths are resolved.
void check_output_paths(const std::vector<NamedPath>& outputs,
                        const std::vector<NamedPath>& inputs);

// Throws OptionError when --picture was given for data without an image
// shape; called once the data is read, before any fitting.
void check_picture_data(const OutputFlags& flags, const ReaderFlags& data_flags,
                        const Dataset& data);

}  // namespace topkfs::cli
