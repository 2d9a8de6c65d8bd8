#pragma once
// MATLAB v7.3 files written at test time with h5py (the reader's tests and
// the streamed training's).
#include <string>

#include "python_fixture.hpp"

namespace topkfs::test {

// Python for v7.3 files as MATLAB lays them out, written with h5py: a
// 512-byte user block holding the MAT header, one dataset per variable,
// stored transposed, with a MATLAB_class attribute. matlab_class(dataset,
// name) labels a dataset; mat_header() writes the header once `out` is
// closed.
inline const char* const kMatlabV73 =
    "import h5py\n"
    "def matlab_class(dataset, name):\n"
    "    # MATLAB writes a null-terminated fixed-length string.\n"
    "    kind = h5py.h5t.C_S1.copy()\n"
    "    kind.set_size(len(name))\n"
    "    kind.set_strpad(h5py.h5t.STR_NULLTERM)\n"
    "    attr = h5py.h5a.create(dataset.id, b'MATLAB_class', kind, "
    "h5py.h5s.create(h5py.h5s.SCALAR))\n"
    "    attr.write(np.array(name.encode(), dtype='S%d' % len(name)), mtype=kind)\n"
    "def mat_header():\n"
    "    header = b'MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: test HDF5 schema 1.00 "
    ".'\n"
    "    header = header.ljust(116, b' ') + b'\\0' * 8 + b'\\x00\\x02IM'\n"
    "    with open(out, 'r+b') as f:\n"
    "        f.write(header)\n";

// A v7.3 file laid out as MATLAB writes it: `body` (indented) fills the
// h5py.File `f` after `prelude`, then the MAT header is written.
inline std::string matlab_v73_fixture(const std::string& name, const std::string& body,
                                      const std::string& prelude = "") {
  return python_fixture(name, prelude + kMatlabV73 +
                                  "with h5py.File(out, 'w', userblock_size=512) as f:\n" + body +
                                  "mat_header()\n");
}

}  // namespace topkfs::test
