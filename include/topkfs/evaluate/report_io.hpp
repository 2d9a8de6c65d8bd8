#pragma once
// The evaluation report as text (the table `topkfs evaluate` prints), JSON
// (--output) and CSV (--csv, one row per run). Formats: docs/evaluate.md.
#include <nlohmann/json.hpp>
#include <string>

#include "topkfs/data/dataset.hpp"
#include "topkfs/evaluate/evaluation.hpp"

namespace topkfs {

// One row per k and a last row over every k; one column per method, each cell
// "mean ± std" of the protocol's score (stability: Jaccard / Kuncheva), and
// the selection time per method.
std::string report_table(const EvaluationReport& report);

nlohmann::ordered_json report_to_json(const EvaluationReport& report, const Dataset& data);

// Atomic writes (no partial file on failure).
void write_report_json(const std::string& path, const EvaluationReport& report, const Dataset& data);
void write_report_csv(const std::string& path, const EvaluationReport& report);

}  // namespace topkfs
