#include "output_flags.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"

namespace topkfs::cli {

void add_output_flags(CLI::App& command, OutputFlags& flags, const OutputHelp& help,
                      const std::function<void(CLI::Option_group& group)>& add_own) {
  auto* group = command.add_option_group("Output");
  group->add_option("--output,-o", flags.output, help.output);
  add_own(*group);
  group->add_option("--picture", flags.picture, help.picture);
  group->add_flag("--json", flags.json, help.json);
  group->add_flag("--quiet,-q", flags.quiet, "No progress or notes on stderr");
}

void check_picture_data(const OutputFlags& flags, const ReaderFlags& data_flags,
                        const Dataset& data) {
  if (!flags.picture.empty() && !data.image_shape) {
    throw OptionError(
        fmt::format("--picture needs image data: {} carries no image shape; give --image-shape HxW",
                    data_flags.path));
  }
}

}  // namespace topkfs::cli
