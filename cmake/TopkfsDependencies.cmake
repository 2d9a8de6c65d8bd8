# Every dependency comes from a Debian 12 package (see scripts/setup.sh).
find_package(Threads REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(ZLIB REQUIRED)
find_package(PNG REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)

# matio ships a pkg-config file only, and so does libdeflate (whole-buffer
# inflating, for HDF5 chunks decoded in parallel: src/io/hdf5_stored_matrix.hpp).
find_package(PkgConfig REQUIRED)
pkg_check_modules(MATIO REQUIRED IMPORTED_TARGET matio)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)

if(TOPKFS_WITH_TORCH)
  find_package(Torch REQUIRED)
endif()

# The linear models call cblas (dsyrk, dgemv) on the system BLAS: Debian's
# libblas.so.3 alternative, OpenBLAS once libopenblas0-pthread is installed.
# cblas.h comes from libblas-dev; without it they fall back to Eigen.
find_package(BLAS QUIET)
include(CheckIncludeFileCXX)
check_include_file_cxx(cblas.h TOPKFS_HAVE_CBLAS_H)
