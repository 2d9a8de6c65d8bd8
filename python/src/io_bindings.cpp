// topkfs.load: every format the CLI reads, with the CLI's reader flags as
// keyword arguments, returned as NumPy arrays.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/convert.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/read_option_scope.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::python {
namespace {

std::string text_of(const py::handle& value) { return py::str(value).cast<std::string>(); }

bool is_sequence(const py::handle& value) {
  return py::isinstance<py::sequence>(value) && !py::isinstance<py::str>(value) &&
         !py::isinstance<py::bytes>(value);
}

// The library's name of an option ("x-var") as Python spells it ("x_var");
// the command's "no-header" is header=False here.
std::string keyword_of(std::string option) {
  if (option == "no-header") return "header";
  return python_keyword(option);
}

// The keywords topkfs.load takes: the library's reader options, and
// image_shape, which both faces apply after reading (checked_image_shape).
std::vector<std::string> reader_keywords() {
  std::vector<std::string> out;
  for (const auto& info : reader_option_infos()) out.push_back(keyword_of(info.name));
  out.emplace_back("image_shape");
  return out;
}

// A keyword that takes True or False (pybind11's own cast would say only
// that it cannot cast, with a hint about a debug build).
bool flag_of(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  throw OptionError(fmt::format("{} takes True or False, not {}", key, text_of(py::repr(value))));
}

// The Python value of keyword `key` as the library takes it; none where
// None means the default (a list of columns, the delimiter: detected; the
// header: detected).
std::optional<ReaderValue> reader_value(const std::string& key, ReaderValueKind kind,
                                        const py::handle& value) {
  if (key == "header") {
    if (value.is_none()) return std::nullopt;
    if (py::isinstance<py::bool_>(value)) return ReaderValue(value.cast<bool>());
    throw OptionError(
        fmt::format("header takes True, False or None (detect), not {}", text_of(py::repr(value))));
  }
  switch (kind) {
    case ReaderValueKind::Texts: {
      if (value.is_none()) return std::nullopt;
      if (!is_sequence(value)) return ReaderValue(text_of(value));
      std::vector<std::string> texts;
      for (const auto& item : value) texts.push_back(text_of(item));
      return ReaderValue(std::move(texts));
    }
    case ReaderValueKind::Switch: return ReaderValue(flag_of(value, key));
    case ReaderValueKind::Count:
      // An int as its digits; anything else as Python shows it, which the
      // library refuses in its words ("not 'abc'", "not True").
      return ReaderValue(py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value)
                             ? text_of(value)
                             : text_of(py::repr(value)));
    case ReaderValueKind::Text:
      if (key == "delimiter" && value.is_none()) return std::nullopt;
      return ReaderValue(text_of(value));
  }
  return std::nullopt;
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
  Dataset data = read_for_python(path, reader_options, ReadPurpose::Inspect);
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
  out["notes"] = for_python(data.notes);
  out["column_levels"] = data.column_levels;  // empty, or per column (empty: numeric)
  out["X"] = move_to_numpy(std::move(data.features));
  return out;
}

}  // namespace

ReadOptions read_options_from(const std::string& path, const py::dict& options,
                              ReadPurpose purpose) {
  const auto& infos = reader_option_infos();
  std::vector<std::pair<std::string, ReaderValue>> given;
  for (const auto& [key_handle, value] : options) {
    const std::string key = text_of(key_handle);
    if (key == "image_shape") continue;
    const auto info = std::find_if(infos.begin(), infos.end(), [&key](const ReaderOptionInfo& i) {
      return keyword_of(i.name) == key;
    });
    if (info == infos.end()) {
      throw py::type_error(fmt::format("unexpected reader option '{}'; the reader options are: {}",
                                       key, fmt::join(reader_keywords(), ", ")));
    }
    if (auto converted = reader_value(key, info->kind, value)) {
      given.emplace_back(info->name, std::move(*converted));
    }
  }
  return parse_read_options(path, given, purpose);
}

namespace {

// The image_shape keyword as text ("" when not given).
}  // namespace

std::string image_shape_option(const py::dict& reader_options) {
  return reader_options.contains("image_shape") ? image_shape_text(reader_options["image_shape"])
                                                : std::string();
}

Dataset read_for_python(const std::string& path, const py::dict& reader_options,
                        ReadPurpose purpose) {
  const ReadOptions options = read_options_from(path, reader_options, purpose);
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
  const ReadOptions read = read_options_from(path, reader_options, ReadPurpose::Select);
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
  out["notes"] = for_python(summary.notes);
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
      "reader_keywords", [] { return reader_keywords(); },
      "The keyword arguments topkfs.load takes.");
}

}  // namespace topkfs::python
