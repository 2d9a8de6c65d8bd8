#pragma once
// Private to the _topkfs module: the pieces module.cpp puts together. The
// package's Python layer (python/topkfs/) is the public face; these functions
// are its thin bridge to the library and do no algorithm work of their own.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_option_scope.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::python {

namespace py = pybind11;

// JSON (a result, a method's option values) as plain Python objects, its
// texts spelled for Python (for_python).
py::object to_python(const nlohmann::json& value);

// The library's name of an option ("w-step") as a keyword ("w_step").
std::string python_keyword(std::string name);
// A library message with its option references (core/option_ref.hpp) in
// Python's spelling: `w_step`, `screen='off'`. Every text the module hands
// to Python goes through it: results (to_python), notes, the log, and the
// exceptions (module.cpp).
std::string for_python(const std::string& message);
std::vector<std::string> for_python(const std::vector<std::string>& messages);

// Moves `matrix` to the heap and returns a NumPy array that owns it: no copy.
py::array move_to_numpy(FeatureMatrix&& matrix);
py::array move_to_numpy(TargetMatrix&& matrix);

// Reader options for reading `path` from the keyword arguments of
// topkfs.load/topkfs.select (the names of the CLI's reader flags with
// underscores), parsed by the library as the command's flags are
// (parse_read_options). Unknown names raise TypeError, bad values OptionError.
ReadOptions read_options_from(const std::string& path, const py::dict& options,
                              ReadPurpose purpose);

// The image_shape keyword ("28x28" or a tuple) as --image-shape's text;
// empty when not given.
std::string image_shape_option(const py::dict& reader_options);

// Reads `path` as `topkfs info` does: the reader options as above, plus
// image_shape as --image-shape.
Dataset read_for_python(const std::string& path, const py::dict& reader_options,
                        ReadPurpose purpose);

void bind_io(py::module_& module);
void bind_selection(py::module_& module);

}  // namespace topkfs::python
