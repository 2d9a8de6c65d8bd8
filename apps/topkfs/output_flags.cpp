#include "output_flags.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>

#include "topkfs/core/error.hpp"
#include "topkfs/io/atomic_file.hpp"

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

namespace {

// Same file: the same inode when both exist (hard links, symbolic links,
// "./x" and "x"), else the same resolved path.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::error_code error;
  const auto resolved_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a), error);
  const auto resolved_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b), error);
  return !error && resolved_a == resolved_b;
}

// A path whose folder is missing fails when the output is written, after
// the work: say so before it.
void check_folder_exists(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!folder.empty() && !std::filesystem::is_directory(folder, error)) {
    throw FileError(
        fmt::format("{}: cannot write: {} is not a folder{}", path, folder.string(),
                    std::filesystem::exists(folder, error) ? "" : " (it does not exist)"));
  }
}

}  // namespace

std::vector<NamedPath> input_paths(const ReaderFlags& flags) {
  return {{"DATA", flags.path},
          {"--y-file", flags.y_file},
          {"--labels", flags.labels},
          {"--groups", flags.groups},
          {"--weight-file", flags.weight_file},
          {"--class-weight", flags.class_weight == "balanced" ? "" : flags.class_weight}};
}

void check_output_paths(const std::vector<NamedPath>& outputs,
                        const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].path.empty()) continue;
    // Unix tools read "-" as stdout; written as a path it is a file named "-".
    if (outputs[i].path == "-") {
      throw OptionError(fmt::format(
          "{} -: outputs are written to files, not to standard output; name a file (select and "
          "evaluate print their result's JSON on stdout with --json)",
          outputs[i].flag));
    }
    check_folder_exists(outputs[i].path);
    check_output_writable(outputs[i].path);
    for (const auto& input : inputs) {
      if (!input.path.empty() && same_file(outputs[i].path, input.path)) {
        throw OptionError(fmt::format(
            "{} {} is the input file of {}: writing it would destroy the data; choose another "
            "path",
            outputs[i].flag, outputs[i].path, input.flag));
      }
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[j].path.empty() && same_file(outputs[i].path, outputs[j].path)) {
        throw OptionError(fmt::format("{} and {} both name {}: give each output its own file",
                                      outputs[j].flag, outputs[i].flag, outputs[i].path));
      }
    }
  }
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
