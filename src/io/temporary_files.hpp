#pragma once
// Private to atomic_file.cpp. The temporaries that exist right now, so that a
// signal that ends the process removes them instead of leaving ".NAME.tmp*"
// files behind, once the program has asked for it
// (remove_temporaries_on_termination in atomic_file.hpp; the command does).
#include <string>

namespace topkfs::detail {

void remember_temporary(const std::string& path);
void forget_temporary(const std::string& path);

// Unlinks every remembered temporary; async-signal-safe (for the handlers of
// other fatal signals: mapping_faults.hpp).
void remove_temporaries();

}  // namespace topkfs::detail
