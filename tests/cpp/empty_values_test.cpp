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

// An empty item of a list ("a,,b", a trailing comma) is refused, naming the
// flag, as the methods' lists (--hidden 4,,4) and evaluate's --k are.
TEST(EmptyValues, AListWithAnEmptyItemIsAUsageError) {
  const std::string data =
      write_temp_file("empty-items.csv", "a,b,y\n1,2,0\n2,1,1\n3,3,0\n4,0,1\n");
  for (const auto& [command, flag] :
       {std::pair<std::string, std::string>{"select '{}' --method lasso --k 1 --target y,",
                                            "--target"},
        {"select '{}' --method lasso --k 1 --categorical a,,b", "--categorical"},
        {"select '{}' --method lasso --k 1 --numeric ,a", "--numeric"},
        {"select '{}' --method lasso --k 1 --na-values NA,,x", "--na-values"},
        {"evaluate '{}' --method lasso,,ridge --k 1 --seeds 1", "--method"}}) {
    const CommandResult run = run_cli(fmt::format(fmt::runtime(command + " -q"), data));
    EXPECT_EQ(run.exit_code, 2) << command << "\n" << run.err;
    EXPECT_TRUE(contains(run.err, flag + " '")) << run.err;
    EXPECT_TRUE(contains(run.err, "an empty item in the list")) << run.err;
  }
  // Repeated flags and comma lists still combine.
  const CommandResult both = run_cli(
      fmt::format("select '{}' --method lasso --k 1 -q --categorical a --categorical b -o '{}'",
                  data, temp_dir() + "/empty-items.json"));
  EXPECT_EQ(both.exit_code, 0) << both.err;
}

}  // namespace
}  // namespace topkfs::test
