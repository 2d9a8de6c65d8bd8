#pragma once
// Private to the readers: libhdf5's crashes on corrupt files kept out of the
// process that reads them.
#include <string>

namespace topkfs::hdf5 {

// Opens the file at `path` in a child process and makes there every libhdf5
// call the reader can make on it: every link is visited, every dataset
// opened and described, its storage checked and its values read (all of
// them for a small dataset, the first and last rows of a large one). Throws
// DataError naming the file when the child dies (a signal, or an abort) or
// has not finished within a time limit.
//
// Why: libhdf5 1.10 trusts the structures it finds in the file, and fuzzing
// keeps finding null dereferences, divisions by zero and endless loops inside
// it (docs/reliability.md) that no check made from outside the library can
// anticipate one by one. Those happen in the child; the reader itself runs
// only on a file the child has read through. What the child checks and the
// reader does agree because both call the same library on the same file.
void probe_in_child(const std::string& path);

}  // namespace topkfs::hdf5
