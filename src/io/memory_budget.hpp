#pragma once
// Private to the readers. Sizes read from a file's header are checked against
// the machine before anything is allocated, so that a hostile or corrupt
// header ends in a message with the sizes instead of std::bad_alloc, an
// allocation that the kernel kills later, or an internal assertion.
#include <cstdint>
#include <string>

namespace topkfs::detail {

// The memory this process may use in bytes: the machine's physical memory,
// or less under a process limit (RLIMIT_AS, RLIMIT_DATA) or the memory
// limit set with set_resource_limits (resource_limits.hpp).
std::uint64_t physical_memory_bytes();

// What to do about data too large to load, by default.
inline constexpr const char* kConvertHint =
    "convert the data to a float32 .npy, which the neural methods read mapped from disk instead "
    "of loading (`topkfs convert DATA --output data.npy`), load a subset of the rows or columns, "
    "or use a machine with more memory";

// Throws DataError naming `where` when `bytes` (what `what` needs: "the
// feature matrix (60000 x 784 float32)") exceed the physical memory. The
// message ends with `hint` (empty: kConvertHint).
void check_fits_in_memory(std::uint64_t bytes, const std::string& what, const std::string& where,
                          const std::string& hint = "");

// Called with the bytes of every allocation check_fits_in_memory lets
// through, before the reader allocates them; null (the default): nobody is
// told. The HDF5 reader program tells the process that watches its memory
// (reader_process.hpp).
void set_allocation_observer(void (*observer)(std::uint64_t bytes));

// Checks the shape of a feature matrix before it is allocated: at least one
// sample and one column, and the float32 matrix plus a name per column fit
// in memory. `shape` is the shape as the file states it ("(0, 5)").
// `mapped`: the matrix will be mapped from the file, so only the names count.
// The message of a matrix too large hints at `topkfs convert` to a mapped
// .npy.
void check_feature_shape(std::uint64_t rows, std::uint64_t cols, const std::string& shape,
                         const std::string& where, bool mapped = false);

}  // namespace topkfs::detail
