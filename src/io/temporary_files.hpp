#pragma once
// Private to atomic_file.cpp. The temporaries that exist right now, so that a
// signal that ends the process removes them instead of leaving ".NAME.tmp*"
// files behind: while any is remembered, SIGINT, SIGTERM, SIGHUP and SIGQUIT
// go to a handler that unlinks them and then dies of the same signal. Where
// the process had a handler of its own for the signal (Python's), that
// handler gets the signal instead and the process goes on.
#include <string>

namespace topkfs::detail {

void remember_temporary(const std::string& path);
void forget_temporary(const std::string& path);

// Unlinks every remembered temporary; async-signal-safe (for the handlers of
// other fatal signals: mapping_faults.hpp).
void remove_temporaries();

}  // namespace topkfs::detail
