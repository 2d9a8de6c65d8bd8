// `topkfs transform DATA --selection result.json --output-data reduced.csv`:
// reduce (new) data to the columns a selection chose.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "output_flags.hpp"
#include "reader_flags.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/table_encoding.hpp"
#include "topkfs/io/result_json.hpp"
#include "topkfs/io/table_writer.hpp"

namespace topkfs::cli {
namespace {

// A column the file leaves unnamed has its default name (x0, x1, ...),
// which says nothing about the column.
bool named_by_the_file(const std::string& name, std::size_t column) {
  return name != default_feature_name(static_cast<std::int64_t>(column));
}

// Each selected column must carry the name the selection recorded, where
// both the data and the selection's data named it.
void check_selected_names(const Dataset& data, const SelectionResult& selection,
                          const std::string& data_path, const std::string& selection_path) {
  const std::vector<std::int64_t> columns = selection.selected_columns();
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const auto column = static_cast<std::size_t>(columns[j]);
    const std::string& name = data.feature_names[column];
    // The name the selection's data gave the column (older files list the
    // selected names only).
    const auto& recorded = selection.data.feature_names;
    if (recorded.empty() && selection.groups) return;
    const std::string& chosen = recorded.empty() ? selection.selected_names[j] : recorded[column];
    if (name != chosen && named_by_the_file(name, column) && named_by_the_file(chosen, column)) {
      throw DataError(fmt::format(
          "{}: column {} is named '{}' but the selection in {} chose '{}' there; are these the "
          "same kind of data? (A target that is not the last column needs --target NAME)",
          data_path, column, name, selection_path, chosen));
    }
  }
}

// When the data or the selection's data names no column (an .npy, a CSV
// without a header), the columns were matched by count and position only.
std::string unchecked_names_note(const Dataset& data, const SelectionResult& selection) {
  const auto unnamed = [](const std::vector<std::string>& names) {
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (named_by_the_file(names[j], j)) return false;
    }
    return true;
  };
  const bool data_unnamed = unnamed(data.feature_names);
  if (!data_unnamed && !(selection.data.feature_names.size() == data.feature_names.size() &&
                         unnamed(selection.data.feature_names))) {
    return "";
  }
  return fmt::format(
      "{} names no column, so the columns were matched by their count ({}) and position only: "
      "their names could not be checked",
      data_unnamed ? "the data" : "the selection's data", data.cols());
}

// New data often comes without its target: read as usual, its last feature
// column became the target, one column short of the selection's data.
std::string no_target_hint(const Dataset& data, std::int64_t columns) {
  const bool delimited = data.format == "csv" || data.format == "tsv";
  if (!delimited || data.target_kind == TargetKind::None || data.cols() + 1 != columns) return "";
  return "; if the file has no target column, give --no-target (every column is then a feature)";
}

// The selected columns are written as read; where the selection encoded
// them, a level it never saw encodes as zeros for a model trained on the
// encoding, which the user should know. Also refuses text where the
// selection learned numbers.
std::string unseen_levels_note(const Dataset& data, const SelectionResult& selection) {
  if (!selection.encoding) return "";
  const std::vector<std::int64_t> columns = selection.selected_columns();
  TableEncoding chosen;
  for (auto column : columns) {
    chosen.columns.push_back(selection.encoding->columns[static_cast<std::size_t>(column)]);
  }
  std::int64_t unseen = 0;
  encode_table(take_columns(data, columns), chosen, &unseen);
  if (unseen == 0) return "";
  return fmt::format(
      "{} cell{} of the selected categorical columns hold a level the selection never saw in "
      "its training rows (written as read; the selection's encoding maps such a level to all "
      "zeros)",
      unseen, unseen == 1 ? "" : "s");
}

}  // namespace

Command add_transform_command(CLI::App& app) {
  struct Flags {
    ReaderFlags data;
    std::string selection;
    std::string output_data;
  };
  auto flags = std::make_shared<Flags>();
  auto* command = app.add_subcommand(
      "transform", "Reduce data to the columns chosen by a selection result (any method)");
  add_reader_flags(*command, flags->data);
  command
      ->add_option("--selection,-s", flags->selection, "Result JSON written by `topkfs select -o`")
      ->required();
  command
      ->add_option("--output-data,-o", flags->output_data,
                   "CSV to write: the selected columns in ranking order, then the target (if "
                   "the data has one)")
      ->required();
  command->footer(
      "\nExample:\n"
      "  topkfs select train.csv --method dnn-top --k 10 -o result.json\n"
      "  topkfs transform new.csv --selection result.json --output-data reduced.csv\n"
      "  topkfs transform unlabelled.csv --no-target -s result.json -o reduced.csv\n"
      "\nThe data must have the same columns as the data the selection was made on (checked by "
      "count and, where both name them, by name: a file without a header names none).");
  return {command, [flags] {
            std::vector<NamedPath> inputs = input_paths(flags->data);
            inputs.push_back({"--selection", flags->selection});
            check_output_paths({{"--output-data", flags->output_data}}, inputs);
            const SelectionResult selection = read_selection(flags->selection);
            const Dataset data = load_dataset(flags->data, flags->data.to_options());
            if (data.cols() != selection.data.columns) {
              throw DataError(fmt::format(
                  "{} has {} feature columns but the selection in {} was made on {} columns{}",
                  flags->data.path, data.cols(), flags->selection, selection.data.columns,
                  no_target_hint(data, selection.data.columns)));
            }
            check_selected_names(data, selection, flags->data.path, flags->selection);
            const std::string unseen = unseen_levels_note(data, selection);
            const std::string unchecked = unchecked_names_note(data, selection);
            write_selected_columns(flags->output_data, data, selection.selected_columns());
            fmt::print("wrote {} rows x {} selected columns{} to {}\n", data.rows(),
                       selection.selected_columns().size(),
                       data.target_kind == TargetKind::None ? "" : " (+ target)",
                       flags->output_data);
            if (!unseen.empty()) fmt::print("note        {}\n", unseen);
            if (!unchecked.empty()) fmt::print("note        {}\n", unchecked);
            return 0;
          }};
}

}  // namespace topkfs::cli
