#include "reader_flags.hpp"

#include "comma_lists.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/feature_groups.hpp"
#include "topkfs/data/image_padding.hpp"
#include "topkfs/data/sample_weights.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/read_option_scope.hpp"

namespace topkfs::cli {

ReadOptions ReaderFlags::to_options(ReadPurpose purpose) const {
  if (no_header && header) throw OptionError("--header and --no-header contradict each other");
  // Every flag with its value (a default changes nothing); those that have
  // no default to give only when given.
  std::vector<std::pair<std::string, ReaderValue>> given = {
      {"format", format}, {"no-target", no_target}, {"nan", nan},
      {"task", task},     {"x-var", x_var},         {"y-var", y_var},
      {"x-path", x_path}, {"y-path", y_path},       {"labels", labels},
      {"y-file", y_file}, {"in-memory", in_memory}, {"max-levels", std::to_string(max_levels)}};
  if (header || no_header) given.emplace_back("header", header);
  if (!delimiter.empty()) given.emplace_back("delimiter", delimiter);
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
      {"target", &target},
      {"categorical", &categorical},
      {"numeric", &numeric},
      {"na-values", &na_values}};
  for (const auto& [name, values] : lists) {
    if (!values->empty()) given.emplace_back(name, comma_list(std::string("--") + name, *values));
  }
  return parse_read_options(path, given, purpose);
}

void add_reader_flags(CLI::App& command, ReaderFlags& flags) {
  command
      .add_option("DATA", flags.path,
                  "Data file (CSV, TSV, LIBSVM, IDX[.gz], .mat, .h5, .npy, .npz) or a folder "
                  "holding the four MNIST-style IDX files")
      ->required();
  auto* group = command.add_option_group("Data", "How DATA is read");
  group
      ->add_option(
          "--format", flags.format,
          "auto (by extension and magic bytes), csv, tsv, libsvm, idx, mat, hdf5, npy, npz")
      ->capture_default_str();
  group->add_option("--target", flags.target,
                    "CSV/TSV: target column(s) by name or 0-based index (negative counts from the "
                    "end; name:N or index:N when a name is a number); default: the last column; "
                    "several (a,b) for multi-output regression");
  group->add_flag("--no-target", flags.no_target,
                  "The data has no target (new data for `transform`): every CSV/TSV column is a "
                  "feature; .mat, HDF5, NPZ: X alone; IDX: the images without labels");
  group->add_flag("--no-header", flags.no_header, "CSV/TSV: the first line is data, not names");
  group->add_flag("--header", flags.header, "CSV/TSV: the first line holds the column names");
  group->add_option(
      "--delimiter", flags.delimiter,
      "CSV/TSV: field separator (one character, 'tab' or 'space'); default: detected");
  group
      ->add_option("--nan", flags.nan,
                   "Missing feature cells (empty, NA, ?, NaN, ...): 'impute' (the training rows' "
                   "median plus a missing-indicator column; a 'missing' level for a categorical "
                   "column; a sample with a missing target is dropped), 'error' (refuse, naming "
                   "the place) or 'drop' (drop those samples)")
      ->capture_default_str();
  group->add_option("--categorical", flags.categorical,
                    "CSV/TSV: columns (names or 0-based indices, a,b) read as categorical though "
                    "they hold numbers (integer codes); a column holding text is categorical "
                    "anyway");
  group->add_option("--numeric", flags.numeric,
                    "CSV/TSV: columns that must hold numbers: a text cell there is an error "
                    "naming it");
  group
      ->add_option("--max-levels", flags.max_levels,
                   "CSV/TSV: a categorical column with more levels than this is refused")
      ->capture_default_str();
  group->add_option("--na-values", flags.na_values,
                    "CSV/TSV: more cell texts that mean 'missing' (a,b), besides empty, NA, N/A, "
                    "null, NaN and ?");
  group
      ->add_option("--task", flags.task,
                   "How to read the target: auto (text or <= 30 distinct integers: classes; "
                   "else real values), classification, regression")
      ->capture_default_str();
  group
      ->add_option("--x-var", flags.x_var,
                   "MATLAB .mat / NPZ: variable (array) holding the features")
      ->capture_default_str();
  group
      ->add_option("--y-var", flags.y_var, "MATLAB .mat / NPZ: variable (array) holding the target")
      ->capture_default_str();
  group->add_option("--x-path", flags.x_path,
                    "HDF5: dataset holding the features (default: the USPS layout train/data + "
                    "test/data, or X at the root)");
  group->add_option("--y-path", flags.y_path, "HDF5: dataset holding the target");
  group->add_option("--labels", flags.labels, "IDX: labels file for a single images file");
  group->add_option("--y-file", flags.y_file, "NPY: a second .npy file holding the target");
  group->add_option("--image-shape", flags.image_shape,
                    "Rows are images of this shape, e.g. 28x28 or 32x32x3 (read from IDX and the "
                    "USPS layout; give it for other image data)");
  group->add_flag("--in-memory", flags.in_memory,
                  "NPY/NPZ: read float32 features into memory instead of mapping the file (by "
                  "default such a file is mapped: rows are read on demand and cost no process "
                  "memory)");
  group->add_option(
      "--pad-images", flags.pad_images,
      "Centre every image in a larger one, e.g. 28x28, with a border of uniform noise "
      "(the paper's representativeness study: a good selector leaves the border "
      "alone)");
}

void add_groups_flag(CLI::App& command, ReaderFlags& flags) {
  command.get_option_group("Data")->add_option(
      "--groups", flags.groups,
      "A CSV of column,group lines (a name or 0-based index, a group name): each "
      "group is selected whole and k counts groups; unlisted columns are groups of "
      "their own");
}

void add_weight_flags(CLI::App& command, ReaderFlags& flags) {
  auto* group = command.get_option_group("Data");
  auto* column = group->add_option(
      "--sample-weight", flags.sample_weight,
      "A column of DATA (name or 0-based index) holding each row's weight (>= 0): a row of "
      "weight w counts as w copies in every method's loss and in the scores; the column is "
      "not a feature");
  auto* file = group->add_option("--weight-file", flags.weight_file,
                                 "A file of one weight per row, in the rows' order (an optional "
                                 "header line first): as --sample-weight");
  column->excludes(file);
  group->add_option("--class-weight", flags.class_weight,
                    "balanced (each class weighs n / (classes x its rows) over the rows a fit "
                    "learns from), or a CSV of class,weight lines; multiplies the sample "
                    "weights in training (scores count sample weights only)");
}

Dataset load_dataset(const ReaderFlags& flags, const ReadOptions& options, bool by_rows) {
  Dataset data = by_rows && flags.pad_images.empty() ? read_dataset_by_rows(flags.path, options)
                                                     : read_dataset(flags.path, options);
  if (!flags.image_shape.empty()) {
    data.image_shape =
        checked_image_shape(flags.image_shape, "--image-shape", data.cols(), flags.path);
  }
  apply_data_flags(flags, data);
  return data;
}

void apply_data_flags(const ReaderFlags& flags, Dataset& data) {
  if (!flags.pad_images.empty()) {
    data = pad_images_with_noise(data, parse_image_shape(flags.pad_images, "--pad-images"));
  }
  if (!flags.sample_weight.empty()) take_weight_column(data, flags.sample_weight);
  if (!flags.weight_file.empty()) {
    apply_sample_weights(data, read_weight_file(flags.weight_file, data.rows()), flags.weight_file);
  }
  if (!flags.class_weight.empty()) data.class_weight = read_class_weight(flags.class_weight, data);
  if (!flags.groups.empty()) apply_feature_groups(data, read_feature_groups(flags.groups, data));
}

}  // namespace topkfs::cli
