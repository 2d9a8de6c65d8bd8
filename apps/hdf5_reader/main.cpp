// topkfs-hdf5-reader: the program the library starts to read an HDF5 or
// MATLAB v7.3 file, so that libhdf5's crashes on a corrupt file end this
// process and not the one that asked (src/io/reader_process.hpp). Not meant
// to be run by hand: its command line and descriptors are the library's.
#include "io/reader_process.hpp"

int main(int argc, char** argv) { return topkfs::detail::reader_program_main(argc, argv); }
