#include "topkfs/io/table_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "topkfs/core/error.hpp"
#include "topkfs/io/atomic_file.hpp"

namespace topkfs {
namespace {

// Quotes a CSV field when it holds a delimiter, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void write_selected_columns(const std::string& path, const Dataset& data,
                            const std::vector<std::int64_t>& columns) {
  for (auto column : columns) {
    if (column < 0 || column >= data.cols()) {
      throw OptionError(
          fmt::format("column {} is outside the data's 0..{}", column, data.cols() - 1));
    }
  }
  write_file_atomically(path, [&](std::ostream& out) {
    std::string line;
    for (auto column : columns) {
      line += (line.empty() ? "" : ",") +
              csv_field(data.feature_names[static_cast<std::size_t>(column)]);
    }
    for (const auto& name : data.target_names) {
      if (data.target_kind != TargetKind::None) line += "," + csv_field(name);
    }
    out << line << '\n';
    fmt::memory_buffer buffer;
    for (Eigen::Index i = 0; i < data.rows(); ++i) {
      buffer.clear();
      for (std::size_t j = 0; j < columns.size(); ++j) {
        // As read: a categorical cell as its level, a missing cell empty.
        if (j > 0) buffer.push_back(',');
        const float value = data.features(i, columns[j]);
        if (std::isnan(value)) continue;
        if (data.is_categorical(columns[j])) {
          const std::string& level = data.column_levels[static_cast<std::size_t>(columns[j])]
                                                       [static_cast<std::size_t>(value)];
          const std::string field = csv_field(level);
          buffer.append(field.data(), field.data() + field.size());
        } else {
          fmt::format_to(std::back_inserter(buffer), "{}", value);
        }
      }
      if (data.target_kind == TargetKind::Classes) {
        fmt::format_to(std::back_inserter(buffer), ",{}",
                       csv_field(data.class_names[static_cast<std::size_t>(
                           data.labels[static_cast<std::size_t>(i)])]));
      } else if (data.target_kind == TargetKind::Real) {
        for (Eigen::Index j = 0; j < data.targets.cols(); ++j) {
          fmt::format_to(std::back_inserter(buffer), ",{}", data.targets(i, j));
        }
      }
      buffer.push_back('\n');
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    }
  });
}

}  // namespace topkfs
