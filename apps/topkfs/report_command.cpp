// `topkfs report A.json [B.json ...]`: the table and the plot of evaluation
// reports written earlier, merged when there are several (methods run at
// different times on the same data and protocol).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "output_flags.hpp"
#include "topkfs/evaluation/report_io.hpp"
#include "topkfs/evaluation/report_pictures.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/json_field.hpp"

namespace topkfs::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> reports;
  std::string output;
  std::string csv;
  std::string plot;
  bool json = false;
};

int run(const ReportFlags& flags) {
  std::vector<NamedPath> inputs;
  for (const auto& path : flags.reports) inputs.push_back({"REPORTS", path});
  check_output_paths({{"--output", flags.output}, {"--csv", flags.csv}, {"--plot", flags.plot}},
                     inputs);
  std::vector<EvaluationReport> reports;
  for (const auto& path : flags.reports) reports.push_back(read_report_json(path));
  const EvaluationReport report = merge_reports(reports, flags.reports);
  OutputGroup outputs;  // every output or none
  if (!flags.output.empty()) write_report_json(flags.output, report);
  if (!flags.csv.empty()) write_report_csv(flags.csv, report);
  if (!flags.plot.empty()) {
    write_png(flags.plot, draw_score_curve(report, data_short_name(report.data.path)));
  }
  outputs.commit();
  if (flags.json) {
    std::cout << json_field::indented_text(report_to_json(report)) << "\n";
  } else {
    std::cout << report_table(report);
  }
  return 0;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto flags = std::make_shared<ReportFlags>();
  auto* command = app.add_subcommand(
      "report", "Show (and merge) evaluation reports written by `evaluate --output`");
  command->add_option("reports", flags->reports, "Report files (JSON); several are merged")
      ->required();
  command->add_option("--output,-o", flags->output, "Write the (merged) report as JSON");
  command->add_option("--csv", flags->csv, "Write one CSV row per run");
  command->add_option("--plot", flags->plot, "Write a PNG of the score against k per method");
  command->add_flag("--json", flags->json, "Print the report as JSON instead of the table");
  command->footer(
      "\nReports merge when they share the data, the protocol, the k values, the split and\n"
      "the number of runs; a method in several reports is taken from the last.\n\n"
      "Example:\n"
      "  topkfs evaluate mnist/ --method dnn-top,dfs -o a.json\n"
      "  topkfs evaluate mnist/ --method stg -o b.json\n"
      "  topkfs report a.json b.json --plot mnist.png");
  return {command, [flags] { return run(*flags); }};
}

}  // namespace topkfs::cli
