// Training from a mapped file gives exactly what training from memory gives:
// every neural method gathers its minibatches through the RowSource seam,
// and the whole-matrix methods read the same values. Also the note that a
// whole-matrix method leaves, and its refusal when the matrix cannot fit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "matlab_v73_fixture.hpp"
#include "python_fixture.hpp"
#include "selection_test_support.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/convert.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/select/run_selection.hpp"

namespace topkfs {
namespace {

using namespace test;  // NOLINT: the suite's helpers

// The planted problem written as `topkfs convert` writes it, and read back
// mapped and in memory.
struct BothWays {
  Dataset mapped;
  Dataset loaded;
};

BothWays planted_both_ways(const std::string& stem, SyntheticOptions::Target target, int classes) {
  Dataset data = planted_problem(target, classes, 71, 400).data;
  data.source = stem;
  ConvertOptions options;
  options.output = temp_dir() + "/" + stem + ".npz";
  write_streamable(data, options);
  ReadOptions in_memory;
  in_memory.map = false;
  BothWays both{read_dataset(options.output), read_dataset(options.output, in_memory)};
  EXPECT_EQ(both.mapped.features.storage(), RowStorage::Mapped);
  EXPECT_EQ(both.loaded.features.storage(), RowStorage::InMemory);
  return both;
}

void expect_identical(const SelectionResult& a, const SelectionResult& b, const std::string& what) {
  EXPECT_EQ(a.selected, b.selected) << what;
  EXPECT_EQ(a.scores, b.scores) << what << ": the scores differ in some bit";
  ASSERT_EQ(a.history.size(), b.history.size()) << what;
  for (std::size_t e = 0; e < a.history.size(); ++e) {
    EXPECT_EQ(a.history[e].loss, b.history[e].loss) << what << ", epoch " << e + 1;
  }
}

const OptionValues kNeural = {{"hidden", "32"},  {"epochs", "4"},  {"batch", "32"},
                              {"patience", "0"}, {"threads", "1"}, {"seed", "3"},
                              {"min-steps", "0"}};

TEST(MappedTraining, EveryNeuralMethodFitsBitwiseAsFromMemory) {
  const BothWays both = planted_both_ways("neural", SyntheticOptions::Target::Classes, 3);
  for (const char* method : {"dnn-top", "dfs", "concrete", "stg", "fir"}) {
    const OptionValues options =
        std::string(method) == "fir" ? with(kNeural, {{"selector-every", "1"}}) : kNeural;
    expect_identical(fit_method(method, both.mapped, 5, options),
                     fit_method(method, both.loaded, 5, options), method);
  }
  // A team of two threads gathers through the same seam.
  const OptionValues team = with(kNeural, {{"threads", "2"}});
  expect_identical(fit_method("dnn-top", both.mapped, 5, team),
                   fit_method("dnn-top", both.loaded, 5, team), "dnn-top, 2 threads");
}

TEST(MappedTraining, RegressionWithStandardScalingToo) {
  const BothWays both = planted_both_ways("real", SyntheticOptions::Target::Real, 0);
  const OptionValues options = with(kNeural, {{"scaling", "standard"}});
  expect_identical(fit_method("dnn-top", both.mapped, 5, options),
                   fit_method("dnn-top", both.loaded, 5, options), "dnn-top regression");
}

TEST(MappedTraining, WholeMatrixMethodsSaySoAndRefuseWhatCannotFit) {
  const BothWays both = planted_both_ways("whole", SyntheticOptions::Target::Real, 0);
  auto mapped = make_selector("lasso");
  auto loaded = make_selector("lasso");
  const SelectionResult from_map = run_selection(both.mapped, *mapped, 5, {}, {});
  const SelectionResult from_memory = run_selection(both.loaded, *loaded, 5, {}, {});
  EXPECT_EQ(from_map.selected, from_memory.selected);
  EXPECT_EQ(from_map.scores, from_memory.scores);
  bool noted = false;
  for (const auto& note : from_map.notes)
    noted |= contains(note, "works on the whole feature matrix");
  EXPECT_TRUE(noted);

  std::string message;
  {
    // The matrix is 400 x 50 float32: 80 KB.
    const test::ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "40K");
    message = error_of<DataError>([&] {
      auto again = make_selector("lasso");
      run_selection(both.mapped, *again, 5, {}, {});
    });
  }
  EXPECT_TRUE(contains(message, "lasso works on the whole feature matrix")) << message;
  EXPECT_TRUE(contains(message, "TOPKFS_MEMORY_LIMIT")) << message;
  EXPECT_TRUE(contains(message, "dnn-top")) << message;
}

// The planted problem of 800 rows x 20 columns (y from columns 0, 1 and 2)
// in `path`, 64 KB of features, read against a budget of 100 KB: mapped
// from the HDF5 reader program's temporary file. dnn-top finds the planted
// columns from it, with one thread and with two.
void expect_planted_columns_found_streamed(const std::string& path) {
  const ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "100K");
  const Dataset streamed = read_dataset_by_rows(path);
  ASSERT_EQ(streamed.feature_rows().storage(), RowStorage::Mapped);
  for (const char* threads : {"1", "2"}) {
    const SelectionResult result =
        fit_method("dnn-top", streamed, 3,
                   with(kNeural, {{"epochs", "30"}, {"threads", threads}, {"batch", "64"}}));
    std::vector<std::int64_t> selected = result.selected;
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, (std::vector<std::int64_t>{0, 1, 2})) << threads << " thread(s)";
  }
}

// An HDF5 file above the memory budget trains from its rows mapped from a
// temporary file (docs/scale.md, "HDF5 above the budget").
TEST(MappedTraining, AnHdf5FileAboveTheBudgetTrainsFromItsMappedRows) {
  const std::string path =
      python_fixture("streamed_planted.h5",
                     "import h5py\n"
                     "rng = np.random.default_rng(5)\n"
                     "x = rng.standard_normal((800, 20)).astype(np.float32)\n"
                     "y = (x[:, 0] + x[:, 1] - x[:, 2] > 0).astype(np.int64)\n"
                     "with h5py.File(out, 'w') as f:\n"
                     "    f.create_dataset('X', data=x, chunks=(40, 10), compression='gzip')\n"
                     "    f['Y'] = y");
  ASSERT_FALSE(HasFatalFailure());
  expect_planted_columns_found_streamed(path);
}

// A MATLAB v7.3 file above the memory budget trains as an HDF5 file does
// (MATLAB stores the matrix transposed; the rows come back as samples).
TEST(MappedTraining, AMatV73FileAboveTheBudgetTrainsFromItsMappedRows) {
  const std::string path = matlab_v73_fixture(
      "streamed_planted73.mat",
      "    rng = np.random.default_rng(5)\n"
      "    x = rng.standard_normal((800, 20))\n"
      "    y = (x[:, 0] + x[:, 1] - x[:, 2] > 0).astype(np.uint8)\n"
      "    matlab_class(f.create_dataset('X', data=x.T, chunks=(10, 40), compression='gzip'),"
      " 'double')\n"
      "    matlab_class(f.create_dataset('Y', data=y[None, :]), 'uint8')\n");
  ASSERT_FALSE(HasFatalFailure());
  expect_planted_columns_found_streamed(path);
}

}  // namespace
}  // namespace topkfs
