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

// The Python classes of the library's errors; the module holds them.
struct ErrorTypes {
  py::handle error, file, data, option, training;
};

ErrorTypes& error_types() {
  static ErrorTypes types;
  return types;
}

void raise(py::handle type, const std::exception& error) {
  PyErr_SetString(type.ptr(), for_python(error.what()).c_str());
}

void register_exceptions(py::module_& module) {
  ErrorTypes& types = error_types();
  types.error = py::register_exception<Error>(module, "Error", PyExc_ValueError);
  types.file = py::register_exception<FileError>(module, "FileError", PyExc_OSError);
  types.data = py::register_exception<DataError>(module, "DataError", types.error.ptr());
  types.option = py::register_exception<OptionError>(module, "OptionError", types.error.ptr());
  types.training =
      py::register_exception<TrainingError>(module, "TrainingError", types.error.ptr());
  // The one error-mapping point of the Python face: registered last, so
  // pybind11 tries it first; it spells the message's option references for
  // Python (bindings.hpp: for_python).
  py::register_exception_translator([](std::exception_ptr thrown) {
    if (!thrown) return;
    const ErrorTypes& to = error_types();
    try {
      std::rethrow_exception(thrown);
    } catch (const FileError& error) {
      raise(to.file, error);
    } catch (const DataError& error) {
      raise(to.data, error);
    } catch (const OptionError& error) {
      raise(to.option, error);
    } catch (const TrainingError& error) {
      raise(to.training, error);
    } catch (const Error& error) {
      raise(to.error, error);
    }
  });
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
