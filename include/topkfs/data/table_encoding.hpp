#pragma once
// The encoding of a mixed-type table for the methods, learned from the rows a
// selection learns from and applied to any rows (docs/data-preparation.md,
// "Mixed-type tables"):
//  - a categorical column becomes one 0/1 column per level seen in those
//    rows (a level they never hold encodes as all zeros), plus a "missing"
//    level when some of them miss the cell;
//  - a numeric column with missing cells in those rows has them filled with
//    the rows' median and gains a 0/1 missing-indicator column (missingness
//    often carries signal); missing cells elsewhere take the same median;
//  - a column missing in every one of those rows is dropped.
// Every column of the table is one group of the encoded columns it gives,
// so that a selection keeps or drops it whole.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct ColumnEncoding {
  std::string name;  // the column as read
  bool categorical = false;
  // Categorical: the levels kept, one encoded column each, in this order;
  // then the "missing" column when missing_level.
  std::vector<std::string> levels;
  bool missing_level = false;
  // Numeric: missing cells take `fill`; `indicator` adds the 0/1 column.
  double fill = 0.0;
  bool indicator = false;
  std::int64_t missing_cells = 0;  // in the rows the encoding was learned from
  bool dropped = false;            // missing in every one of those rows: no column

  std::int64_t width() const;  // encoded columns
};

struct TableEncoding {
  std::vector<ColumnEncoding> columns;  // one per column of the table
  std::int64_t learned_rows = 0;

  std::int64_t encoded_columns() const;
  // The encoded columns of the table's columns `original`, in that order.
  std::vector<std::int64_t> encoded_columns_of(const std::vector<std::int64_t>& original) const;
  // One line for a result's notes: what the encoding did.
  std::string summary() const;
};

// True when `data` holds a categorical column or a missing (NaN) feature
// cell: what a selection must encode first. Data read from the file on
// demand is not scanned (its readers refuse missing cells).
bool needs_encoding(const Dataset& data);

// The encoding of `data` learned from rows `rows` only.
TableEncoding learn_encoding(const Dataset& data, const std::vector<std::int64_t>& rows);

// Every row of `data` encoded: the encoded columns and names, with
// column_group holding each one's table column (group_names: the table's
// column names; a dropped column's group has no column). `data` must have
// the columns the encoding was learned on; a categorical column is matched
// by level name, so new data read with other levels (or as numbers) encodes
// the same. `unseen`, when given, counts the cells whose level the encoding
// does not know (encoded as zeros). Throws DataError naming the column when
// a column learned as numbers holds text.
Dataset encode_table(const Dataset& data, const TableEncoding& encoding,
                     std::int64_t* unseen = nullptr);

// The name a number has as a categorical level: integers plainly ("3", not
// "3.0"), others in the shortest form that reads back the same.
std::string number_level_name(float value);

nlohmann::json to_json(const TableEncoding& encoding);
// Throws DataError naming `where` on a malformed encoding.
TableEncoding table_encoding_from_json(const nlohmann::json& json, const std::string& where);

}  // namespace topkfs
