#pragma once
// A file mapped into memory (a float32 .npy, an NPZ member, a text file
// read by row blocks) that is truncated while it is read makes the next
// read of a page past its new end raise SIGBUS, which ends the process with
// "Bus error" and no word of which file. The readers register their
// mappings here; a program that installs the handler (the command does; the
// library installs no signal handler of its own accord, and Python keeps
// numpy's behaviour) then turns a SIGBUS at an address inside one into
// exit status 1 and a message naming its file, after removing the temporary
// outputs (nothing half-written stays). A SIGBUS elsewhere goes to the
// handler that was there before.
#include <cstddef>
#include <string>

namespace topkfs {

// Installs the SIGBUS handler for the rest of the process (idempotent).
void handle_mapping_faults();

namespace detail {

void remember_mapping(const void* address, std::size_t size, const std::string& path);
void forget_mapping(const void* address);

}  // namespace detail
}  // namespace topkfs
