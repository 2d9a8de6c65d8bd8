// Every method of the registry on the two real mixed-type tables of the
// shared data, as given (text codes, empty cells): each selects k whole
// columns of the table from the rows it learns from, and the downstream
// ExtraTrees on them scores clearly above chance. The accuracy of each
// method against scikit-learn's rankings is bench/quality/mixed_tables.py's.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_support.hpp"
#include "topkfs/methods/registry.hpp"

namespace topkfs::test {
namespace {

TEST(MixedTables, EveryMethodSelectsWholeColumnsOfSoybeanAndHouseVotes) {
  TOPKFS_REQUIRE_SHARED_DATA("soybean");
  TOPKFS_REQUIRE_SHARED_DATA("house_votes84");
  // Chance: soybean's largest class is 13.5% of its rows, house_votes84's 61.4%.
  const std::pair<const char*, double> tables[] = {{"soybean/soybean.csv", 40.0},
                                                   {"house_votes84/house_votes84.csv", 80.0}};
  for (const auto& [file, floor] : tables) {
    for (const auto& method : registered_methods()) {
      SCOPED_TRACE(fmt::format("{} {}", file, method.name));
      // The neural methods' defaults make at least 4000 steps on small data;
      // 400 keep the suite quick and still train past chance.
      const auto selector = method.make();
      const std::string fast = selector->has_option("min-steps") ? "--min-steps 400" : "";
      const CommandResult run = run_cli(fmt::format(
          "select '{}' --target Class --method {} --k 5 --split random --score --json -q {}",
          shared_data(file), method.name, fast));
      ASSERT_EQ(run.exit_code, 0) << run.err;
      const auto result = nlohmann::json::parse(run.out);
      ASSERT_EQ(result["selected"].size(), 5u);
      const std::set<std::string> names(result["selected_names"].begin(),
                                        result["selected_names"].end());
      EXPECT_EQ(names.size(), 5u);
      EXPECT_EQ(names.count("Class"), 0u);
      EXPECT_TRUE(result.contains("encoding"));
      EXPECT_GT(result["downstream"]["value"].get<double>(), floor);
    }
  }
}

}  // namespace
}  // namespace topkfs::test
