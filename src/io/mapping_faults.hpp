#pragma once
// Private to mapped_file.cpp. A mapped file that is truncated while it is
// read makes the next read of a page past its new end raise SIGBUS, which
// would end the process with "Bus error" and no word of which file. While
// any mapping is registered here, a SIGBUS at an address inside one ends
// the process with exit status 1 and a message naming its file, after
// removing the temporary outputs (nothing half-written stays). A SIGBUS
// elsewhere goes to the handler that was there before.
#include <cstddef>
#include <string>

namespace topkfs::detail {

void remember_mapping(const void* address, std::size_t size, const std::string& path);
void forget_mapping(const void* address);

}  // namespace topkfs::detail
