#include "reader_process_protocol.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "topkfs/core/error.hpp"

namespace topkfs::detail::reader_process {
namespace {

using Json = nlohmann::json;

// CBOR, not JSON text: names and labels keep their bytes when they are not
// UTF-8 (read_dataset reads them as Latin-1 afterwards, as from any
// reader), and NaN and infinite targets keep their values.
std::string encode(const Json& value) {
  const std::vector<std::uint8_t> bytes = Json::to_cbor(value);
  return std::string(bytes.begin(), bytes.end());
}

const char* task_name(TaskHint task) {
  switch (task) {
    case TaskHint::Classification: return "classification";
    case TaskHint::Regression: return "regression";
    case TaskHint::Auto: break;
  }
  return "auto";
}

TaskHint parse_task(const std::string& name) {
  if (name == "classification") return TaskHint::Classification;
  if (name == "regression") return TaskHint::Regression;
  if (name == "auto") return TaskHint::Auto;
  throw OptionError(fmt::format("--task takes auto, classification or regression, not '{}'", name));
}

std::uint64_t parse_count(const std::string& text, const std::string& flag) {
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    throw OptionError(fmt::format("{} takes a whole number, not '{}'", flag, text));
  }
  return value;
}

}  // namespace

std::vector<std::string> arguments(const Request& request) {
  const ReadOptions& options = request.options;
  std::vector<std::string> args = {"--format",
                                   request.format == Format::Mat ? "mat" : "hdf5",
                                   "--memory-bytes",
                                   std::to_string(request.memory_bytes),
                                   "--memory-name",
                                   request.memory_name,
                                   "--x-path",
                                   options.x_path,
                                   "--y-path",
                                   options.y_path,
                                   "--x-var",
                                   options.x_var,
                                   "--y-var",
                                   options.y_var,
                                   "--task",
                                   task_name(options.task),
                                   "--max-auto-classes",
                                   std::to_string(options.max_auto_classes),
                                   "--nan",
                                   to_string(options.nan)};
  if (options.no_target) args.push_back("--no-target");
  if (request.spill) {
    args.push_back("--spill-above");
    args.push_back(std::to_string(request.spill_above_bytes));
  }
  args.push_back("--");
  args.push_back(request.path);
  return args;
}

Request parse_arguments(const std::vector<std::string>& args) {
  Request request;
  ReadOptions& options = request.options;
  std::size_t at = 0;
  const auto value = [&](const std::string& flag) -> const std::string& {
    if (at + 1 >= args.size()) throw OptionError(fmt::format("{} needs a value", flag));
    return args[++at];
  };
  for (; at < args.size(); ++at) {
    const std::string& flag = args[at];
    if (flag == "--") break;
    if (flag == "--format") {
      const std::string& format = value(flag);
      if (format != "hdf5" && format != "mat") {
        throw OptionError(fmt::format("--format takes hdf5 or mat, not '{}'", format));
      }
      request.format = format == "mat" ? Format::Mat : Format::Hdf5;
    } else if (flag == "--memory-bytes") {
      request.memory_bytes = parse_count(value(flag), flag);
    } else if (flag == "--memory-name") {
      request.memory_name = value(flag);
    } else if (flag == "--x-path") {
      options.x_path = value(flag);
    } else if (flag == "--y-path") {
      options.y_path = value(flag);
    } else if (flag == "--x-var") {
      options.x_var = value(flag);
    } else if (flag == "--y-var") {
      options.y_var = value(flag);
    } else if (flag == "--task") {
      options.task = parse_task(value(flag));
    } else if (flag == "--max-auto-classes") {
      options.max_auto_classes = static_cast<int>(parse_count(value(flag), flag));
    } else if (flag == "--nan") {
      options.nan = parse_nan_policy(value(flag));
    } else if (flag == "--no-target") {
      options.no_target = true;
    } else if (flag == "--spill-above") {
      request.spill = true;
      request.spill_above_bytes = parse_count(value(flag), flag);
    } else {
      throw OptionError(fmt::format("unknown argument '{}'", flag));
    }
  }
  if (at + 2 != args.size()) throw OptionError("expected '--' and the file's path last");
  options.format = request.format;
  request.path = args[at + 1];
  return request;
}

std::string describe_dataset(const Dataset& data, const MatrixShape& shape) {
  Json out = {{"rows", shape.rows},
              {"cols", shape.cols},
              {"spilled", shape.spilled},
              {"feature_names", data.feature_names},
              {"target_kind", static_cast<int>(data.target_kind)},
              {"labels", data.labels},
              {"class_names", data.class_names},
              {"target_cols", data.targets.cols()},
              {"targets",
               std::vector<double>(data.targets.data(), data.targets.data() + data.targets.size())},
              {"target_names", data.target_names},
              {"notes", data.notes}};
  if (data.predefined_split) {
    out["train"] = data.predefined_split->train;
    out["test"] = data.predefined_split->test;
  }
  if (data.image_shape) {
    out["image_shape"] = {data.image_shape->height, data.image_shape->width,
                          data.image_shape->channels};
  }
  return encode(out);
}

namespace {

// The answer's fields, decoded; what they say is checked by the caller.
Dataset decode_description(const Json& in, MatrixShape* shape) {
  Dataset data;
  shape->rows = in.at("rows").get<std::int64_t>();
  shape->cols = in.at("cols").get<std::int64_t>();
  shape->spilled = in.at("spilled").get<bool>();
  data.feature_names = in.at("feature_names").get<std::vector<std::string>>();
  const int kind = in.at("target_kind").get<int>();
  if (kind < static_cast<int>(TargetKind::None) || kind > static_cast<int>(TargetKind::Real)) {
    throw std::out_of_range(fmt::format("target kind {}", kind));
  }
  data.target_kind = static_cast<TargetKind>(kind);
  data.labels = in.at("labels").get<std::vector<std::int32_t>>();
  data.class_names = in.at("class_names").get<std::vector<std::string>>();
  for (const auto label : data.labels) {
    if (label < 0 || static_cast<std::size_t>(label) >= data.class_names.size()) {
      throw std::out_of_range(
          fmt::format("label {} of {} classes", label, data.class_names.size()));
    }
  }
  const auto targets = in.at("targets").get<std::vector<double>>();
  const auto target_cols = in.at("target_cols").get<Eigen::Index>();
  if (target_cols < 0 || (target_cols == 0 && !targets.empty()) ||
      (target_cols > 0 && targets.size() % static_cast<std::size_t>(target_cols) != 0)) {
    throw std::out_of_range(
        fmt::format("{} target values in {} columns", targets.size(), target_cols));
  }
  if (target_cols > 0) {
    data.targets = Eigen::Map<const TargetMatrix>(
        targets.data(), static_cast<Eigen::Index>(targets.size()) / target_cols, target_cols);
  }
  data.target_names = in.at("target_names").get<std::vector<std::string>>();
  data.notes = in.at("notes").get<std::vector<std::string>>();
  if (in.contains("train")) {
    data.predefined_split = Split{in.at("train").get<std::vector<std::int64_t>>(),
                                  in.at("test").get<std::vector<std::int64_t>>()};
  }
  if (in.contains("image_shape")) {
    const auto image = in.at("image_shape").get<std::vector<int>>();
    if (image.size() != 3 || image[0] < 1 || image[1] < 1 || image[2] < 1) {
      throw std::out_of_range("an image shape that is not 3 sizes from 1");
    }
    data.image_shape = ImageShape{image[0], image[1], image[2]};
  }
  return data;
}

}  // namespace

Dataset dataset_from_description(const std::string& bytes, MatrixShape* shape,
                                 const std::string& path) {
  // The program is ours, but it has just read a file that may be hostile:
  // its answer is checked as any input is, so that a program libhdf5 led
  // astray cannot make this process map or index beyond what it holds.
  Dataset data;
  try {
    data = decode_description(Json::from_cbor(bytes), shape);
  } catch (const std::exception& e) {
    throw DataError(
        fmt::format("{}: the HDF5 reader program's answer is unreadable ({})", path, e.what()));
  }
  std::uint64_t cells = 0;
  std::uint64_t bytes_needed = 0;
  if (shape->rows < 0 || shape->cols < 0 ||
      __builtin_mul_overflow(static_cast<std::uint64_t>(shape->rows),
                             static_cast<std::uint64_t>(shape->cols), &cells) ||
      __builtin_mul_overflow(cells, std::uint64_t{sizeof(float)}, &bytes_needed)) {
    throw DataError(
        fmt::format("{}: the HDF5 reader program's answer gives an impossible {} x {} "
                    "matrix",
                    path, shape->rows, shape->cols));
  }
  return data;
}

std::string describe_error(const char* kind, const std::string& message) {
  return encode(Json{{"error", kind}, {"message", message}});
}

void rethrow_error(const std::string& bytes, const std::string& path) {
  std::string kind;
  std::string message;
  try {
    const Json in = Json::from_cbor(bytes);
    kind = in.at("error").get<std::string>();
    message = in.at("message").get<std::string>();
  } catch (const nlohmann::json::exception&) {
    kind.clear();
  }
  if (kind == "file") throw FileError(message);
  if (kind == "option") throw OptionError(message);
  if (kind == "data") throw DataError(message);
  throw DataError(fmt::format("{}: the HDF5 reader program ended without an answer", path));
}

}  // namespace topkfs::detail::reader_process
