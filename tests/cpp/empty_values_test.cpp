// An option given an empty value names nothing: `-o ""` would write no
// result without a word and `--target ""` would mean the default column.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace topkfs::test {
namespace {

TEST(EmptyValues, AnOptionGivenAnEmptyValueIsAUsageError) {
  const std::string data =
      write_temp_file("empty-values.csv", "a,b,y\n1,2,0\n2,1,1\n3,3,0\n4,0,1\n");
  for (const auto& [args, option] : {std::pair<std::string, std::string>{"-o ''", "--output"},
                                     {"--target ''", "--target"},
                                     {"--output-data ''", "--output-data"},
                                     {"--categorical ''", "--categorical"}}) {
    const CommandResult run =
        run_cli(fmt::format("select '{}' --method lasso --k 1 -q {}", data, args));
    EXPECT_EQ(run.exit_code, 2) << args;
    EXPECT_TRUE(contains(run.err, option + " '': an empty value names nothing")) << run.err;
  }
  const CommandResult data_run = run_cli("info ''");
  EXPECT_EQ(data_run.exit_code, 2);
  EXPECT_TRUE(contains(data_run.err, "DATA '': an empty value names nothing")) << data_run.err;
}

}  // namespace
}  // namespace topkfs::test
