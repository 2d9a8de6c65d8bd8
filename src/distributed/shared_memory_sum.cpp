#include "shared_memory_sum.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

// The most ranks a segment holds (the command's limit on the world size).
constexpr std::size_t kMaxRanks = 1024;
// Values a rank hands over at a time: one slot per rank, twice (two sets, so
// that a rank may fill the next chunk's slot while a slower one still reads
// this chunk's). MNIST's dnn-top gradients (0.94 MB) fit one chunk.
constexpr std::size_t kSlotBytes = std::size_t{1} << 20;
constexpr std::size_t kHeaderBytes = 8192;
// How long a rank spins before it sleeps on the futex: the others usually
// arrive within microseconds of each other, and a sleep and a wake-up cost
// tens of them.
constexpr auto kSpin = std::chrono::microseconds(30);
constexpr auto kCheckEvery = std::chrono::milliseconds(50);

struct Header {
  std::atomic<std::uint32_t> arrived;
  std::atomic<std::uint32_t> generation;
  std::uint32_t ranks;
  std::atomic<std::int32_t> pids[kMaxRanks];  // 0 until the rank has opened the segment
};
static_assert(sizeof(Header) <= kHeaderBytes);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free &&
                  sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
              "the futex word must be a plain 32-bit word");

std::size_t segment_bytes(int ranks) {
  return kHeaderBytes + 2 * static_cast<std::size_t>(ranks) * kSlotBytes;
}

void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected,
                std::chrono::milliseconds timeout) {
  timespec limit{};
  limit.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  limit.tv_nsec = static_cast<long>((timeout.count() % 1000) * 1000000);
  // Not FUTEX_PRIVATE_FLAG: the word is shared between processes.
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected, &limit, nullptr,
          0);
}

void futex_wake_all(std::atomic<std::uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr,
          0);
}

// False once the process has exited (gone, or a zombie its parent has not
// reaped yet).
bool process_runs(std::int32_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return true;
  const char state = line[close + 2];
  return state != 'Z' && state != 'X';
}

[[noreturn]] void refuse(const std::string& what, const std::string& name) {
  throw DistributedError(fmt::format("cannot {} the shared memory {} for the ranks' sums: {}", what,
                                     name, std::strerror(errno)));
}

}  // namespace

struct SharedMemorySum::Mapping {
  std::string name;
  void* base = MAP_FAILED;
  std::size_t bytes = 0;
  bool unlinked = false;
  bool owner = false;  // created it: removes the name if no one did

  ~Mapping() {
    if (base != MAP_FAILED) ::munmap(base, bytes);
    if (owner && !unlinked) ::shm_unlink(name.c_str());
  }
  Header& header() const { return *static_cast<Header*>(base); }
  char* slot(std::size_t set, int rank) const {
    const std::size_t ranks = header().ranks;
    return static_cast<char*>(base) + kHeaderBytes +
           (set * ranks + static_cast<std::size_t>(rank)) * kSlotBytes;
  }
  void map(int fd) {
    base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base == MAP_FAILED) refuse("map", name);
  }
};

SharedMemorySum::SharedMemorySum(std::unique_ptr<Mapping> mapping, int rank)
    : mapping_(std::move(mapping)), rank_(rank) {
  mapping_->header().pids[rank].store(static_cast<std::int32_t>(::getpid()),
                                      std::memory_order_release);
}

SharedMemorySum::~SharedMemorySum() = default;

std::unique_ptr<SharedMemorySum> SharedMemorySum::create(const std::string& name, int ranks) {
  TOPKFS_ASSERT(ranks >= 1 && static_cast<std::size_t>(ranks) <= kMaxRanks);
  auto mapping = std::make_unique<Mapping>();
  mapping->name = name;
  mapping->bytes = segment_bytes(ranks);
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) refuse("create", name);
  mapping->owner = true;
  // A new segment reads as zeros: the counters start at 0, no pid is set.
  if (::ftruncate(fd, static_cast<off_t>(mapping->bytes)) != 0) {
    ::close(fd);
    refuse("size", name);
  }
  mapping->map(fd);
  mapping->header().ranks = static_cast<std::uint32_t>(ranks);
  return std::unique_ptr<SharedMemorySum>(new SharedMemorySum(std::move(mapping), 0));
}

std::unique_ptr<SharedMemorySum> SharedMemorySum::open(const std::string& name, int rank,
                                                       int ranks) {
  TOPKFS_ASSERT(rank >= 0 && rank < ranks && static_cast<std::size_t>(ranks) <= kMaxRanks);
  auto mapping = std::make_unique<Mapping>();
  mapping->name = name;
  mapping->bytes = segment_bytes(ranks);
  const int fd = ::shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) refuse("open", name);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || static_cast<std::size_t>(info.st_size) != mapping->bytes) {
    ::close(fd);
    throw DistributedError(fmt::format(
        "the shared memory {} for the ranks' sums is not sized for {} ranks", name, ranks));
  }
  mapping->map(fd);
  return std::unique_ptr<SharedMemorySum>(new SharedMemorySum(std::move(mapping), rank));
}

bool SharedMemorySum::sees_every_rank() const {
  const Header& header = mapping_->header();
  for (std::uint32_t r = 0; r < header.ranks; ++r) {
    if (header.pids[r].load(std::memory_order_acquire) == 0) return false;
  }
  return gone_rank() < 0;
}

void SharedMemorySum::unlink_name() {
  if (mapping_->unlinked) return;
  ::shm_unlink(mapping_->name.c_str());
  mapping_->unlinked = true;
}

int SharedMemorySum::gone_rank() const {
  const Header& header = mapping_->header();
  const auto self = static_cast<std::int32_t>(::getpid());
  for (std::uint32_t r = 0; r < header.ranks; ++r) {
    const std::int32_t pid = header.pids[r].load(std::memory_order_acquire);
    if (pid != 0 && pid != self && !process_runs(pid)) return static_cast<int>(r);
  }
  return -1;
}

void SharedMemorySum::arrive_and_wait(const WhileWaiting& while_waiting) {
  Header& header = mapping_->header();
  const std::uint32_t generation = header.generation.load(std::memory_order_acquire);
  if (header.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == header.ranks) {
    // The last to arrive opens the barrier for the next round first, then
    // lets the others go: they read the new generation only after the reset.
    header.arrived.store(0, std::memory_order_relaxed);
    header.generation.store(generation + 1, std::memory_order_release);
    futex_wake_all(&header.generation);
    return;
  }
  const auto start = Clock::now();
  while (Clock::now() - start < kSpin) {
    if (header.generation.load(std::memory_order_acquire) != generation) return;
  }
  auto next_check = Clock::now() + kCheckEvery;
  while (header.generation.load(std::memory_order_acquire) == generation) {
    futex_wait(&header.generation, generation, kCheckEvery);
    if (Clock::now() >= next_check) {
      while_waiting(gone_rank());
      next_check = Clock::now() + kCheckEvery;
    }
  }
}

template <typename Scalar>
void SharedMemorySum::sum_chunks(Scalar* values, std::size_t count,
                                 const WhileWaiting& while_waiting) {
  const int ranks = static_cast<int>(mapping_->header().ranks);
  const std::size_t per_chunk = kSlotBytes / sizeof(Scalar);
  for (std::size_t offset = 0; offset < count; offset += per_chunk) {
    const std::size_t n = std::min(per_chunk, count - offset);
    const std::size_t set = chunks_++ % 2;
    Scalar* part = values + offset;
    std::memcpy(mapping_->slot(set, rank_), part, n * sizeof(Scalar));
    arrive_and_wait(while_waiting);
    // Rank order on every rank: the same sum, bit for bit.
    const auto* first = reinterpret_cast<const Scalar*>(mapping_->slot(set, 0));
    std::copy(first, first + n, part);
    for (int r = 1; r < ranks; ++r) {
      const auto* other = reinterpret_cast<const Scalar*>(mapping_->slot(set, r));
      for (std::size_t i = 0; i < n; ++i) part[i] += other[i];
    }
  }
}

void SharedMemorySum::sum(float* values, std::size_t count, const WhileWaiting& while_waiting) {
  sum_chunks(values, count, while_waiting);
}

void SharedMemorySum::sum(double* values, std::size_t count, const WhileWaiting& while_waiting) {
  sum_chunks(values, count, while_waiting);
}

}  // namespace topkfs
