#pragma once
// What every refused input must look like through the command line: a clear
// message naming the file and the place on stderr after "topkfs: error: ",
// the documented exit status, nothing on stdout, and no output file left
// behind.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"

namespace topkfs::test {

struct Expected {
  int exit_code;
  std::vector<std::string> fragments;  // each must appear in stderr
};

// The command's own message: all of stderr, or under a sanitizer what
// follows the sanitizer's report of the HDF5 reader program that libhdf5
// crashed in (the program writes to the command's stderr; a crash there is
// how such a file is refused, docs/reliability.md, "Sanitizers").
inline std::string own_message(const std::string& err) {
  const auto at = err.rfind("topkfs: error: ");
  if (!kSanitized || at == std::string::npos || err.find("Sanitizer") > at) return err;
  return err.substr(at);
}

inline void expect_message(const CommandResult& result, const std::string& args,
                           const Expected& expected) {
  EXPECT_EQ(result.exit_code, expected.exit_code) << args << "\n" << result.err;
  EXPECT_TRUE(result.out.empty()) << "stdout must stay empty on error: " << result.out;
  const std::string err = own_message(result.err);
  EXPECT_EQ(err.rfind("topkfs: error: ", 0), 0u) << result.err;
  for (const auto& fragment : expected.fragments) {
    EXPECT_NE(err.find(fragment), std::string::npos)
        << "'" << fragment << "' missing from: " << result.err;
  }
}

// `select -o` must refuse the data and leave no output file behind.
inline void expect_select_refused(const std::string& args, const Expected& expected) {
  const std::string output = temp_dir() + "/never-written.json";
  const CommandResult select = run_cli("select " + args + " --k 1 -q -o " + output);
  expect_message(select, args, expected);
  EXPECT_FALSE(path_exists(output)) << "select left " << output << " behind for " << args;
  EXPECT_FALSE(path_exists(output + ".tmp")) << args;
}

// Both `info` (reads the data only) and `select` refuse it.
inline void expect_refused(const std::string& args, const Expected& expected) {
  expect_message(run_cli("info " + args), args, expected);
  expect_select_refused(args, expected);
}

}  // namespace topkfs::test
