#include "topkfs/io/read_option_scope.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs {
namespace {

// Where --no-target applies: the option table's and read_dataset's words.
constexpr const char* kNoTargetFormats =
    "every format but LIBSVM (whose lines start with their label)";

}  // namespace

std::string MisappliedOption::message(const std::string& spelled_option,
                                      const std::string& path) const {
  return fmt::format("{} is for {}; {} is read as {}", spelled_option, for_what, path,
                     to_string(format));
}

std::optional<MisappliedOption> misapplied_option(const std::string& path,
                                                  const ReadOptions& options) {
  const Format format = options.format == Format::Auto ? detect_format(path) : options.format;
  struct Scope {
    const char* option;
    bool set;
    std::vector<Format> formats;
    const char* for_what;
  };
  const ReadOptions defaults;
  const Scope scopes[] = {
      {"target", !options.target.empty(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"no-target",
       options.no_target,
       {Format::Csv, Format::Tsv, Format::Idx, Format::Mat, Format::Hdf5, Format::Npy, Format::Npz},
       kNoTargetFormats},
      {options.header == HeaderMode::No ? "no-header" : "header",
       options.header != defaults.header,
       {Format::Csv, Format::Tsv},
       "CSV and TSV files"},
      {"delimiter", options.delimiter.has_value(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"categorical",
       !options.categorical.empty(),
       {Format::Csv, Format::Tsv},
       "CSV and TSV files"},
      {"numeric", !options.numeric.empty(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"max-levels",
       options.max_levels != defaults.max_levels,
       {Format::Csv, Format::Tsv},
       "CSV and TSV files"},
      {"na-values", !options.na_values.empty(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"x-var",
       options.x_var != defaults.x_var,
       {Format::Mat, Format::Npz},
       "MATLAB .mat and NPZ files"},
      {"y-var",
       options.y_var != defaults.y_var,
       {Format::Mat, Format::Npz},
       "MATLAB .mat and NPZ files"},
      {"x-path", !options.x_path.empty(), {Format::Hdf5}, "HDF5 files"},
      {"y-path", !options.y_path.empty(), {Format::Hdf5}, "HDF5 files"},
      {"labels", !options.labels_path.empty(), {Format::Idx}, "IDX images"},
      {"y-file", !options.y_file.empty(), {Format::Npy}, ".npy files"},
      {"in-memory", options.map != defaults.map, {Format::Npy, Format::Npz}, ".npy and NPZ files"},
  };
  for (const auto& scope : scopes) {
    if (scope.set &&
        std::find(scope.formats.begin(), scope.formats.end(), format) == scope.formats.end()) {
      return MisappliedOption{scope.option, scope.for_what, format};
    }
  }
  return std::nullopt;
}

std::optional<std::string> option_naming_the_target(const ReadOptions& options) {
  if (!options.no_target) return std::nullopt;
  const ReadOptions defaults;
  if (!options.target.empty()) return "target";
  if (options.y_var != defaults.y_var) return "y-var";
  if (!options.y_path.empty()) return "y-path";
  if (!options.labels_path.empty()) return "labels";
  if (!options.y_file.empty()) return "y-file";
  return std::nullopt;
}

void check_target_options(const ReadOptions& options, Format format) {
  if (const auto option = option_naming_the_target(options)) {
    throw OptionError(
        fmt::format("--{} and --no-target exclude each other: give one of them", *option));
  }
  if (options.no_target && format == Format::Libsvm) {
    throw OptionError(fmt::format("--no-target is for {}", kNoTargetFormats));
  }
  // One array as features and target would make the target a feature.
  const auto same_array = [](const std::string& x, const std::string& y) {
    const auto bare = [](const std::string& name) {
      return name.empty() || name.front() != '/' ? "/" + name : name;
    };
    return !x.empty() && !y.empty() && bare(x) == bare(y);
  };
  if (format == Format::Hdf5 && same_array(options.x_path, options.y_path)) {
    throw OptionError(fmt::format(
        "--x-path and --y-path both name {}: the target must be another dataset than the "
        "features",
        options.x_path));
  }
  if ((format == Format::Mat || format == Format::Npz) && options.x_var == options.y_var) {
    throw OptionError(fmt::format(
        "--x-var and --y-var both name '{}': the target must be another variable than the "
        "features",
        options.x_var));
  }
}

}  // namespace topkfs
