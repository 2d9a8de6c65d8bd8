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
#include "topkfs/data/row_source.hpp"

namespace topkfs {

struct ColumnEncoding {
  std::string name;  // the column as read
  bool categorical = false;
  // Categorical: the levels kept, one encoded column each, in this order;
  // then the "missing" column when missing_level.
  std::vector<std::string> levels;
  bool missing_level = false;
  // Numeric: missing cells take `fill` (the learned rows' median; 0 when
  // they miss none); `indicator` adds the 0/1 column.
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

// Encodes the rows of a table as `encoding` says, block by block: what
// encode_table does for a whole dataset and `convert` for row blocks.
class TableEncoder {
 public:
  // `levels`: the table's Dataset::column_levels (empty: every column
  // numeric); `source` names it in messages. Throws DataError naming the
  // column when a column learned as numbers holds text.
  TableEncoder(const TableEncoding& encoding, const std::vector<std::vector<std::string>>& levels,
               const std::string& source);

  std::int64_t columns() const { return columns_; }  // encoded columns
  // `rows` rows of the table (row-major cells as read: numbers, level
  // indices, NaN) into rows x columns() encoded cells; `unseen` as
  // encode_table's.
  void encode(const float* raw, std::int64_t rows, float* out,
              std::int64_t* unseen = nullptr) const;
  // Sets the encoded names, column_group and group_names of `out`.
  void describe(Dataset& out) const;

 private:
  struct Plan {
    std::int64_t at = 0;                 // first encoded column
    bool text = false;                   // the table holds the column as level indices
    std::vector<std::int64_t> to_level;  // table level -> encoding level (-1: unseen)
  };
  const TableEncoding& encoding_;
  std::int64_t table_columns_ = 0;
  std::int64_t columns_ = 0;
  std::vector<Plan> plans_;
  std::vector<std::string> names_;
  std::vector<std::int64_t> groups_;
  std::vector<std::string> group_names_;
};

// The encoding learned from every row of `rows` (a table's rows read by
// blocks: two passes, never held whole), `table` giving the names and
// levels. What `convert` writes.
TableEncoding learn_encoding(const RowSource& rows, const Dataset& table);

// True when `encoding` changes nothing: numeric columns without missing cells.
bool is_identity(const TableEncoding& encoding);

// The rows of `raw` encoded by `encoder`, block by block.
class EncodedRows final : public RowSource {
 public:
  EncodedRows(const RowSource& raw, const TableEncoder& encoder);
  std::int64_t row_count() const override { return raw_.row_count(); }
  std::int64_t column_count() const override { return encoder_.columns(); }
  RowStorage storage() const override { return raw_.storage(); }
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override;
  void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                      const RowBlockVisitor& visit) const override;

 private:
  const RowSource& raw_;
  const TableEncoder& encoder_;
};

// The name a number has as a categorical level: integers plainly ("3", not
// "3.0"), others in the shortest form that reads back the same.
std::string number_level_name(float value);

nlohmann::json to_json(const TableEncoding& encoding);
// Throws DataError naming `where` on a malformed encoding.
TableEncoding table_encoding_from_json(const nlohmann::json& json, const std::string& where);

}  // namespace topkfs
