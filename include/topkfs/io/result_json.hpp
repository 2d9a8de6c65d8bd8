#pragma once
// Reading and writing the selection result format (docs/result-format.md).
#include <nlohmann/json.hpp>
#include <string>

#include "topkfs/select/selection_result.hpp"

namespace topkfs {

inline constexpr const char* kResultFormatVersion = "topkfs-selection/1";

nlohmann::json to_json(const SelectionResult& result);

// The result as indented JSON text, fields in the documented order.
std::string to_json_text(const SelectionResult& result);

// Parses and checks a result; `where` names the source in error messages.
// Throws DataError naming the missing or malformed field.
SelectionResult selection_from_json(const nlohmann::json& json, const std::string& where);

// Writes the result to `path` atomically (no half-written file on failure).
void write_selection(const std::string& path, const SelectionResult& result);

// Reads a result file written by write_selection.
SelectionResult read_selection(const std::string& path);

}  // namespace topkfs
