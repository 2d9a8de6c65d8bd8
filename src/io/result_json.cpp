#include "topkfs/io/result_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "topkfs/core/error.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/json_field.hpp"
#include "topkfs/version.hpp"

namespace topkfs {
namespace {

using nlohmann::json;

const char* const kKind = "a topkfs selection result";

const json& require(const json& object, const char* field, const std::string& where) {
  if (!object.is_object() || !object.contains(field)) {
    throw DataError(fmt::format("{}: not {}: field '{}' is missing", where, kKind, field));
  }
  return object.at(field);
}

template <typename T>
T field_as(const json& object, const char* field, const std::string& where) {
  return json_field::get<T>(object, field, where, kKind);
}

}  // namespace

json to_json(const SelectionResult& result) {
  json history = json::array();
  for (const auto& record : result.history) {
    json entry = {{"epoch", record.epoch}, {"loss", record.loss}, {"seconds", record.seconds}};
    if (record.val_loss) entry["val_loss"] = *record.val_loss;
    history.push_back(std::move(entry));
  }
  json out{
      {"format", kResultFormatVersion},
      {"version", kVersion},
      {"method", result.method},
      {"k", result.k},
      {"selected", result.selected},
      {"selected_names", result.selected_names},
      {"ranking", result.ranking},
      {"scores", result.scores},
      {"history", history},
      {"fit_seconds", result.fit_seconds},
      {"options", result.options},
      {"data",
       {{"path", result.data.path},
        {"format", result.data.format},
        {"rows", result.data.rows},
        {"columns", result.data.columns},
        {"target_kind", result.data.target_kind},
        {"feature_names", result.data.feature_names}}},
      {"notes", result.notes},
      {"warnings", result.warnings},
  };
  if (!result.frequency.empty()) out["frequency"] = result.frequency;
  if (result.downstream) {
    const DownstreamResult& d = *result.downstream;
    out["downstream"] = {{"model", d.model},
                         {"metric", d.metric},
                         {"value", d.value},
                         {"train_rows", d.train_rows},
                         {"test_rows", d.test_rows}};
    if (d.rmse) out["downstream"]["rmse"] = *d.rmse;
  }
  if (result.encoding) out["encoding"] = to_json(*result.encoding);
  if (result.automatic) out["auto"] = *result.automatic;
  if (result.groups) {
    out["groups"] = {{"names", result.groups->names}, {"columns", result.groups->columns}};
    out["selected_columns"] = result.selected_columns();
  }
  return out;
}

namespace {

// Groups that name every column of the data at most once, and are named.
void check_groups(const FeatureGroups& groups, std::int64_t columns, const std::string& where) {
  if (groups.names.size() != groups.columns.size() || groups.names.empty()) {
    throw DataError(fmt::format("{}: 'groups' holds {} names for {} column lists", where,
                                groups.names.size(), groups.columns.size()));
  }
  std::vector<char> seen(static_cast<std::size_t>(std::max<std::int64_t>(columns, 0)), 0);
  for (std::size_t g = 0; g < groups.columns.size(); ++g) {
    for (auto column : groups.columns[g]) {
      if (column < 0 || column >= columns || seen[static_cast<std::size_t>(column)]) {
        throw DataError(
            fmt::format("{}: group '{}' holds column {}, outside 0..{} or in another group as well",
                        where, groups.names[g], column, columns - 1));
      }
      seen[static_cast<std::size_t>(column)] = 1;
    }
  }
}

}  // namespace

namespace {

// The format names what the file is; a later format may mean its fields
// differently, so only this one is read.
void check_format(const json& object, const std::string& where) {
  const auto format = field_as<std::string>(object, "format", where);
  if (format != kResultFormatVersion) {
    const bool ours = format.rfind("topkfs-selection/", 0) == 0;
    throw DataError(fmt::format(
        "{}: the format is '{}', {}; this topkfs {} reads '{}'", where, format.substr(0, 60),
        ours ? "another version of the selection format" : "not a topkfs selection result",
        kVersion, kResultFormatVersion));
  }
  // Files written before the version was recorded have none.
  if (object.contains("version")) field_as<std::string>(object, "version", where);
}

// The ranking orders every item once and the scores give each a value:
// what a hand-edited or truncated file breaks first.
void check_ranking(const SelectionResult& result, std::int64_t items, const char* item,
                   const std::string& where) {
  if (static_cast<std::int64_t>(result.ranking.size()) != items ||
      static_cast<std::int64_t>(result.scores.size()) != items) {
    throw DataError(fmt::format("{}: 'ranking' and 'scores' hold {} and {} values for {} {}s",
                                where, result.ranking.size(), result.scores.size(), items, item));
  }
  std::vector<char> ranked(static_cast<std::size_t>(items), 0);
  for (auto index : result.ranking) {
    if (index < 0 || index >= items || ranked[static_cast<std::size_t>(index)]++ != 0) {
      throw DataError(fmt::format("{}: 'ranking' is not an order of the {} {}s (holds {})", where,
                                  items, item, index));
    }
  }
}

}  // namespace

SelectionResult selection_from_json(const json& object, const std::string& where) {
  SelectionResult result;
  check_format(object, where);
  result.method = field_as<std::string>(object, "method", where);
  result.k = field_as<int>(object, "k", where);
  result.selected = field_as<std::vector<std::int64_t>>(object, "selected", where);
  result.selected_names = field_as<std::vector<std::string>>(object, "selected_names", where);
  result.ranking = field_as<std::vector<std::int64_t>>(object, "ranking", where);
  result.scores = field_as<std::vector<double>>(object, "scores", where);
  result.fit_seconds = field_as<double>(object, "fit_seconds", where);
  result.options = require(object, "options", where);
  for (const auto& entry : require(object, "history", where)) {
    EpochRecord record;
    record.epoch = field_as<int>(entry, "epoch", where);
    record.loss = field_as<double>(entry, "loss", where);
    record.seconds = field_as<double>(entry, "seconds", where);
    if (entry.contains("val_loss")) record.val_loss = field_as<double>(entry, "val_loss", where);
    result.history.push_back(record);
  }
  const json& data = require(object, "data", where);
  result.data.path = field_as<std::string>(data, "path", where);
  result.data.format = field_as<std::string>(data, "format", where);
  result.data.rows = field_as<std::int64_t>(data, "rows", where);
  result.data.columns = field_as<std::int64_t>(data, "columns", where);
  result.data.target_kind = field_as<std::string>(data, "target_kind", where);
  if (data.contains("feature_names")) {
    result.data.feature_names = field_as<std::vector<std::string>>(data, "feature_names", where);
  }
  if (object.contains("frequency")) {
    result.frequency = field_as<std::vector<double>>(object, "frequency", where);
  }
  if (object.contains("notes"))
    result.notes = field_as<std::vector<std::string>>(object, "notes", where);
  if (object.contains("warnings")) {
    result.warnings = field_as<std::vector<std::string>>(object, "warnings", where);
  }

  if (object.contains("downstream")) {
    const json& d = object.at("downstream");
    DownstreamResult downstream;
    downstream.model = field_as<std::string>(d, "model", where);
    downstream.metric = field_as<std::string>(d, "metric", where);
    downstream.value = field_as<double>(d, "value", where);
    downstream.train_rows = field_as<std::int64_t>(d, "train_rows", where);
    downstream.test_rows = field_as<std::int64_t>(d, "test_rows", where);
    if (d.contains("rmse")) downstream.rmse = field_as<double>(d, "rmse", where);
    result.downstream = downstream;
  }
  if (object.contains("auto")) result.automatic = object.at("auto");
  if (object.contains("groups")) {
    const json& groups = object.at("groups");
    FeatureGroups read;
    read.names = field_as<std::vector<std::string>>(groups, "names", where);
    read.columns = field_as<std::vector<std::vector<std::int64_t>>>(groups, "columns", where);
    check_groups(read, result.data.columns, where);
    result.groups = std::move(read);
  }
  if (object.contains("encoding")) {
    result.encoding = table_encoding_from_json(object.at("encoding"), where);
    if (static_cast<std::int64_t>(result.encoding->columns.size()) != result.data.columns) {
      throw DataError(fmt::format("{}: the encoding describes {} columns for {} columns", where,
                                  result.encoding->columns.size(), result.data.columns));
    }
  }

  // Consistency: a hand-edited or truncated file is refused here rather than
  // producing a wrong reduced dataset later.
  if (result.k < 1) {
    throw DataError(
        fmt::format("{}: k = {}; a selection holds at least one column", where, result.k));
  }
  if (static_cast<std::size_t>(result.k) != result.selected.size()) {
    throw DataError(fmt::format("{}: k = {} but 'selected' holds {} columns", where, result.k,
                                result.selected.size()));
  }
  if (result.selected_names.size() != result.selected.size()) {
    throw DataError(fmt::format("{}: 'selected_names' and 'selected' differ in length", where));
  }
  // Indices are of the groups when the selection has groups.
  const std::int64_t items =
      result.groups ? static_cast<std::int64_t>(result.groups->names.size()) : result.data.columns;
  const char* item = result.groups ? "group" : "column";
  check_ranking(result, items, item, where);
  const auto& names = result.data.feature_names;
  if (!names.empty() && static_cast<std::int64_t>(names.size()) != result.data.columns) {
    throw DataError(fmt::format("{}: 'data.feature_names' holds {} names for {} columns", where,
                                names.size(), result.data.columns));
  }
  if (!result.frequency.empty() && static_cast<std::int64_t>(result.frequency.size()) != items) {
    throw DataError(fmt::format("{}: 'frequency' holds {} values for {} {}s", where,
                                result.frequency.size(), items, item));
  }
  std::set<std::int64_t> seen;
  for (auto column : result.selected) {
    if (column < 0 || column >= items) {
      throw DataError(
          fmt::format("{}: selected {} {} is outside 0..{}", where, item, column, items - 1));
    }
    if (!seen.insert(column).second) {
      throw DataError(fmt::format("{}: {} {} is selected twice", where, item, column));
    }
  }
  // Each selected name is its column's (or group's) name, where recorded.
  const auto& item_names = result.groups ? result.groups->names : names;
  for (std::size_t j = 0; j < result.selected.size() && !item_names.empty(); ++j) {
    const std::string& recorded = item_names[static_cast<std::size_t>(result.selected[j])];
    if (result.selected_names[j] != recorded) {
      throw DataError(
          fmt::format("{}: selected {} {} is named '{}' in 'selected_names' but '{}' "
                      "in the data's names",
                      where, item, result.selected[j], result.selected_names[j], recorded));
    }
  }
  return result;
}

std::string to_json_text(const SelectionResult& result) {
  // nlohmann::json sorts keys; people read these files, so the fields come in
  // the order of docs/result-format.md instead.
  const nlohmann::json sorted = to_json(result);
  nlohmann::ordered_json ordered;
  for (const char* key :
       {"format",         "version",          "method",   "k",         "selected",
        "selected_names", "ranking",          "scores",   "frequency", "history",
        "fit_seconds",    "downstream",       "options",  "auto",      "data",
        "groups",         "selected_columns", "encoding", "notes",     "warnings"}) {
    if (sorted.contains(key)) ordered[key] = sorted.at(key);
  }
  return json_field::indented_text(ordered) + "\n";
}

void write_selection(const std::string& path, const SelectionResult& result) {
  write_file_atomically(path, to_json_text(result));
}

SelectionResult read_selection(const std::string& path) {
  return selection_from_json(json_field::parse(read_file_bytes(path), path), path);
}

}  // namespace topkfs
