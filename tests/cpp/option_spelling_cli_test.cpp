// The library names options by a marked reference (core/option_ref.hpp) and
// the command spells each as its flag: in the error it reports, the notes it
// prints, the warnings it logs, the JSON it writes and the help. No marker
// reaches the command's user.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_support.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs {
namespace {

using nlohmann::json;

const std::string& data_csv() {
  static const std::string path = test::linear_planted_csv("option_spelling.csv", 120, 11);
  return path;
}

TEST(OptionSpellingCli, ABadChoiceNamesTheFlag) {
  const auto run =
      test::run_cli(fmt::format("select '{}' --method lasso --k 2 --path-stop never", data_csv()));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(test::contains(run.err, "error: --path-stop takes k or end, not 'never'")) << run.err;
  EXPECT_FALSE(has_option_ref(run.err));
}

// One sweep leaves the lasso path short (a warning naming --max-iter with its
// value), and the marginal screen's note suggests --screen-level 0: both
// reach the printed lines and the JSON spelled as flags.
TEST(OptionSpellingCli, NotesWarningsAndTheJsonNameFlagsWithTheirValues) {
  const std::string out = test::in_temp("option_spelling_result.json");
  const auto run = test::run_cli(fmt::format(
      "select '{}' --method lasso --k 2 --max-iter 1 --threads 1 --output '{}'", data_csv(), out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(test::contains(run.out, "(--screen-level 0 ranks by weight alone)")) << run.out;
  EXPECT_TRUE(test::contains(run.out + run.err, "within --max-iter 1 sweeps"))
      << run.out << run.err;
  EXPECT_FALSE(has_option_ref(run.out));
  EXPECT_FALSE(has_option_ref(run.err));
  const json result = json::parse(test::read_text(out));
  ASSERT_FALSE(result["notes"].empty());
  ASSERT_FALSE(result["warnings"].empty());
  bool screen_note = false;
  for (const auto& note : result["notes"]) {
    EXPECT_FALSE(has_option_ref(note.get<std::string>()));
    screen_note = screen_note || test::contains(note.get<std::string>(), "--screen-level 0");
  }
  EXPECT_TRUE(screen_note) << result["notes"].dump();
  for (const auto& warning : result["warnings"]) {
    EXPECT_TRUE(test::contains(warning.get<std::string>(), "raise --max-iter or --tol"));
    EXPECT_FALSE(has_option_ref(warning.get<std::string>()));
  }
}

TEST(OptionSpellingCli, TheHelpAndTheMethodListSpellFlags) {
  const auto methods = test::run_cli("methods");
  ASSERT_EQ(methods.exit_code, 0);
  EXPECT_TRUE(test::contains(methods.out, "from the smallest one that zeroes every weight"));
  EXPECT_TRUE(test::contains(methods.out, "a path of --path-points values")) << methods.out;
  EXPECT_FALSE(has_option_ref(methods.out));
  const auto help = test::run_cli("select --help");
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_TRUE(test::contains(help.out, "a path of --path-points values"));
  EXPECT_FALSE(has_option_ref(help.out));
}

// A reader's note (an .npy without a target) as `topkfs info` prints it.
TEST(OptionSpellingCli, AReadersNoteNamesTheFlag) {
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  header.resize(117, ' ');
  header += '\n';
  npy +=
      std::string{static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  npy += header + std::string(16, '\0');
  const std::string path = test::write_temp_file("option_spelling_x.npy", npy);
  const auto run = test::run_cli(fmt::format("info '{}'", path));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(test::contains(run.out, "pass --y-file FILE.npy")) << run.out;
  EXPECT_FALSE(has_option_ref(run.out));
}

}  // namespace
}  // namespace topkfs
