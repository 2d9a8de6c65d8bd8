// JSON to Python objects, and Eigen matrices handed to NumPy without a copy.
#include <memory>

#include "bindings.hpp"

namespace topkfs::python {
namespace {

// The array views the matrix's buffer; the capsule deletes the matrix when
// the last view of it goes.
template <typename Matrix>
py::array matrix_to_numpy(Matrix&& matrix) {
  using Scalar = typename std::decay_t<Matrix>::Scalar;
  auto owned = std::make_unique<std::decay_t<Matrix>>(std::move(matrix));
  const auto rows = static_cast<py::ssize_t>(owned->rows());
  const auto cols = static_cast<py::ssize_t>(owned->cols());
  Scalar* data = owned->data();
  py::capsule owner(owned.get(),
                    [](void* pointer) { delete static_cast<std::decay_t<Matrix>*>(pointer); });
  owned.release();
  const auto item = static_cast<py::ssize_t>(sizeof(Scalar));
  return py::array_t<Scalar>({rows, cols}, {cols * item, item}, data, owner);
}

}  // namespace

py::object to_python(const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::null:
    case Type::discarded: return py::none();
    case Type::boolean: return py::bool_(value.get<bool>());
    case Type::number_integer: return py::int_(value.get<std::int64_t>());
    case Type::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case Type::number_float: return py::float_(value.get<double>());
    case Type::string: return py::str(for_python(value.get_ref<const std::string&>()));
    case Type::array: {
      py::list out;
      for (const auto& item : value) out.append(to_python(item));
      return std::move(out);
    }
    case Type::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = to_python(item);
      return std::move(out);
    }
    case Type::binary: break;
  }
  return py::none();
}

py::array move_to_numpy(FeatureMatrix&& matrix) {
  // A mapped file is mapped read-only: NumPy must not offer writes to it.
  const bool mapped = matrix.storage() == RowStorage::Mapped;
  py::array out = matrix_to_numpy(std::move(matrix));
  if (mapped) out.attr("setflags")(py::arg("write") = false);
  return out;
}

py::array move_to_numpy(TargetMatrix&& matrix) { return matrix_to_numpy(std::move(matrix)); }

}  // namespace topkfs::python
