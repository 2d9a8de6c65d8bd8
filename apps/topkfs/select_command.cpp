// `topkfs select DATA --method M --k K`: run one selection method and write
// the result (docs/result-format.md).
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "auto_flags.hpp"
#include "command_spelling.hpp"
#include "commands.hpp"
#include "distributed_flags.hpp"
#include "method_flags.hpp"
#include "output_flags.hpp"
#include "progress_bar.hpp"
#include "reader_flags.hpp"
#include "topkfs/core/cpu_share.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/evaluation/auto_selection.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/result_json.hpp"
#include "topkfs/io/table_writer.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/pictures/chart.hpp"
#include "topkfs/pictures/picture.hpp"
#include "topkfs/scoring/downstream.hpp"
#include "topkfs/select/file_selection.hpp"
#include "topkfs/select/run_selection.hpp"

namespace topkfs::cli {
namespace {

struct SelectFlags {
  ReaderFlags data;
  MethodFlags method;
  std::string k;  // a number, a percentage (parse_k) or auto, read once the data is
  AutoFlags automatic;
  std::string split = "auto";
  double test_size = 0.2;
  std::uint64_t split_seed = 0;
  OutputFlags out;
  std::string output_data;
  std::string save_model;
  std::string frequency_map;
  std::string plot;  // --k auto / --method auto: the validation curves
  bool score = false;
  std::string checkpoint;
  int checkpoint_every = 1;
  bool resume = false;
  DistributedFlags distributed;
};

void print_result(const SelectionResult& result) {
  fmt::print("method      {}\n", result.method);
  fmt::print("k           {}\n", result.k);
  fmt::print("selected    {}\n", fmt::join(result.selected_names, ", "));
  fmt::print("columns     {}\n", fmt::join(result.selected_columns(), ", "));
  if (result.groups) fmt::print("groups      {} of {}\n", result.k, result.groups->names.size());
  if (!result.history.empty()) {
    const auto& last = result.history.back();
    fmt::print("epochs      {} (last loss {:.4f}{})\n", result.history.size(), last.loss,
               last.val_loss ? fmt::format(", validation {:.4f}", *last.val_loss) : "");
  }
  fmt::print("fit time    {:.2f} s\n", result.fit_seconds);
  if (const auto& d = result.downstream) {
    fmt::print("downstream  {} {:.4g} ({}; fitted on {} rows, tested on {} held-out rows)\n",
               d->metric, d->value, d->model, d->train_rows, d->test_rows);
  }
  for (const auto& note : result.notes) fmt::print("note        {}\n", note);
  for (const auto& warning : result.warnings) fmt::print("warning     {}\n", warning);
}

// What every rank must agree on at the rendezvous.
std::string data_description(const Dataset& data) {
  return fmt::format(
      "{} rows x {} columns, target {}{}", data.rows(), data.cols(), to_string(data.target_kind),
      data.target_kind == TargetKind::Classes ? fmt::format(" ({} classes)", data.num_classes())
                                              : "");
}

int fit_and_write(const SelectFlags& flags, Selector& selector, ProcessRanks* ranks);

SelectionSplitOptions split_options(const SelectFlags& flags) {
  SelectionSplitOptions split;
  split.rows = parse_selection_rows(flags.split);
  split.test_size = flags.test_size;
  split.seed = flags.split_seed;
  return split;
}
int write_outputs(const SelectFlags& flags, const Dataset& data,
                  const std::vector<std::int64_t>& learned_rows, SelectionResult& result,
                  const Selector* selector);
int select_automatically(const SelectFlags& flags);

// Per column of the table: its group's frequency when groups were selected.
std::vector<double> column_frequency(const SelectionResult& result) {
  if (!result.groups) return result.frequency;
  std::vector<double> out(result.data.feature_names.size(), 0.0);
  for (std::size_t g = 0; g < result.groups->columns.size(); ++g) {
    for (auto column : result.groups->columns[g]) {
      out[static_cast<std::size_t>(column)] = result.frequency[g];
    }
  }
  return out;
}

// The ranks on one machine (LOCAL_WORLD_SIZE, which torchrun and --nproc
// set) share its cores: by default each would take every free core, and N
// ranks would run N threads a core. A rank without --threads takes its share
// of the usable cores, no more than are free.
void share_local_cores(const MethodFlags& method, Selector& selector) {
  if (method.values.count("threads") > 0 || !selector.has_option("threads")) return;
  const char* local = std::getenv("LOCAL_WORLD_SIZE");
  const int ranks = local ? std::atoi(local) : 0;
  if (ranks < 2) return;
  selector.set_option("threads",
                      std::to_string(std::max(1, std::min(free_cores(), usable_cores() / ranks))));
}

int run(const SelectFlags& flags) {
  // --candidates without --method auto is refused by the rule the library
  // applies (candidate_names), as Python's candidates= is.
  candidate_names(flags.method.name, candidate_list(flags.automatic));
  if (flags.k == "auto" || flags.method.name == "auto") return select_automatically(flags);
  if (!flags.plot.empty()) {
    throw OptionError("--plot draws the validation curves of --k auto or --method auto");
  }
  auto selector = make_selector(flags.method.name);
  flags.method.apply(*selector);
  selector->check_options();  // bad options fail before the data is read
  const DistributedRole role = distributed_role(flags.distributed);
  if (role.kind != DistributedRole::Alone && !selector->data_parallel()) {
    throw OptionError(fmt::format(
        "{} does not train data-parallel (--nproc, --rank, WORLD_SIZE): the neural methods and "
        "the linear ones do",
        selector->name()));
  }
  if (role.kind == DistributedRole::Launcher) return launch_local_ranks(flags.distributed);
  if (role.kind == DistributedRole::Alone) return fit_and_write(flags, *selector, nullptr);
  share_local_cores(flags.method, *selector);
  const auto ranks = ProcessRanks::join(role.rendezvous);
  try {
    return fit_and_write(flags, *selector, ranks.get());
  } catch (const std::exception& error) {
    ranks->announce_failure(error.what());
    throw;
  }
}

int fit_and_write(const SelectFlags& flags, Selector& selector_ref, ProcessRanks* ranks) {
  Selector* selector = &selector_ref;
  // Every rank computes the same result; rank 0 alone prints and writes it.
  const bool writer = !ranks || ranks->rank() == 0;
  if (!flags.frequency_map.empty() && selector->options_json().value("restarts", 1) < 2) {
    throw OptionError(
        "--frequency-map shows how often restarts chose each feature: add --restarts 2 or more "
        "(dnn-top and dfs)");
  }
  check_output_paths({{"--output", flags.out.output},
                      {"--output-data", flags.output_data},
                      {"--picture", flags.out.picture},
                      {"--frequency-map", flags.frequency_map},
                      {"--save-model", flags.save_model},
                      {"--checkpoint", flags.checkpoint}},
                     input_paths(flags.data));
  // The library's pipeline from the file (select/file_selection.hpp), which
  // Python's topkfs.select runs too; the command adds its data flags, its
  // ranks and its outputs.
  FileSelectionRequest request;
  request.path = flags.data.path;
  request.read = flags.data.to_options();
  if (ranks) {
    request.read.shard_rank = ranks->rank();
    request.read.shard_count = ranks->size();
  }
  request.image_shape = flags.data.image_shape;
  request.selector = selector;
  request.k = flags.k;
  request.split = split_options(flags);
  request.checkpoint = flags.checkpoint;
  request.checkpoint_every = flags.checkpoint_every;
  request.resume = flags.resume;
  // The downstream score, the reduced data and padded images need the whole matrix.
  request.whole_matrix =
      flags.score || !flags.output_data.empty() || !flags.data.pad_images.empty();
  request.prepare = [&flags](Dataset& data) { apply_data_flags(flags.data, data); };
  request.check = [&flags, ranks](const Dataset& data) {
    check_picture_data(flags.out, flags.data, data);
    if (ranks) ranks->agree_on_data(data_description(data));
  };
  FitCallbacks& callbacks = request.callbacks;
  if (ranks) callbacks.ranks = ranks;

  const bool quiet = flags.out.quiet || !writer;
  ProgressBar bar(!quiet);
  const FitCallbacks reports = make_callbacks(bar, quiet);
  // A neural data-parallel fit reports how long its steps waited for the
  // ranks' sums; the last report holds the mean over the fit.
  std::optional<double> sum_wait_ms;
  callbacks.progress = [&sum_wait_ms, &reports](const Progress& p) {
    if (p.sum_wait_ms) sum_wait_ms = p.sum_wait_ms;
    reports.report(p);
  };
  callbacks.log = reports.log;
  FileSelection selection = select_from_file(request);
  bar.finish();
  SelectionResult& result = selection.result;
  if (!writer) return 0;
  if (ranks) {
    result.options["world_size"] = ranks->size();
    if (sum_wait_ms) {
      result.options["sum_wait_ms_per_step"] = *sum_wait_ms;
      result.notes.push_back(fmt::format(
          "data-parallel: a training step waited {:.3f} ms on rank 0 for the sum of the gradients "
          "over the ranks (on average; the part of the sums the backward pass did not hide, the "
          "wait for the slowest rank included)",
          *sum_wait_ms));
    }
    result.notes.push_back(fmt::format(
        "data-parallel over {} ranks: {} sums over the ranks took {:.3f} s on rank 0 ({:.3f} ms "
        "each)",
        ranks->size(), ranks->sum_calls(), ranks->sum_seconds(),
        1e3 * ranks->sum_seconds() / std::max(1L, ranks->sum_calls())));
  }
  return write_outputs(flags, selection.data, selection.learned_rows, result, selector);
}

int write_outputs(const SelectFlags& flags, const Dataset& data,
                  const std::vector<std::int64_t>& learned_rows, SelectionResult& result,
                  const Selector* selector) {
  spell_for_command_line(result);
  if (flags.score) {
    DownstreamOptions downstream;
    if (selector && selector->has_option("seed"))
      downstream.seed = selector->options_json().value("seed", 0ULL);
    result.downstream = score_held_out(data, learned_rows, result, downstream);
  }

  // Every output or none: a failing picture must not leave a new JSON.
  OutputGroup outputs;
  if (!flags.save_model.empty()) selector->save_model(flags.save_model);
  if (!flags.out.output.empty()) write_selection(flags.out.output, result);
  if (!flags.output_data.empty()) {
    write_selected_columns(flags.output_data, data, result.selected_columns());
  }
  if (!flags.out.picture.empty()) {
    write_png(flags.out.picture, draw_selection(data, learned_rows, result.selected_columns()));
  }
  if (!flags.plot.empty()) {
    write_png(flags.plot, draw_auto_curves(*result.automatic, flags.data.path));
  }
  if (!flags.frequency_map.empty()) {
    const std::string title =
        fmt::format("{}: how often each feature was chosen ({} fits, k={})", result.method,
                    selector->options_json().value("restarts", 1), result.k);
    write_png(flags.frequency_map,
              draw_frequency_map(frequency_map_of(data, column_frequency(result), title)));
  }
  outputs.commit();
  if (flags.out.json) {
    std::cout << to_json_text(result);
  } else {
    print_result(result);
  }
  return 0;
}

// --k auto, --method auto (evaluation/auto_selection.hpp): the candidates'
// validation fits on the training rows, then the chosen one's fit.
int select_automatically(const SelectFlags& flags) {
  if (distributed_role(flags.distributed).kind != DistributedRole::Alone) {
    throw OptionError("--k auto and --method auto train in one process: leave out --nproc/--rank");
  }
  for (const auto& [flag, given] :
       {std::pair<const char*, bool>{"--checkpoint", !flags.checkpoint.empty()},
        {"--resume", flags.resume},
        {"--save-model", !flags.save_model.empty()},
        {"--frequency-map", !flags.frequency_map.empty()}}) {
    if (given) {
      throw OptionError(fmt::format(
          "{} is for one method with a fixed k; --k auto and --method auto fit several", flag));
    }
  }
  const std::vector<std::pair<std::string, std::string>> given(flags.method.values.begin(),
                                                               flags.method.values.end());
  const std::vector<SelectorFactory> candidates = candidate_factories(
      candidate_names(flags.method.name, candidate_list(flags.automatic)), given);
  AutoOptions options;
  options.auto_k = flags.k == "auto";
  if (!options.auto_k) check_k_text(flags.k);
  apply_auto_flags(flags.automatic, options);
  options.seed = flags.split_seed;
  check_output_paths({{"--output", flags.out.output},
                      {"--output-data", flags.output_data},
                      {"--picture", flags.out.picture},
                      {"--plot", flags.plot}},
                     input_paths(flags.data));
  const Dataset data = load_dataset(flags.data, flags.data.to_options());
  if (!options.auto_k) options.k = parse_k(flags.k, data.group_count(), flags.data.path);
  check_picture_data(flags.out, flags.data, data);
  const SelectionSplitOptions split = split_options(flags);
  std::string note;
  const std::vector<std::int64_t> rows = selection_rows(data, split, note);
  ProgressBar bar(!flags.out.quiet);
  const FitCallbacks callbacks = make_callbacks(bar, flags.out.quiet);
  SelectionResult result = run_auto_selection(data, candidates, rows, options, callbacks);
  bar.finish();
  describe_selection(result, data, rows.size(), split, note);
  return write_outputs(flags, data, rows, result, nullptr);
}

}  // namespace

Command add_select_command(CLI::App& app) {
  auto flags = std::make_shared<SelectFlags>();
  auto* command =
      app.add_subcommand("select", "Select the k features that best serve a learning model");
  add_reader_flags(*command, flags->data);
  add_groups_flag(*command, flags->data);
  add_weight_flags(*command, flags->data);
  command
      ->add_option("--k", flags->k,
                   "Number of features to select (1..columns; with --groups, of groups), a "
                   "percentage of them (e.g. 10%), or auto: chosen on the training rows from a "
                   "validation curve over 1..--k-max")
      ->required();
  add_auto_flags(*command, flags->automatic);
  add_method_flags(*command, flags->method);
  auto* rows = command->add_option_group("Rows", "Which rows the method learns from");
  rows->add_option("--split", flags->split,
                   "auto: the predefined training split where the data has one (MNIST, USPS), "
                   "else every row; predefined; random (a stratified split, --test-size held "
                   "out); none (every row)")
      ->capture_default_str();
  rows->add_option("--test-size", flags->test_size, "Test fraction for --split random")
      ->capture_default_str();
  rows->add_option("--split-seed", flags->split_seed, "Seed of --split random")
      ->check(non_negative_integer())
      ->capture_default_str();
  OutputHelp help;
  help.output = "Write the result as JSON (docs/result-format.md) to this file";
  help.picture =
      "Image data: write a PNG of the selected pixels (red, best brightest) over the mean "
      "training image";
  help.json = "Print the result as JSON on stdout";
  add_output_flags(*command, flags->out, help, [&flags](CLI::Option_group& out) {
    out.add_option("--output-data", flags->output_data,
                   "Write the data reduced to the selected columns (and the target) as CSV");
    out.add_option("--save-model", flags->save_model,
                   "Save the trained model (neural methods: a libtorch archive of every parameter "
                   "with the options as metadata)");
    out.add_option("--frequency-map", flags->frequency_map,
                   "With --restarts: write a PNG of how often each feature was chosen (image "
                   "data: a heat map of the pixels; other data: bars of the most frequent)");
    out.add_option("--plot", flags->plot,
                   "With --k auto or --method auto: write a PNG of every candidate's validation "
                   "curve (score against k, standard errors) with the choice marked");
    out.add_flag("--score", flags->score,
                 "Also fit the downstream model of the paper on the selected columns of the rows "
                 "the method learned from and score it on the held-out rows (ExtraTrees with 50 "
                 "trees, accuracy %, for classes; least squares, MAE, for real targets)");
  });
  auto* resuming = command->add_option_group(
      "Checkpoints", "Resumable training (dnn-top and dfs; docs/reliability.md)");
  resuming->add_option("--checkpoint", flags->checkpoint,
                       "Write the training state to this file (atomically) at the end of every "
                       "--checkpoint-every epochs, so that a killed run can --resume");
  resuming
      ->add_option("--checkpoint-every", flags->checkpoint_every,
                   "Epochs between two checkpoints (the last epoch is always written)")
      ->capture_default_str();
  add_distributed_flags(*command, flags->distributed);
  resuming->add_flag("--resume", flags->resume,
                     "Continue from the --checkpoint file when it exists (the same data, options "
                     "and k; the result is the one the uninterrupted run gives)");
  command->footer(
      "\nExamples:\n"
      "  topkfs select /usr/share/datasets/fashion-mnist --method dnn-top --k 50 -o result.json\n"
      "  topkfs select /usr/share/datasets/fashion-mnist --k 50 --score --picture chosen.png\n"
      "  topkfs select data.csv --target label --method dfs --k 10 --hidden 64 --epochs 30\n"
      "  topkfs select mnist/ --method dnn-top --k 50 --body cnn --lambda3 2 --seed 7\n"
      "  topkfs select usps.h5 --k 10 --restarts 5 --subsample 0.5 --frequency-map f.png\n"
      "  topkfs select mnist/ --k 50 --checkpoint run.ckpt --resume -o result.json\n"
      "  topkfs select mnist/ --k 50 --nproc 2 --threads 1 -o result.json\n"
      "\nMethods: run `topkfs methods` for the list and each method's options.\n"
      "Exit status: 0 success, 2 usage error, 1 data or runtime error; Ctrl-C ends it at once "
      "(status 130, no output written; the last checkpoint stays).");
  return {command, [flags] { return run(*flags); }};
}

}  // namespace topkfs::cli
