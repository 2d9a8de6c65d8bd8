#include "topkfs/io/mapping_faults.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

#include "signal_chain.hpp"
#include "temporary_files.hpp"

namespace topkfs::detail {
namespace {

// Fixed storage, as in temporary_files.cpp: the handler reads only memory
// that nothing frees or moves.
constexpr std::size_t kSlots = 32;
constexpr std::size_t kPathBytes = 4096;

struct Mapping {
  std::atomic<const char*> begin{nullptr};
  std::size_t size = 0;
  char path[kPathBytes] = {};
};

std::array<Mapping, kSlots> mappings;
std::mutex registry_mutex;  // registration only; never taken in the handler
bool installed = false;
struct sigaction previous {};

void write_text(const char* text) {
  if (::write(STDERR_FILENO, text, std::strlen(text)) < 0) return;
}

void on_bus_error(int signal_number, siginfo_t* info, void* context) {
  const char* at = static_cast<const char*>(info->si_addr);
  for (const auto& mapping : mappings) {
    const char* begin = mapping.begin.load();
    if (begin == nullptr || at < begin || at >= begin + mapping.size) continue;
    remove_temporaries();
    write_text("topkfs: error: ");
    write_text(mapping.path);
    write_text(
        ": the file changed while it was read (truncated or rewritten by another "
        "process); nothing was written\n");
    ::_exit(1);
  }
  // Not a mapped file's fault: the handler that was there before, or the
  // default (the fault repeats on return and ends the process).
  if (pass_to_previous(previous, signal_number, info, context)) return;
  ::signal(signal_number, SIG_DFL);
}

}  // namespace

void remember_mapping(const void* address, std::size_t size, const std::string& path) {
  const std::lock_guard<std::mutex> lock(registry_mutex);
  for (auto& mapping : mappings) {
    if (mapping.begin.load() != nullptr || path.size() >= kPathBytes) continue;
    std::memcpy(mapping.path, path.c_str(), path.size() + 1);
    mapping.size = size;
    mapping.begin.store(static_cast<const char*>(address));
    return;
  }
  // More mappings at once than slots: this one's faults end the process as
  // the default would.
}

void forget_mapping(const void* address) {
  const std::lock_guard<std::mutex> lock(registry_mutex);
  for (auto& mapping : mappings) {
    if (mapping.begin.load() == address) {
      mapping.begin.store(nullptr);
      return;
    }
  }
}

}  // namespace topkfs::detail

namespace topkfs {

void handle_mapping_faults() {
  const std::lock_guard<std::mutex> lock(detail::registry_mutex);
  if (detail::installed) return;
  detail::install_over(SIGBUS, detail::on_bus_error, detail::previous);
  detail::installed = true;
}

}  // namespace topkfs
