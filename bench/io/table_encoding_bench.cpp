// What encoding a mixed-type table costs a selection: soybean (683 x 35,
// text codes and 2,337 empty cells) read, encoded on an 80% split
// (learn_encoding + encode_table, as fit_table does), and selected by the
// fastest methods of the library, each timed as the best of R runs in one
// process. Prints each part and the ratio of the encoding to the whole
// selection (read + encode + fit), the target being at most 0.10.
//
// Usage: table_encoding_bench [SOYBEAN_CSV] [--repeat R]
// (default ../shared/data/soybean/soybean.csv beside the checkout, or
// $TOPKFS_DATA_DIR/soybean/soybean.csv).
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_timing.hpp"
#include "topkfs/data/splits.hpp"
#include "topkfs/data/table_encoding.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/linear/linear_selector.hpp"
#include "topkfs/select/group_selection.hpp"

int main(int argc, char** argv) {
  using namespace topkfs;
  std::string path;
  int repeat = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      path = argv[i];
    }
  }
  if (path.empty()) {
    const char* dir = std::getenv("TOPKFS_DATA_DIR");
    path = std::string(dir ? dir : TOPKFS_SOURCE_DIR "/../shared/data") + "/soybean/soybean.csv";
  }
  ReadOptions options;
  options.target = {"Class"};
  Dataset data;
  const bench::Timing read = bench::best_of(repeat, [&] { data = read_dataset(path, options); });
  const Split split = stratified_split(data, 0.2, 0);
  Dataset encoded;
  const bench::Timing encode = bench::best_of(
      repeat, [&] { encoded = encode_table(data, learn_encoding(data, split.train)); });
  fmt::print("{}: {} rows x {} columns, encoded to {} columns; best of {} runs\n", path,
             data.rows(), data.cols(), encoded.cols(), repeat);
  fmt::print("  read                    {}\n", bench::format_timing(read));
  fmt::print("  learn + encode          {}\n", bench::format_timing(encode));
  for (const char* method : {"lasso", "elastic-net-top"}) {
    const bench::Timing fit = bench::best_of(repeat, [&] {
      auto selector = make_linear_selector(method);
      selector->set_option("threads", "1");
      fit_groups(*selector, encoded, split.train, 5, {});
    });
    const double whole = read.cpu + encode.cpu + fit.cpu;
    fmt::print("  fit {:<20}{}; encoding / whole selection (cpu) = {:.4f}\n", method,
               bench::format_timing(fit), encode.cpu / whole);
  }
  return 0;
}
