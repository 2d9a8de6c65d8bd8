// `topkfs convert DATA --output data.npy [--y-output y.npy]` (or one .npz):
// any readable data to the form that the neural methods read mapped from
// disk instead of loading (docs/scale.md, "Out of core").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "command_spelling.hpp"
#include "commands.hpp"
#include "output_flags.hpp"
#include "reader_flags.hpp"
#include "topkfs/io/convert.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs::cli {

namespace {

struct Flags {
  ReaderFlags data;
  ConvertOptions convert;
  bool quiet = false;
};

// HDF5 is read by row blocks, unless --pad-images needs the whole matrix.
ConvertSummary convert(const Flags& flags) {
  check_convert_outputs(flags.data.path, flags.data.to_options(), flags.convert);
  if (!flags.data.pad_images.empty()) {
    return write_streamable(load_dataset(flags.data, flags.data.to_options()), flags.convert);
  }
  RowStream stream = open_row_stream(flags.data.path, flags.data.to_options());
  if (!flags.data.image_shape.empty()) {
    stream.data->image_shape = checked_image_shape(flags.data.image_shape, "--image-shape",
                                                   stream.rows->column_count(), flags.data.path);
  }
  return write_encoded_if_needed(*stream.data, *stream.rows, flags.convert);
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  auto* command = app.add_subcommand(
      "convert",
      "Convert data to a float32 .npy (or .npz) that select maps from disk instead of loading");
  add_reader_flags(*command, flags->data);
  command
      ->add_option("--output,-o", flags->convert.output,
                   "The features as little-endian float32 in C order: a .npy file, or a .npz "
                   "holding X and the target Y (stored, not compressed, so that X maps in place)")
      ->required();
  command->add_option("--y-output", flags->convert.y_output,
                      "With a .npy --output: a .npy for the target (int64 class labels, or "
                      "float64 values); required when the data has a target");
  command
      ->add_option("--block-rows", flags->convert.block_rows,
                   "Rows written per block (default: about 4 MB of rows)")
      ->check(CLI::NonNegativeNumber);
  command->add_flag("--quiet,-q", flags->quiet, "Print nothing on success");
  command->footer(
      "\nExamples:\n"
      "  topkfs convert train.csv --target label --output X.npy --y-output y.npy\n"
      "  topkfs select X.npy --y-file y.npy --method dnn-top --k 20\n"
      "  topkfs convert /data/mnist --output mnist.npz\n"
      "  topkfs select mnist.npz --method dnn-top --k 50\n"
      "\nThe output is written in row blocks, from the source's rows as they are read (an .npy "
      "or stored .npz source is mapped, not loaded), to temporary files renamed into place: on "
      "any error no output is left. Images keep their shape ((n, h, w) arrays). A predefined "
      "split is not kept (a note says which rows were the training rows). Class labels are "
      "written by their names when every name is a number, else as codes 0..C-1 (a note lists "
      "them).\n"
      "\nExit status: 0 success, 2 usage error, 1 data or runtime error.");
  return {command, [flags] {
            check_output_paths(
                {{"--output", flags->convert.output}, {"--y-output", flags->convert.y_output}},
                input_paths(flags->data));
            ConvertSummary summary = convert(*flags);
            spell_for_command_line(summary.notes);
            if (!flags->quiet) {
              fmt::print("converted   {} ({} rows x {} features; source {})\n", flags->data.path,
                         summary.rows, summary.columns, to_string(summary.storage));
              fmt::print("wrote       {}\n", fmt::join(summary.written, ", "));
              for (const auto& note : summary.notes) fmt::print("note        {}\n", note);
            }
            return 0;
          }};
}

}  // namespace topkfs::cli
