#pragma once
// The evaluation report as text (the table `topkfs evaluate` prints), JSON
// (--output) and CSV (--csv, one row per run), read back and merged
// (`topkfs report`). Formats: docs/evaluate.md.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topkfs/evaluation/evaluation.hpp"

namespace topkfs {

// One row per k and a last row over every k; one column per method, each cell
// "mean ± std" of the protocol's score (stability: Jaccard / Kuncheva), and
// the selection time per method.
std::string report_table(const EvaluationReport& report);

nlohmann::ordered_json report_to_json(const EvaluationReport& report);

// Atomic writes (no partial file on failure).
void write_report_json(const std::string& path, const EvaluationReport& report);
void write_report_csv(const std::string& path, const EvaluationReport& report);

// Reads a report written by write_report_json. Throws FileError when the file
// cannot be read, DataError naming the file and the field when it is not a
// report.
EvaluationReport read_report_json(const std::string& path);

// Several reports of the same data, protocol and k (say, methods run at
// different times) as one: methods in report order, a method present in
// several taken from the last. Throws DataError naming the report that does
// not match the first.
EvaluationReport merge_reports(const std::vector<EvaluationReport>& reports,
                               const std::vector<std::string>& names);

}  // namespace topkfs
