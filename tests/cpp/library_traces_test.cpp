// The library leaves the process it runs in as it found it: it installs no
// signal handler (the command installs its own: atomic_file.hpp,
// mapping_faults.hpp), and a read leaves a program's HDF5 error handler in
// place, silent for the read's own failures (docs/reliability.md).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>

#include <filesystem>
#include <ostream>
#include <string>

#include "child_process.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs::test {
namespace {

// During a write, SIGTERM has the process's disposition (here the default).
void report_the_handler_during_a_write(const std::string& path) {
  write_file_atomically(path, [](std::ostream& out) {
    struct sigaction now {};
    ::sigaction(SIGTERM, nullptr, &now);
    report((now.sa_flags & SA_SIGINFO) == 0 && now.sa_handler == SIG_DFL ? "default" : "changed");
    out << "a result";
  });
}

TEST(LibraryTraces, AWriteLeavesTheProcesssSignalHandlersAlone) {
  const std::string folder = temp_dir() + "/handlers";
  std::filesystem::create_directories(folder);
  const ChildResult child = run_in_child(report_the_handler_during_a_write, folder + "/result.txt");
  ASSERT_TRUE(child.exited);
  EXPECT_EQ(child.message, "default");
}

int program_reports = 0;
herr_t count_report(hid_t /*stack*/, void* /*data*/) {
  ++program_reports;
  return 0;
}

TEST(LibraryTraces, AnHdf5ReadKeepsTheProgramsErrorHandler) {
  const std::string path =
      python_fixture("traces.h5",
                     "import h5py\nwith h5py.File(out, 'w') as f:\n"
                     "    f['X'] = np.zeros((4, 2))\n    f['Y'] = np.arange(4) % 2");
  ASSERT_FALSE(HasFatalFailure());
  H5E_auto2_t before = nullptr;
  void* before_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &before, &before_data);
  H5Eset_auto2(H5E_DEFAULT, count_report, nullptr);

  EXPECT_EQ(read_dataset(path, {}).features.rows(), 4);
  // A dataset the file does not have fails inside libhdf5: the read says so
  // in its DataError, and the program's handler hears nothing of it.
  ReadOptions missing;
  missing.x_path = "/nothing";
  const std::string message = data_error(path, missing);
  EXPECT_NE(message.find("/nothing"), std::string::npos) << message;
  EXPECT_EQ(program_reports, 0);

  H5E_auto2_t after = nullptr;
  void* after_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &after, &after_data);
  EXPECT_EQ(after, &count_report);
  // The program's own failing call still reaches its handler.
  EXPECT_LT(H5Fopen((path + ".absent").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), 0);
  EXPECT_GT(program_reports, 0);
  H5Eset_auto2(H5E_DEFAULT, before, before_data);
}

}  // namespace
}  // namespace topkfs::test
