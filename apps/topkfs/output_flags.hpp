#pragma once
// The "Output" option group of `select` and `evaluate`: the JSON file
// (--output), the picture of the selected pixels (--picture), JSON on stdout
// (--json) and --quiet, with each command's own outputs among them.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

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

// Throws OptionError when --picture was given for data without an image
// shape; called once the data is read, before any fitting.
void check_picture_data(const OutputFlags& flags, const ReaderFlags& data_flags,
                        const Dataset& data);

}  // namespace topkfs::cli
