// The library's pipeline from a file (select/file_selection.hpp), which the
// command's `select` and Python's topkfs.select run: what it refuses before
// reading, k in the command's forms, the caller's steps on the data, and the
// rows it learned from.
#include "topkfs/select/file_selection.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs {
namespace {

const std::string& data_csv() {
  static const std::string path = test::linear_planted_csv("file_selection.csv", 100, 5);
  return path;
}

FileSelectionRequest request_for(Selector& selector, const std::string& path,
                                 const std::string& k) {
  FileSelectionRequest request;
  request.path = path;
  request.selector = &selector;
  request.k = k;
  return request;
}

TEST(FileSelection, RefusesBadRequestsBeforeReadingTheFile) {
  const std::string missing = test::in_temp("no_such_file.csv");
  const auto lasso = make_linear_selector(LinearModel::Lasso, false);
  const auto refusal = [&](const FileSelectionRequest& request) {
    return test::error_of<OptionError>([&] { select_from_file(request); });
  };
  EXPECT_TRUE(test::contains(refusal(request_for(*lasso, missing, "0")), "--k 0: takes a whole"));
  FileSelectionRequest resume = request_for(*lasso, missing, "2");
  resume.resume = true;
  EXPECT_TRUE(test::contains(refusal(resume), "--resume continues from a --checkpoint file"));
  FileSelectionRequest checkpoint = request_for(*lasso, missing, "2");
  checkpoint.checkpoint = test::in_temp("never_written.ckpt");
  EXPECT_TRUE(test::contains(refusal(checkpoint), "--checkpoint: lasso cannot write training"));
  const auto bad_option = make_linear_selector(LinearModel::Lasso, false);
  bad_option->set_option("tol", "2");
  EXPECT_TRUE(test::contains(refusal(request_for(*bad_option, missing, "2")), "--tol"));
  // With the request in order, the missing file is what is refused.
  EXPECT_THROW(select_from_file(request_for(*lasso, missing, "2")), FileError);
}

TEST(FileSelection, ReadsKInTheCommandsFormsAndReturnsTheRowsLearnedFrom) {
  const auto lasso = make_linear_selector(LinearModel::Lasso, false);
  const FileSelection counted = select_from_file(request_for(*lasso, data_csv(), "2"));
  const FileSelection share = select_from_file(request_for(*lasso, data_csv(), "40%"));
  EXPECT_EQ(counted.result.k, 2);
  EXPECT_EQ(share.result.k, 2);  // 40% of 5 columns
  EXPECT_EQ(counted.result.selected_columns(), share.result.selected_columns());
  EXPECT_EQ(counted.result.selected_columns(), (std::vector<std::int64_t>{2, 0}));
  EXPECT_EQ(counted.data.rows(), 100);
  EXPECT_EQ(counted.learned_rows.size(), 100u);  // no predefined split: every row

  FileSelectionRequest random = request_for(*lasso, data_csv(), "2");
  random.split.rows = SelectionRows::Random;
  random.split.test_size = 0.25;
  EXPECT_EQ(select_from_file(random).learned_rows.size(), 75u);
}

// The caller's steps run on the data once read (prepare), then see it as the
// method will (check), before the fit; k is read from the prepared data.
TEST(FileSelection, RunsTheCallersStepsInOrderBeforeTheFit) {
  const auto lasso = make_linear_selector(LinearModel::Lasso, false);
  FileSelectionRequest request = request_for(*lasso, data_csv(), "100%");
  std::vector<std::string> steps;
  request.prepare = [&steps](Dataset& data) {
    steps.push_back("prepare");
    data.features.conservativeResize(data.rows(), 3);  // keeps a, b, c
    data.feature_names.resize(3);
  };
  request.check = [&steps](const Dataset& data) {
    steps.push_back(fmt::format("check {} columns", data.cols()));
  };
  const FileSelection selection = select_from_file(request);
  EXPECT_EQ(steps, (std::vector<std::string>{"prepare", "check 3 columns"}));
  EXPECT_EQ(selection.result.k, 3);
}

}  // namespace
}  // namespace topkfs
