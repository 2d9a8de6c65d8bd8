#pragma once
// The data-reading flags shared by every subcommand that takes DATA.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_option_scope.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::cli {

struct ReaderFlags {
  std::string path;
  std::string format = "auto";
  std::vector<std::string> target;
  bool no_target = false;
  bool no_header = false;
  bool header = false;
  std::string delimiter;
  std::string nan = "impute";
  std::vector<std::string> categorical;
  std::vector<std::string> numeric;
  std::vector<std::string> na_values;
  int max_levels = 1000;
  std::string task = "auto";
  std::string x_var = "X";
  std::string y_var = "Y";
  std::string x_path;
  std::string y_path;
  std::string labels;
  std::string y_file;
  std::string image_shape;
  std::string pad_images;
  bool in_memory = false;
  // select and evaluate (add_groups_flag): groups of columns selected whole.
  std::string groups;
  // select and evaluate (add_weight_flags): sample and class weights.
  std::string sample_weight;  // a column of the data
  std::string weight_file;    // one weight per row
  std::string class_weight;   // "balanced" or a file of class,weight lines

  // The flags as options for reading `path` for `purpose` (info inspects;
  // the other commands select, and refuse --nan keep); throws OptionError on
  // a bad value or one that does not apply to the file (parse_read_options).
  ReadOptions to_options(ReadPurpose purpose = ReadPurpose::Select) const;
};

// Adds DATA and the reader flags to `command` (in an option group "Data").
void add_reader_flags(CLI::App& command, ReaderFlags& flags);

// Adds --groups FILE (select, evaluate: the commands that select).
void add_groups_flag(CLI::App& command, ReaderFlags& flags);

// Adds --sample-weight COL, --weight-file FILE and --class-weight
// balanced|FILE (select, evaluate).
void add_weight_flags(CLI::App& command, ReaderFlags& flags);

// Reads the dataset the flags describe with `options` (normally
// flags.to_options(), adjusted by the command) and applies --image-shape.
// `by_rows`: for a method that reads the feature rows by index, HDF5 is read
// by row blocks (read_dataset_by_rows) unless --pad-images needs the matrix.
// With --sample-weight, --weight-file or --class-weight, the weights are set
// on the data (the weight column leaves the features); with --groups, the
// groups are read and set.
Dataset load_dataset(const ReaderFlags& flags, const ReadOptions& options, bool by_rows = false);

// The flags that change the data once read: --pad-images, the weights and
// --groups, in that order (load_dataset's steps after --image-shape; `topkfs
// select` hands them to the library's pipeline as FileSelectionRequest::prepare).
void apply_data_flags(const ReaderFlags& flags, Dataset& data);

}  // namespace topkfs::cli
