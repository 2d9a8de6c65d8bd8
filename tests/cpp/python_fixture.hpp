#pragma once
// Test files written at test time by Debian's Python (numpy, scipy, h5py),
// so that readers are checked against the libraries users write files with,
// without binary fixtures in the repository.
#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"

namespace topkfs::test {

// Runs `script` with the output path in the variable `out` (numpy is `np`)
// and returns that path, a new file `name` in temp_dir(). Fails the current
// test (fatally, so call it through ASSERT_NO_FATAL_FAILURE or check
// HasFatalFailure) when Python fails.
inline std::string python_fixture(const std::string& name, const std::string& script) {
  const std::string out = temp_dir() + "/" + name;
  const std::string program = write_temp_file(
      name + ".py", "import sys\nimport numpy as np\nout = sys.argv[1]\n" + script + "\n");
  const CommandResult result = run_command(std::string(TOPKFS_PYTHON) + " " + program + " " + out);
  EXPECT_EQ(result.exit_code, 0) << "python fixture " << name << " failed:\n" << result.err;
  return out;
}

}  // namespace topkfs::test
