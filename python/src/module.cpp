// _topkfs: the compiled half of the topkfs Python package. The library's
// exceptions arrive as Python exceptions with the C++ messages:
//   FileError                             -> topkfs.FileError (an OSError)
//   DataError, OptionError, TrainingError -> topkfs.DataError, ... (subclasses
//                                            of topkfs.Error, a ValueError)
#include "bindings.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/resource_limits.hpp"
#include "topkfs/version.hpp"

namespace topkfs::python {
namespace {

void register_exceptions(py::module_& module) {
  // pybind11 tries translators newest first, so the base class goes first and
  // catches only what no specific translator took.
  const auto& error = py::register_exception<Error>(module, "Error", PyExc_ValueError);
  py::register_exception<FileError>(module, "FileError", PyExc_OSError);
  py::register_exception<DataError>(module, "DataError", error.ptr());
  py::register_exception<OptionError>(module, "OptionError", error.ptr());
  py::register_exception<TrainingError>(module, "TrainingError", error.ptr());
}

}  // namespace
}  // namespace topkfs::python

PYBIND11_MODULE(_topkfs, module) {
  namespace tp = topkfs::python;
  module.doc() = "The compiled part of topkfs; use the topkfs package instead.";
  module.attr("__version__") = topkfs::kVersion;
  tp::register_exceptions(module);
  // The library reads no environment variable; the package gives it the
  // limits of the environment it is imported in (topkfs/io/resource_limits.hpp),
  // and Python's temporary folder (TMPDIR, TEMP or TMP, else the first
  // writable of /tmp, /var/tmp, ...) for HDF5 rows above the memory budget.
  topkfs::ResourceLimits limits = topkfs::resource_limits_from_environment();
  limits.temporary_folder =
      pybind11::module_::import("tempfile").attr("gettempdir")().cast<std::string>();
  topkfs::set_resource_limits(limits);
  tp::bind_io(module);
  tp::bind_selection(module);
}
