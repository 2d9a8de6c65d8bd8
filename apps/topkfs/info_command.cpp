// `topkfs info DATA`: what is in a data file, as the readers see it.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "command_spelling.hpp"
#include "commands.hpp"
#include "reader_flags.hpp"
#include "topkfs/data/summary.hpp"
#include "topkfs/io/json_field.hpp"

namespace topkfs::cli {
namespace {

std::string storage_text(RowStorage storage, const std::string& format) {
  const bool from_reader_program = format == "hdf5" || format == "mat";
  switch (storage) {
    case RowStorage::Mapped:
      return from_reader_program
                 ? "mapped from a temporary file (above half the memory budget: the HDF5 reader "
                   "program wrote the rows there; rows read on demand, the neural methods train "
                   "without loading them)"
                 : "mapped from the file (rows read on demand; the neural methods train without "
                   "loading them)";
    case RowStorage::RowBlocks: return "row blocks (read from the file block by block)";
    case RowStorage::InMemory: break;
  }
  return to_string(storage);
}

void print_summary(const DatasetSummary& s) {
  fmt::print("data        {} ({})\n", s.source, s.format);
  fmt::print("shape       {} samples x {} features\n", s.rows, s.columns);
  fmt::print("storage     {}\n", storage_text(s.storage, s.format));
  if (s.image_shape) {
    fmt::print("images      {}x{}{}\n", s.image_shape->height, s.image_shape->width,
               s.image_shape->channels > 1 ? fmt::format("x{}", s.image_shape->channels) : "");
  }
  fmt::print("features    {}{}\n", fmt::join(s.feature_names_head, ", "),
             s.columns > static_cast<std::int64_t>(s.feature_names_head.size()) ? ", ..." : "");
  if (s.feature_range.min <= s.feature_range.max) {
    fmt::print("values      min {:.6g}, max {:.6g}; {} constant column{}\n", s.feature_range.min,
               s.feature_range.max, s.constant_columns, s.constant_columns == 1 ? "" : "s");
  } else {
    fmt::print("values      no numeric values; {} constant column{}\n", s.constant_columns,
               s.constant_columns == 1 ? "" : "s");
  }
  fmt::print("missing     {} value{} (NaN or infinite) in {} sample{}\n", s.missing_values,
             s.missing_values == 1 ? "" : "s", s.rows_with_missing,
             s.rows_with_missing == 1 ? "" : "s");
  constexpr std::size_t kListed = 20;
  for (std::size_t j = 0; j < s.missing_by_column.size() && j < kListed; ++j) {
    fmt::print("  {:>12}  {:>8} missing  {:5.1f}%\n", s.missing_by_column[j].first,
               s.missing_by_column[j].second, 100.0 * s.missing_by_column[j].second / s.rows);
  }
  if (s.missing_by_column.size() > kListed) {
    fmt::print("  ... and {} more columns with missing cells (--json lists all)\n",
               s.missing_by_column.size() - kListed);
  }
  if (!s.categorical.empty()) {
    fmt::print(
        "categorical {} column{} (one-hot encoded by select, levels learned from the "
        "training rows)\n",
        s.categorical.size(), s.categorical.size() == 1 ? "" : "s");
    for (std::size_t j = 0; j < s.categorical.size() && j < kListed; ++j) {
      const auto& column = s.categorical[j];
      std::vector<std::string> frequent;
      for (const auto& [level, count] : column.most_frequent) {
        frequent.push_back(fmt::format("{} ({})", level, count));
      }
      fmt::print("  {:>12}  {:>4} level{}: {}{}\n", column.name, column.levels,
                 column.levels == 1 ? " " : "s", fmt::join(frequent, ", "),
                 column.levels > static_cast<std::int64_t>(frequent.size()) ? ", ..." : "");
    }
    if (s.categorical.size() > kListed) {
      fmt::print("  ... and {} more categorical columns (--json lists all)\n",
                 s.categorical.size() - kListed);
    }
  }
  switch (s.target_kind) {
    case TargetKind::None: fmt::print("target      none\n"); break;
    case TargetKind::Classes:
      fmt::print("target      '{}': {} classes\n", s.target_names.front(), s.class_counts.size());
      for (const auto& [name, count] : s.class_counts) {
        fmt::print("  {:>12}  {:>8}  {:5.1f}%\n", name, count, 100.0 * count / s.rows);
      }
      break;
    case TargetKind::Real:
      fmt::print("target      real-valued, {} output{}\n", s.target_ranges.size(),
                 s.target_ranges.size() == 1 ? "" : "s");
      for (std::size_t j = 0; j < s.target_ranges.size(); ++j) {
        fmt::print("  {:>12}  min {:.6g}, max {:.6g}\n", s.target_names[j], s.target_ranges[j].min,
                   s.target_ranges[j].max);
      }
      break;
  }
  if (s.split) {
    fmt::print("split       predefined: {} train, {} test\n", s.split->first, s.split->second);
  } else {
    fmt::print("split       none in the file (select/evaluate make a random stratified one)\n");
  }
  for (const auto& note : s.notes) fmt::print("note        {}\n", note);
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto flags = std::make_shared<ReaderFlags>();
  auto json = std::make_shared<bool>(false);
  auto* command = app.add_subcommand(
      "info",
      "Describe a data file: shape, target kind, classes with counts, value ranges, missing "
      "values and the split");
  command->footer(
      "\nExamples:\n"
      "  topkfs info /usr/share/datasets/fashion-mnist\n"
      "  topkfs info data.csv --target label --json\n"
      "  topkfs info COIL20.mat --x-var X --y-var Y\n"
      "\nExit status: 0 success, 2 usage error, 1 data or runtime error.");
  add_reader_flags(*command, *flags);
  command->add_flag("--json", *json, "Print the summary as JSON (machine-readable) on stdout");
  return {command, [flags, json] {
            ReadOptions options = flags->to_options(ReadPurpose::Inspect);
            // info reports missing values instead of refusing or imputing them.
            if (options.nan == NanPolicy::Error || options.nan == NanPolicy::Impute)
              options.nan = NanPolicy::Keep;
            // Read as select reads it, so that the storage reported is the
            // one a fit will use (HDF5 above half the budget by row blocks).
            DatasetSummary summary = summarize(load_dataset(*flags, options, /*by_rows=*/true));
            spell_for_command_line(summary.notes);
            if (*json) {
              std::cout << json_field::indented_text(to_json(summary)) << "\n";
            } else {
              print_summary(summary);
            }
            return 0;
          }};
}

}  // namespace topkfs::cli
