#include "topkfs/io/convert.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "memory_budget.hpp"
#include "npy_writer.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/data/table_encoding.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/json_field.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs {
namespace {

bool has_extension(const std::string& path, const char* extension) {
  return std::filesystem::path(path).extension() == extension;
}

// Rows per block: --block-rows (at most the rows there are), else about
// 4 MB of rows. A block larger than half the memory is refused naming the
// option, before an allocation fails with "out of memory".
std::int64_t checked_block_rows(std::int64_t block_rows, const RowSource& rows) {
  const std::int64_t m = std::max<std::int64_t>(1, rows.column_count());
  const std::int64_t n = std::max<std::int64_t>(1, rows.row_count());
  if (block_rows <= 0)
    return std::min(n, std::max<std::int64_t>(1, (std::int64_t{4} << 20) / (4 * m)));
  const std::int64_t block = std::min(block_rows, n);
  const double bytes = static_cast<double>(block) * static_cast<double>(m) * sizeof(float);
  const double budget = 0.5 * static_cast<double>(detail::physical_memory_bytes());
  if (bytes > budget) {
    throw OptionError(
        fmt::format("{}: a block of {} rows x {} columns takes {:.1f} GB, above half this "
                    "machine's memory; give at most {}",
                    option_ref("block-rows", block_rows), block, m, bytes / 1e9,
                    std::max<std::int64_t>(1, static_cast<std::int64_t>(budget / (4.0 * m)))));
  }
  return block;
}

// The features as a float32 array: (n, m), or (n, h, w[, c]) for images, so
// that reading the file back gives the image shape again.
detail::NpyOutput feature_array(const Dataset& data, const RowSource& rows,
                                std::int64_t block_rows) {
  const std::int64_t m = rows.column_count();
  detail::NpyOutput array;
  array.name = "X";
  array.descr = "<f4";
  array.shape = {static_cast<std::uint64_t>(rows.row_count())};
  if (data.image_shape && data.image_shape->pixels() == m) {
    array.shape.push_back(static_cast<std::uint64_t>(data.image_shape->height));
    array.shape.push_back(static_cast<std::uint64_t>(data.image_shape->width));
    if (data.image_shape->channels > 1) {
      array.shape.push_back(static_cast<std::uint64_t>(data.image_shape->channels));
    }
  } else {
    array.shape.push_back(static_cast<std::uint64_t>(m));
  }
  array.payload_bytes =
      static_cast<std::uint64_t>(rows.row_count()) * static_cast<std::uint64_t>(m) * 4;
  const std::int64_t block = checked_block_rows(block_rows, rows);
  array.write_payload = [&rows, block](const detail::ByteSink& sink) {
    rows.for_each_block(
        0, rows.row_count(), block, [&](std::int64_t, std::int64_t count, const float* values) {
          sink(reinterpret_cast<const char*>(values),
               static_cast<std::size_t>(count * rows.column_count()) * sizeof(float));
        });
  };
  return array;
}

// A class name as a number, when the whole name is one.
std::optional<double> number_of(const std::string& name) {
  if (name.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(name.c_str(), &end);
  if (end != name.c_str() + name.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// The target as an array: class labels by their names when every name is a
// number (int64 when all are integers), else by their codes 0..C-1 (a note
// lists the names); real targets as float64 (n,) or (n, q).
detail::NpyOutput target_array(const Dataset& data, std::vector<std::string>& notes) {
  detail::NpyOutput array;
  array.name = "Y";
  const auto n = static_cast<std::uint64_t>(data.rows());
  std::vector<double> values;
  if (data.target_kind == TargetKind::Classes) {
    std::vector<double> by_label;
    for (const auto& name : data.class_names) {
      const auto number = number_of(name);
      if (!number) break;
      by_label.push_back(*number);
    }
    const bool named = by_label.size() == data.class_names.size();
    if (!named) {
      std::string codes;
      for (std::size_t c = 0; c < data.class_names.size(); ++c) {
        codes += fmt::format("{}{} = {}", c == 0 ? "" : ", ", c, data.class_names[c]);
      }
      notes.push_back(
          fmt::format("the class names are not numbers: the target holds their codes ({})", codes));
    }
    for (auto label : data.labels) {
      values.push_back(named ? by_label[static_cast<std::size_t>(label)] : label);
    }
    const bool integers =
        std::all_of(values.begin(), values.end(), [](double v) { return v == std::floor(v); });
    array.descr = integers ? "<i8" : "<f8";
    array.shape = {n};
  } else {
    values.assign(data.targets.data(), data.targets.data() + data.targets.size());
    array.descr = "<f8";
    array.shape = {n};
    if (data.targets.cols() > 1)
      array.shape.push_back(static_cast<std::uint64_t>(data.targets.cols()));
  }
  array.payload_bytes = values.size() * 8;
  const bool integers = array.descr == "<i8";
  array.write_payload = [values = std::move(values), integers](const detail::ByteSink& sink) {
    for (double value : values) {
      char bytes[8];
      if (integers) {
        const auto whole = static_cast<std::int64_t>(value);
        std::memcpy(bytes, &whole, 8);
      } else {
        std::memcpy(bytes, &value, 8);
      }
      sink(bytes, 8);
    }
  };
  return array;
}

// Refuses an output that is one of `inputs` (the data, its target or labels
// file): writing it would replace what is being read.
void check_not_an_input(const ConvertOptions& options, const std::vector<std::string>& inputs) {
  std::error_code error;
  for (const auto& out : {options.output, options.y_output}) {
    for (const auto& input : inputs) {
      if (!out.empty() && !input.empty() && std::filesystem::equivalent(out, input, error)) {
        throw OptionError(
            fmt::format("{}: the output would replace the data it is read from ({})", out, input));
      }
    }
  }
}

void check_outputs(const std::string& input, const ConvertOptions& options, const Dataset* data) {
  const bool npz = has_extension(options.output, ".npz");
  if (!npz && !has_extension(options.output, ".npy")) {
    throw OptionError(fmt::format(
        "{}: name a .npy file (the features; the target goes to {}) or a .npz file (X and Y)",
        option_ref("output", options.output), option_ref("y-output")));
  }
  if (npz && !options.y_output.empty()) {
    throw OptionError(fmt::format("{} goes with an .npy {}; an .npz output holds the target",
                                  option_ref("y-output"), option_ref("output")));
  }
  if (!options.y_output.empty() && !has_extension(options.y_output, ".npy")) {
    throw OptionError(
        fmt::format("{}: name a .npy file", option_ref("y-output", options.y_output)));
  }
  check_not_an_input(options, {input});
  if (options.y_output == options.output) {
    throw OptionError(
        fmt::format("{} and {} name the same file", option_ref("output"), option_ref("y-output")));
  }
  if (data != nullptr && !options.y_output.empty() && data->target_kind == TargetKind::None) {
    throw OptionError(
        fmt::format("{}: {} has no target to write (data read with {}, an .npy without {}, an NPZ "
                    "without its target array)",
                    option_ref("y-output", options.y_output), input, option_ref("no-target"),
                    option_ref("y-file")));
  }
  if (data != nullptr && !npz && options.y_output.empty() &&
      data->target_kind != TargetKind::None) {
    throw OptionError(
        fmt::format("{} has a target: give {} to keep it beside {}, or write one .npz", input,
                    option_ref("y-output", "y.npy"), options.output));
  }
}

}  // namespace

void check_convert_outputs(const std::string& input, const ReadOptions& read,
                           const ConvertOptions& options) {
  check_outputs(input, options, nullptr);
  check_not_an_input(options, {read.y_file, read.labels_path});
}

ConvertSummary write_streamable(const Dataset& data, const ConvertOptions& options) {
  return write_streamable(data, data.features, options);
}

ConvertSummary write_streamable(const Dataset& data, const RowSource& rows,
                                const ConvertOptions& options) {
  check_outputs(data.source, options, &data);
  ConvertSummary summary;
  summary.rows = rows.row_count();
  summary.columns = rows.column_count();
  summary.storage = rows.storage();
  const detail::NpyOutput features = feature_array(data, rows, options.block_rows);
  std::optional<detail::NpyOutput> target;
  if (data.target_kind != TargetKind::None) target = target_array(data, summary.notes);
  if (data.predefined_split) {
    const auto& split = *data.predefined_split;
    const bool train_first = std::all_of(
        split.train.begin(), split.train.end(),
        [&](std::int64_t row) { return row < static_cast<std::int64_t>(split.train.size()); });
    summary.notes.push_back(fmt::format(
        "the predefined split ({} train, {} test rows) is not kept{}", split.train.size(),
        split.test.size(),
        train_first ? fmt::format(": the training rows are rows 0..{}", split.train.size() - 1)
                    : ""));
  }
  OutputGroup outputs;
  if (has_extension(options.output, ".npz")) {
    std::vector<detail::NpyOutput> arrays{features};
    if (target) arrays.push_back(*target);
    write_file_atomically(options.output,
                          [&](std::ostream& out) { detail::write_npz(out, arrays); });
    summary.written.push_back(options.output);
  } else {
    write_file_atomically(options.output,
                          [&](std::ostream& out) { detail::write_npy(out, features); });
    summary.written.push_back(options.output);
    if (target && !options.y_output.empty()) {
      write_file_atomically(options.y_output,
                            [&](std::ostream& out) { detail::write_npy(out, *target); });
      summary.written.push_back(options.y_output);
    }
  }
  outputs.commit();
  return summary;
}

ConvertSummary convert_dataset(const std::string& path, const ReadOptions& read,
                               const ConvertOptions& options) {
  check_convert_outputs(path, read, options);  // before the data is read
  const RowStream stream = open_row_stream(path, read);
  return write_encoded_if_needed(*stream.data, *stream.rows, options);
}

std::string encoding_sidecar(const std::string& output) {
  return std::filesystem::path(output).replace_extension(".encoding.json").string();
}

ConvertSummary write_encoded_if_needed(const Dataset& data, const RowSource& rows,
                                       const ConvertOptions& options) {
  const bool in_memory = rows.storage() == RowStorage::InMemory && data.cols() > 0;
  const bool encode =
      data.has_categorical() || (in_memory ? needs_encoding(data) : data.missing_cells_seen);
  if (!encode) return write_streamable(data, rows, options);
  const TableEncoding encoding = learn_encoding(rows, data);
  if (is_identity(encoding)) return write_streamable(data, rows, options);
  const TableEncoder encoder(encoding, data.column_levels, data.source);
  const EncodedRows encoded(rows, encoder);
  Dataset described;
  described.features.resize(rows.row_count(), 0);  // the rows come from `encoded`
  copy_rows_target(data, described);
  described.image_shape.reset();
  encoder.describe(described);
  // The sidecar first: a failing write then leaves no matrix behind it
  // whose columns nothing explains; both are written atomically.
  OutputGroup outputs;
  const std::string sidecar = encoding_sidecar(options.output);
  const nlohmann::json beside = {
      {"format", "topkfs-encoding/1"},          {"source", data.source},
      {"encoding", to_json(encoding)},          {"feature_names", described.feature_names},
      {"column_group", described.column_group}, {"group_names", described.group_names}};
  write_file_atomically(sidecar, json_field::indented_text(beside) + "\n");
  ConvertSummary summary = write_streamable(described, encoded, options);
  outputs.commit();
  summary.written.insert(summary.written.begin(), sidecar);
  summary.notes.push_back(fmt::format(
      "{}; written encoded ({} columns), the encoding and the groups in {}, which select reads "
      "back: k counts the {} columns of {}",
      encoding.summary(), encoder.columns(), sidecar, rows.column_count(), data.source));
  return summary;
}

}  // namespace topkfs
