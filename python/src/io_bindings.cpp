// topkfs.load: every format the CLI reads, with the CLI's reader flags as
// keyword arguments, returned as NumPy arrays.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "bindings.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/convert.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/read_option_scope.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::python {
namespace {

// The reader keywords, as the CLI's reader flags with underscores.
constexpr std::array<const char*, 20> kReaderKeywords = {
    "format",  "target",     "no_target", "header", "delimiter",        "nan",      "categorical",
    "numeric", "max_levels", "na_values", "task",   "max_auto_classes", "x_var",    "y_var",
    "x_path",  "y_path",     "labels",    "y_file", "image_shape",      "in_memory"};

std::string text_of(const py::handle& value) { return py::str(value).cast<std::string>(); }

bool is_sequence(const py::handle& value) {
  return py::isinstance<py::sequence>(value) && !py::isinstance<py::str>(value) &&
         !py::isinstance<py::bytes>(value);
}

std::vector<std::string> target_columns(const py::handle& value) {
  std::vector<std::string> out;
  if (is_sequence(value)) {
    for (const auto& item : value) out.push_back(text_of(item));
  } else {
    out.push_back(text_of(value));
  }
  return out;
}

HeaderMode header_mode(const py::handle& value) {
  if (value.is_none()) return HeaderMode::Auto;
  if (py::isinstance<py::bool_>(value)) {
    return value.cast<bool>() ? HeaderMode::Yes : HeaderMode::No;
  }
  throw OptionError(
      fmt::format("header takes True, False or None (detect), not {}", text_of(py::repr(value))));
}

// A keyword that takes True or False (pybind11's own cast would say only
// that it cannot cast, with a hint about a debug build).
bool flag_of(const py::handle& value, const char* key) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  throw OptionError(fmt::format("{} takes True or False, not {}", key, text_of(py::repr(value))));
}

// A keyword that takes a whole number from 1 to 2^31 - 1.
int count_of(const py::handle& value, const char* key) {
  if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value)) {
    try {
      const auto number = value.cast<long long>();
      if (number >= 1 && number <= std::numeric_limits<int>::max()) return static_cast<int>(number);
    } catch (const py::cast_error&) {  // beyond 64 bits
    }
  }
  throw OptionError(fmt::format("{} takes a whole number from 1 to {}, not {}", key,
                                std::numeric_limits<int>::max(), text_of(py::repr(value))));
}

std::optional<char> delimiter_of(const py::handle& value) {
  if (value.is_none()) return std::nullopt;
  const std::string text = text_of(value);
  if (text == "\\t" || text == "tab") return '\t';
  if (text == "space") return ' ';
  if (text.size() == 1) return text[0];
  throw OptionError(
      fmt::format("delimiter takes one character (or 'tab', 'space'), not '{}'", text));
}

NanPolicy nan_policy(const std::string& text) { return parse_nan_policy(text, "nan"); }

TaskHint task_hint(const std::string& text) {
  if (text == "auto") return TaskHint::Auto;
  if (text == "classification") return TaskHint::Classification;
  if (text == "regression") return TaskHint::Regression;
  throw OptionError(
      fmt::format("task takes 'auto', 'classification' or 'regression', not '{}'", text));
}

// "28x28" as given, or a tuple (28, 28) / (32, 32, 3).
std::string image_shape_text(const py::handle& value) {
  if (value.is_none()) return "";
  if (!is_sequence(value)) return text_of(value);
  std::string text;
  for (const auto& item : value) text += (text.empty() ? "" : "x") + text_of(item);
  return text;
}

py::object labels_as_python(const Dataset& data) {
  py::list names;
  for (const auto& name : data.class_names) names.append(name);
  py::array_t<std::int32_t> codes(static_cast<py::ssize_t>(data.labels.size()), data.labels.data());
  return py::make_tuple(codes, names);
}

py::object split_as_python(const Dataset& data) {
  if (!data.predefined_split) return py::none();
  const auto as_array = [](const std::vector<std::int64_t>& rows) {
    return py::array_t<std::int64_t>(static_cast<py::ssize_t>(rows.size()), rows.data());
  };
  return py::make_tuple(as_array(data.predefined_split->train),
                        as_array(data.predefined_split->test));
}

// The dataset as a dict of arrays and names; the Python layer turns the class
// codes back into the labels as they were in the file.
py::dict load(const std::string& path, const py::dict& reader_options) {
  Dataset data = read_for_python(path, reader_options);
  py::dict out;
  out["kind"] = to_string(data.target_kind);
  if (data.target_kind == TargetKind::Classes) out["labels"] = labels_as_python(data);
  if (data.target_kind == TargetKind::Real) out["targets"] = move_to_numpy(std::move(data.targets));
  out["target_names"] = data.target_names;
  out["feature_names"] = data.feature_names;
  out["split"] = split_as_python(data);
  out["image_shape"] =
      data.image_shape
          ? py::object(py::make_tuple(data.image_shape->height, data.image_shape->width,
                                      data.image_shape->channels))
          : py::object(py::none());
  out["format"] = data.format;
  out["source"] = data.source;
  out["notes"] = data.notes;
  out["column_levels"] = data.column_levels;  // empty, or per column (empty: numeric)
  out["X"] = move_to_numpy(std::move(data.features));
  return out;
}

}  // namespace

ReadOptions read_options_from(const py::dict& options) {
  ReadOptions out;
  for (const auto& [key_handle, value] : options) {
    const std::string key = text_of(key_handle);
    if (key == "format") {
      out.format = parse_format(text_of(value));
    } else if (key == "target") {
      if (!value.is_none()) out.target = target_columns(value);
    } else if (key == "no_target") {
      out.no_target = flag_of(value, "no_target");
    } else if (key == "header") {
      out.header = header_mode(value);
    } else if (key == "delimiter") {
      out.delimiter = delimiter_of(value);
    } else if (key == "nan") {
      out.nan = nan_policy(text_of(value));
    } else if (key == "categorical") {
      if (!value.is_none()) out.categorical = target_columns(value);
    } else if (key == "numeric") {
      if (!value.is_none()) out.numeric = target_columns(value);
    } else if (key == "na_values") {
      if (!value.is_none()) out.na_values = target_columns(value);
    } else if (key == "max_levels") {
      out.max_levels = count_of(value, "max_levels");
    } else if (key == "task") {
      out.task = task_hint(text_of(value));
    } else if (key == "max_auto_classes") {
      out.max_auto_classes = count_of(value, "max_auto_classes");
    } else if (key == "x_var") {
      out.x_var = text_of(value);
    } else if (key == "y_var") {
      out.y_var = text_of(value);
    } else if (key == "x_path") {
      out.x_path = text_of(value);
    } else if (key == "y_path") {
      out.y_path = text_of(value);
    } else if (key == "labels") {
      out.labels_path = text_of(value);
    } else if (key == "y_file") {
      out.y_file = text_of(value);
    } else if (key == "in_memory") {
      out.map = !flag_of(value, "in_memory");
    } else if (key != "image_shape") {
      throw py::type_error(fmt::format("unexpected reader option '{}'; the reader options are: {}",
                                       key, fmt::join(kReaderKeywords, ", ")));
    }
  }
  return out;
}

namespace {

// The command's flag without its dashes as Python spells the keyword.
std::string keyword_of(std::string option) {
  std::replace(option.begin(), option.end(), '-', '_');
  return option;
}

// A reader option given for a format it does not apply to changed nothing:
// refused, named as Python spells it (the command's "no-header" is
// header=False here); so is a target named beside no_target=True.
void check_options_apply(const std::string& path, const ReadOptions& options) {
  if (const auto misapplied = misapplied_option(path, options)) {
    const std::string& option = misapplied->option;
    throw OptionError(
        misapplied->message(option == "no-header" ? "header" : keyword_of(option), path));
  }
  if (const auto option = option_naming_the_target(options)) {
    throw OptionError(
        fmt::format("{} and no_target exclude each other: give one of them", keyword_of(*option)));
  }
}

// The image_shape keyword as text ("" when not given).
std::string image_shape_option(const py::dict& reader_options) {
  return reader_options.contains("image_shape") ? image_shape_text(reader_options["image_shape"])
                                                : std::string();
}

}  // namespace

Dataset read_for_python(const std::string& path, const py::dict& reader_options) {
  const ReadOptions options = read_options_from(reader_options);
  check_options_apply(path, options);
  const std::string shape_text = image_shape_option(reader_options);
  Dataset data;
  {
    // Large files take seconds to parse: other Python threads may run.
    py::gil_scoped_release release;
    data = read_dataset(path, options);
  }
  if (!shape_text.empty()) {
    data.image_shape = checked_image_shape(shape_text, "image_shape", data.cols(), path);
  }
  return data;
}

// topkfs.convert: the data read as load() reads it, written as
// `topkfs convert` writes it; returns the summary as a dict.
py::dict convert(const std::string& path, const std::string& output, const std::string& y_output,
                 const py::dict& reader_options) {
  ConvertOptions options;
  options.output = output;
  options.y_output = y_output;
  const ReadOptions read = read_options_from(reader_options);
  check_options_apply(path, read);
  const std::string shape_text = image_shape_option(reader_options);
  ConvertSummary summary;
  {
    py::gil_scoped_release release;
    check_convert_outputs(path, read, options);  // before the data is read
    RowStream stream = open_row_stream(path, read);
    if (!shape_text.empty()) {
      stream.data->image_shape =
          checked_image_shape(shape_text, "image_shape", stream.rows->column_count(), path);
    }
    summary = write_encoded_if_needed(*stream.data, *stream.rows, options);
  }
  py::dict out;
  out["rows"] = summary.rows;
  out["columns"] = summary.columns;
  out["written"] = summary.written;
  out["notes"] = summary.notes;
  out["storage"] = to_string(summary.storage);
  return out;
}

void bind_io(py::module_& module) {
  module.def("convert", &convert, py::arg("path"), py::arg("output"), py::arg("y_output"),
             py::arg("reader_options"),
             "Writes the data as topkfs convert does (a dict: rows, columns, written, notes).");
  module.def("load", &load, py::arg("path"), py::arg("reader_options"),
             "Reads a data file as topkfs.load does (a dict of arrays and names).");
  module.def(
      "missing_markers", [] { return builtin_missing_markers(); },
      "The text cells read as missing (the command's list, docs/data-preparation.md).");
  module.def(
      "reader_keywords",
      [] { return std::vector<std::string>(kReaderKeywords.begin(), kReaderKeywords.end()); },
      "The keyword arguments topkfs.load takes.");
}

}  // namespace topkfs::python
