// `topkfs evaluate DATA --method M[,M2...] --k 10,20,30,40,50`: selection and
// downstream scoring for every method, k and seed (the paper's protocols),
// a table on stdout, the report as JSON/CSV and the pictures.
#include <fmt/format.h>

#include <algorithm>

#include <iostream>
#include <memory>
#include <optional>

#include "auto_flags.hpp"
#include "comma_lists.hpp"
#include "command_spelling.hpp"
#include "commands.hpp"
#include "method_flags.hpp"
#include "output_flags.hpp"
#include "progress_bar.hpp"
#include "reader_flags.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/evaluation/report_io.hpp"
#include "topkfs/evaluation/report_pictures.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/json_field.hpp"
#include "topkfs/select/option_table.hpp"

namespace topkfs::cli {
namespace {

struct EvaluateFlags {
  ReaderFlags data;
  MethodFlags method;
  std::string ks = "10,20,30,40,50";
  AutoFlags automatic;
  std::optional<int> seeds;  // unset: the protocol's default
  std::string protocol = "auto";
  std::string split = "predefined";
  double test_size = 0.2;
  std::optional<std::uint64_t> model_seed;
  bool vary_model_seed = false;
  int trees = 50;
  OutputFlags out;
  std::string csv;
  std::string plot;
  std::string frequency_map;
};

// --seed and --threads are method options in the tables; here --seed is the
// first run's seed and --threads also sizes the downstream trees.
EvaluationOptions to_options(const EvaluateFlags& flags) {
  EvaluationOptions options;
  options.methods = comma_list("--method", {flags.method.name});
  // Parsed as the method options' lists are ("1,,2" and "0x2" are refused),
  // with auto (chosen in every run: --k-max, --k-folds, --k-rule) read as
  // kAutoK in its place.
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const auto comma = flags.ks.find(',', start);
    items.push_back(flags.ks.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::string numbers;
  for (std::size_t i = 0; i < items.size(); ++i) {
    numbers += (i > 0 ? "," : "") + (items[i] == "auto" ? std::to_string(kAutoK) : items[i]);
  }
  option_parsing::parse("k", numbers, options.ks);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i] != "auto" && options.ks[i] < 1) {
      throw OptionError(
          fmt::format("--k: every k must be at least 1 (or auto), got {}", options.ks[i]));
    }
  }
  AutoOptions automatic;
  apply_auto_flags(flags.automatic, automatic);
  options.k_max = automatic.k_max;
  options.k_folds = automatic.folds;
  options.k_rule = automatic.rule;
  options.auto_candidates = candidate_list(flags.automatic);
  options.protocol = parse_protocol(flags.protocol);
  options.seeds = flags.seeds;
  options.split = parse_split_mode(flags.split);
  options.test_size = flags.test_size;
  options.model_seed = flags.model_seed;
  options.vary_model_seed = flags.vary_model_seed;
  options.downstream_trees = flags.trees;
  options.method_options = flags.method.values;
  if (const auto seed = options.method_options.find("seed"); seed != options.method_options.end()) {
    option_parsing::parse("seed", seed->second, options.seed);
    options.method_options.erase(seed);
  }
  if (const auto threads = options.method_options.find("threads");
      threads != options.method_options.end()) {
    option_parsing::parse("threads", threads->second, options.threads);
  }
  options.validate();
  return options;
}

EvaluationCallbacks make_grid_callbacks(ProgressBar& bar, bool quiet) {
  EvaluationCallbacks callbacks;
  callbacks.fit = make_callbacks(bar, quiet);
  if (!quiet) {
    callbacks.step = [&bar](const GridStep& step) {
      bar.finish();
      fmt::print(
          stderr, "[{}/{}] {} {} run {}{}\n", step.done + 1, step.total, step.method,
          step.k >= 0 ? "k=" + k_label(step.k) : std::string("(one fit for every k)"), step.run + 1,
          step.done > 0 ? fmt::format(", {:.0f} s elapsed, ~{:.0f} s left", step.elapsed_seconds,
                                      step.elapsed_seconds * (step.total - step.done) / step.done)
                        : std::string());
    };
  }
  return callbacks;
}

// "freq.png" for one method, "freq-dnn-top.png" for each of several.
std::string per_method_path(const std::string& path, const std::string& method, bool several) {
  if (!several) return path;
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  const bool has_extension =
      dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return has_extension ? path.substr(0, dot) + "-" + method + path.substr(dot)
                       : path + "-" + method;
}

// Checks that the pictures asked for can be drawn before hours of fitting.
void check_pictures(const EvaluateFlags& flags, const EvaluationOptions& options,
                    const Dataset& data) {
  check_picture_data(flags.out, flags.data, data);
  if (!flags.frequency_map.empty() &&
      resolve_protocol(options.protocol, data) != Protocol::Stability) {
    throw OptionError(
        "--frequency-map shows the stability protocol's runs: add --protocol stability");
  }
}

void write_pictures(const EvaluateFlags& flags, const EvaluationReport& report,
                    const Dataset& data) {
  if (!flags.plot.empty())
    write_png(flags.plot, draw_score_curve(report, data_short_name(data.source)));
  if (!flags.out.picture.empty())
    write_png(flags.out.picture, draw_method_selections(data, report));
  if (!flags.frequency_map.empty()) {
    for (const auto& method : report.methods) {
      write_png(per_method_path(flags.frequency_map, method.method, report.methods.size() > 1),
                draw_method_frequency(data, report, method));
    }
  }
}

// Every file the command may write, with the flag that names it: a frequency
// map per method when there are several.
std::vector<NamedPath> output_paths(const EvaluateFlags& flags,
                                    const std::vector<std::string>& methods) {
  std::vector<NamedPath> outputs = {{"--output", flags.out.output},
                                    {"--csv", flags.csv},
                                    {"--plot", flags.plot},
                                    {"--picture", flags.out.picture}};
  if (!flags.frequency_map.empty()) {
    for (const auto& method : methods) {
      outputs.push_back(
          {"--frequency-map", per_method_path(flags.frequency_map, method, methods.size() > 1)});
    }
  }
  return outputs;
}

int run(const EvaluateFlags& flags) {
  const EvaluationOptions options = to_options(flags);
  check_output_paths(output_paths(flags, options.methods), input_paths(flags.data));
  const Dataset data = load_dataset(flags.data, flags.data.to_options());
  check_pictures(flags, options, data);

  ProgressBar bar(!flags.out.quiet);
  EvaluationReport report =
      evaluate_methods(data, options, make_grid_callbacks(bar, flags.out.quiet));
  bar.finish();
  spell_for_command_line(report);

  OutputGroup outputs;  // every output or none
  if (!flags.out.output.empty()) write_report_json(flags.out.output, report);
  if (!flags.csv.empty()) write_report_csv(flags.csv, report);
  write_pictures(flags, report, data);
  outputs.commit();
  if (flags.out.json) {
    std::cout << json_field::indented_text(report_to_json(report)) << "\n";
  } else {
    std::cout << report_table(report);
    for (const auto& note : report.notes) std::cout << "note: " << note << "\n";
  }
  return 0;
}

}  // namespace

std::string data_short_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Command add_evaluate_command(CLI::App& app) {
  auto flags = std::make_shared<EvaluateFlags>();
  auto* command = app.add_subcommand(
      "evaluate", "Score methods by what a downstream model does with their selections");
  add_reader_flags(*command, flags->data);
  add_groups_flag(*command, flags->data);
  add_weight_flags(*command, flags->data);
  command
      ->add_option("--k", flags->ks,
                   "Numbers of features to select, comma-separated; auto: chosen in every run "
                   "on its training rows (a validation curve over 1..--k-max)")
      ->capture_default_str();
  add_auto_flags(*command, flags->automatic);
  add_method_flags(*command, flags->method);
  auto* grid = command->add_option_group("Protocol", "What is measured and on which rows");
  grid->add_option("--protocol", flags->protocol,
                   "accuracy (ExtraTrees on the selected columns, test accuracy %; classes), "
                   "mae (least squares, test MAE; real targets), detection (noise columns "
                   "appended, F1 % of finding the originals), stability (pairwise Jaccard and "
                   "Kuncheva index over random splits); auto: accuracy or mae by the target")
      ->capture_default_str();
  grid->add_option("--seeds", flags->seeds,
                   "Runs per method and k, seeds --seed, --seed+1, ... (default 1; stability 10)");
  grid->add_option("--split", flags->split,
                   "predefined: the data's own train/test split where it has one (MNIST), else "
                   "a random stratified split per run; random: always a random split per run")
      ->capture_default_str();
  grid->add_option("--test-size", flags->test_size, "Test fraction of random splits")
      ->capture_default_str();
  CLI::Option* model_seed =
      grid->add_option("--model-seed", flags->model_seed,
                       "Give every run's method this seed, so that only the split (and the trees) "
                       "change between runs; default: each run's seed, but --seed for stability")
          ->check(non_negative_integer());
  grid->add_flag("--vary-model-seed", flags->vary_model_seed,
                 "Stability: change the method's seed with each split (default: the split "
                 "alone changes)")
      ->excludes(model_seed);
  grid->add_option("--trees", flags->trees, "Trees of the downstream ExtraTrees")
      ->capture_default_str();
  OutputHelp help;
  help.output = "Write the report as JSON: summaries and every run (docs/evaluate.md)";
  help.picture =
      "Image data: write a PNG with each method's selected pixels (first run, largest k) over "
      "the mean image";
  help.json = "Print the report as JSON on stdout instead of the table";
  add_output_flags(*command, flags->out, help, [&flags](CLI::Option_group& out) {
    out.add_option("--csv", flags->csv, "Write one CSV row per run (method, k, seed, score, ...)");
    out.add_option("--plot", flags->plot,
                   "Write a PNG of the score against k, one line per method, with the standard "
                   "deviation over runs as error bars (stability: the Kuncheva index)");
    out.add_option("--frequency-map", flags->frequency_map,
                   "Stability protocol: write a PNG of how often each feature was selected at the "
                   "largest k (an image for image data); one file per method, named "
                   "FILE-METHOD.png, when there are several");
  });
  command->footer(
      "\nExamples:\n"
      "  topkfs evaluate /usr/share/datasets/fashion-mnist --method dnn-top,dfs --k 10,30,50 \\\n"
      "      --plot curve.png --picture pixels.png\n"
      "  topkfs evaluate data.csv --target y --method elastic-net-top,lasso --protocol detection\n"
      "  topkfs evaluate usps.h5 --method dnn-top --protocol stability --k 50 --frequency-map "
      "f.png\n"
      "\nEvery selection learns from the training rows only; the test rows are seen by the\n"
      "downstream model alone. Method options (--epochs, --hidden, ...) apply to every listed\n"
      "method that has them.\n"
      "Exit status: 0 success, 2 usage error, 1 data or runtime error.");
  return {command, [flags] { return run(*flags); }};
}

}  // namespace topkfs::cli
