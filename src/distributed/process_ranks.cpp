#include "topkfs/distributed/process_ranks.hpp"

#include <fmt/format.h>
#include <torch/types.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <unistd.h>

#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "distributed/shared_memory_sum.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs {
namespace {

using Millis = std::chrono::milliseconds;

std::vector<std::uint8_t> bytes_of(const std::string& text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

std::string text_of(const std::vector<std::uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// libtorch's messages carry a C++ stack trace after the first line.
std::string first_line(const std::string& message) { return message.substr(0, message.find('\n')); }

std::string failed_key(int rank) { return fmt::format("topkfs/failed/{}", rank); }
std::string lost_key(int rank) { return fmt::format("topkfs/lost/{}", rank); }
std::string data_key(int rank) { return fmt::format("topkfs/data/{}", rank); }
std::string read_key(int rank) { return fmt::format("topkfs/read/{}", rank); }
// Rank 0 gives the name of the shared memory of the sums under this key
// (empty: none); each rank says whether it opened it, then whether it sees
// every rank's process.
std::string segment_key(int) { return "topkfs/shared-memory"; }
std::string opened_key(int rank) { return fmt::format("topkfs/shared-memory/opened/{}", rank); }
std::string sees_key(int rank) { return fmt::format("topkfs/shared-memory/sees/{}", rank); }

// Ranks 0 .. n - 1.
std::vector<int> all_ranks(int n) {
  std::vector<int> ranks(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) ranks[static_cast<std::size_t>(r)] = r;
  return ranks;
}

// The key `key_of` names for each of the `n` ranks.
std::vector<std::string> every_rank(int n, std::string (*key_of)(int)) {
  std::vector<std::string> keys;
  for (int r = 0; r < n; ++r) keys.push_back(key_of(r));
  return keys;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

// The network device Gloo talks through: the interface GLOO_SOCKET_IFNAME
// names (as in PyTorch), loopback for a store on loopback, else the address
// this machine's hostname resolves to.
std::shared_ptr<gloo::transport::Device> gloo_device(const std::string& store_host) {
  if (const char* name = std::getenv("GLOO_SOCKET_IFNAME"); name && *name) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(name);
  }
  if (is_loopback(store_host)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

}  // namespace

struct ProcessRanks::State {
  RendezvousSettings settings;
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  // Ranks on one machine sum through shared memory instead of Gloo.
  std::unique_ptr<SharedMemorySum> local;
  bool store_hosted_here = false;  // this rank's process serves the store
  double sum_seconds = 0.0;
  long sum_calls = 0;

  std::string address() const { return fmt::format("{}:{}", settings.host, settings.port); }

  // The messages of the ranks that announced a failure, or empty.
  std::string announced_failures() {
    std::string found;
    for (int r = 0; r < settings.world_size; ++r) {
      if (r == settings.rank || !store->check({failed_key(r)})) continue;
      found += fmt::format("{}rank {} failed: {}", found.empty() ? "" : "; ", r,
                           text_of(store->get(failed_key(r))));
    }
    return found;
  }

  // After a sum failed here: who is to blame. Every rank that sees the
  // failure says so in the store; the ranks that say nothing within a few
  // seconds (and announced no failure of their own) are the ones that died
  // or hang. A store that is gone with rank 0 names rank 0.
  [[noreturn]] void blame(const std::string& cause) {
    const int me = settings.rank;
    try {
      store->set(lost_key(me), bytes_of("1"));
      const auto deadline = Clock::now() + std::chrono::seconds(3);
      while (true) {
        if (const std::string failures = announced_failures(); !failures.empty()) {
          throw DistributedError(failures);
        }
        std::vector<int> silent;
        for (int r = 0; r < settings.world_size; ++r) {
          if (r != me && !store->check({lost_key(r)})) silent.push_back(r);
        }
        if (Clock::now() >= deadline || silent.size() <= 1) {
          if (silent.empty()) {
            throw DistributedError(
                fmt::format("rank {}: the connection between the ranks broke: {}", me, cause));
          }
          throw DistributedError(fmt::format(
              "rank {} stopped answering (killed, out of memory, or its machine is gone); rank "
              "{} saw: {}",
              fmt::join(silent, ", rank "), me, cause));
        }
        std::this_thread::sleep_for(Millis(100));
      }
    } catch (const DistributedError&) {
      throw;
    } catch (const std::exception&) {
      throw DistributedError(
          fmt::format("rank 0 stopped answering: the store it holds at {} is gone; rank {} saw: {}",
                      address(), me, cause));
    }
  }

  // Polls the store until it holds `key_of(r)` for each rank r of `ranks`
  // (polled rather than waited for, so that a rank that failed meanwhile is
  // named at once). `what` says what the ranks met for, in the timeout's
  // message.
  void wait_for_ranks(std::string (*key_of)(int), const std::vector<int>& ranks, const char* what) {
    std::vector<std::string> keys;
    for (int r : ranks) keys.push_back(key_of(r));
    const auto deadline = Clock::now() + settings.timeout;
    while (!store->check(keys)) {
      if (const std::string failures = announced_failures(); !failures.empty()) {
        throw DistributedError(failures);
      }
      if (Clock::now() >= deadline) {
        std::vector<int> missing;
        for (int r : ranks) {
          if (!store->check({key_of(r)})) missing.push_back(r);
        }
        throw DistributedError(fmt::format("rank {} did not come to the {} at {} within {} s",
                                           fmt::join(missing, ", rank "), what, address(),
                                           settings.timeout.count()));
      }
      std::this_thread::sleep_for(Millis(50));
    }
  }

  // What a rank does while it waits for the others in shared memory: a rank
  // whose process ended, one that announced its failure, or no sum within
  // the timeout ends the wait with the error that names who is to blame.
  SharedMemorySum::WhileWaiting shared_memory_watch(Clock::time_point started) {
    return [this, started](int gone_rank) {
      if (gone_rank >= 0) blame(fmt::format("the process of rank {} has ended", gone_rank));
      if (const std::string failures = announced_failures(); !failures.empty()) {
        throw DistributedError(failures);
      }
      if (Clock::now() - started > settings.timeout) {
        blame(fmt::format("no sum within {} s", settings.timeout.count()));
      }
    };
  }

  // Whether every rank said "1" under `key_of`, once all have said.
  bool every_rank_says_yes(std::string (*key_of)(int)) {
    const std::vector<int> all = all_ranks(settings.world_size);
    wait_for_ranks(key_of, all, "shared memory of the sums");
    bool yes = true;
    for (int r : all) yes = yes && text_of(store->get(key_of(r))) == "1";
    return yes;
  }

  // The segment of the ranks' sums on this machine. Rank 0 creates it under
  // a name no other run uses and gives the name through the store; each rank
  // opens it and says whether it could, then whether it sees every rank's
  // process. Unless every rank could, all drop it and sum through Gloo (ranks
  // in containers that share no /dev/shm, or no process ids). Returns whether
  // the ranks sum in shared memory.
  bool open_shared_memory() {
    const int n = settings.world_size;
    const int me = settings.rank;
    if (me == 0) {
      std::string name = fmt::format("/topkfs-sum-{}-{}-{:08x}", ::getpid(), settings.port,
                                     std::random_device{}());
      try {
        local = SharedMemorySum::create(name, n);
      } catch (const DistributedError&) {
        name.clear();  // no segment: Gloo
      }
      store->set(segment_key(0), bytes_of(name));
    } else {
      wait_for_ranks(segment_key, {0}, "shared memory of the sums");
      const std::string name = text_of(store->get(segment_key(0)));
      try {
        if (!name.empty()) local = SharedMemorySum::open(name, me, n);
      } catch (const DistributedError&) {
        // Not this machine's /dev/shm: Gloo.
      }
    }
    store->set(opened_key(me), bytes_of(local ? "1" : "0"));
    bool usable = every_rank_says_yes(opened_key);
    if (usable) {
      store->set(sees_key(me), bytes_of(local->sees_every_rank() ? "1" : "0"));
      usable = every_rank_says_yes(sees_key);
    }
    // Every rank has tried to open it by now.
    if (me == 0 && local) local->unlink_name();
    if (!usable) local.reset();
    return usable;
  }

  template <typename Scalar>
  void sum(Scalar* values, std::size_t count) {
    // Alone, the sum is the values: no hand-off to Gloo's worker thread,
    // which costs milliseconds per call on a loaded machine.
    if (settings.world_size == 1) return;
    const auto start = Clock::now();
    if (local) {
      local->sum(values, count, shared_memory_watch(start));
      sum_seconds += seconds_since(start);
      ++sum_calls;
      return;
    }
    TOPKFS_ASSERT(group);
    std::vector<at::Tensor> tensors{torch::from_blob(values, {static_cast<std::int64_t>(count)},
                                                     torch::CppTypeToScalarType<Scalar>::value)};
    try {
      group->allreduce(tensors)->wait();
    } catch (const std::exception& error) {
      blame(first_line(error.what()));
    }
    sum_seconds += seconds_since(start);
    ++sum_calls;
  }

  std::unique_ptr<PendingSum> start_sum(float* values, std::size_t count);
  class Pending;
};

class ProcessRanks::State::Pending final : public PendingSum {
 public:
  Pending(State& state, at::Tensor tensor, c10::intrusive_ptr<c10d::Work> work)
      : state_(state), tensor_(std::move(tensor)), work_(std::move(work)) {}
  ~Pending() override {
    // A sum left behind by an error elsewhere: the buffer must outlive
    // Gloo's use of it.
    if (work_) {
      try {
        work_->wait();
      } catch (...) {
      }
    }
  }
  void wait() override;

 private:
  State& state_;
  at::Tensor tensor_;                    // the values, kept alive for Gloo
  c10::intrusive_ptr<c10d::Work> work_;  // null once waited for, or alone
};

std::unique_ptr<PendingSum> ProcessRanks::State::start_sum(float* values, std::size_t count) {
  if (local) {
    // In shared memory the calling thread does the sum (there is no other
    // thread to hand it to): it is done when this returns.
    sum(values, count);
    return std::make_unique<Pending>(*this, at::Tensor(), c10::intrusive_ptr<c10d::Work>());
  }
  TOPKFS_ASSERT(group);
  at::Tensor tensor = torch::from_blob(values, {static_cast<std::int64_t>(count)}, torch::kFloat);
  std::vector<at::Tensor> tensors{tensor};
  c10::intrusive_ptr<c10d::Work> work;
  // Alone, the sum is the values (as sum()).
  if (settings.world_size == 1) return std::make_unique<Pending>(*this, tensor, work);
  try {
    work = group->allreduce(tensors);
  } catch (const std::exception& error) {
    blame(first_line(error.what()));
  }
  ++sum_calls;
  return std::make_unique<Pending>(*this, std::move(tensor), std::move(work));
}

void ProcessRanks::State::Pending::wait() {
  if (!work_) return;
  const auto start = Clock::now();
  auto work = std::move(work_);
  try {
    work->wait();
  } catch (const std::exception& error) {
    state_.blame(first_line(error.what()));
  }
  state_.sum_seconds += seconds_since(start);
}

ProcessRanks::ProcessRanks(std::unique_ptr<State> state) : state_(std::move(state)) {}
ProcessRanks::~ProcessRanks() = default;

std::unique_ptr<ProcessRanks> ProcessRanks::join(const RendezvousSettings& settings) {
  if (settings.world_size < 1 || settings.rank < 0 || settings.rank >= settings.world_size) {
    throw OptionError(fmt::format("rank {} is not in 0..{} (world size {})", settings.rank,
                                  settings.world_size - 1, settings.world_size));
  }
  if (settings.port < 1 || settings.port > 65535) {
    throw OptionError(fmt::format("the store's port must be in 1..65535, got {}", settings.port));
  }
  auto state = std::make_unique<State>();
  state->settings = settings;
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(settings.port);
  options.isServer = settings.rank == 0 && !settings.store_elsewhere;
  state->store_hosted_here = options.isServer;
  options.waitWorkers = false;
  options.timeout = settings.timeout;
  try {
    state->store = c10::make_intrusive<c10d::TCPStore>(settings.host, options);
  } catch (const std::exception& error) {
    throw DistributedError(
        fmt::format("rank {} cannot {} the rendezvous store at {} within {} s ({}); check "
                    "MASTER_ADDR and MASTER_PORT (or {}), and that rank 0 runs",
                    settings.rank, options.isServer ? "open" : "reach", state->address(),
                    settings.timeout.count(), first_line(error.what()), option_ref("master")));
  }
  return std::unique_ptr<ProcessRanks>(new ProcessRanks(std::move(state)));
}

void ProcessRanks::agree_on_data(const std::string& description) {
  State& s = *state_;
  const int n = s.settings.world_size;
  s.store->set(data_key(s.settings.rank), bytes_of(description));
  s.wait_for_ranks(data_key, all_ranks(n), "rendezvous");
  const std::string reference = text_of(s.store->get(data_key(0)));
  std::string mismatch;
  for (int r = 1; r < n && mismatch.empty(); ++r) {
    const std::string other = text_of(s.store->get(data_key(r)));
    if (other != reference) {
      mismatch = fmt::format(
          "the ranks read different data: rank 0 has {}, rank {} has {}; every rank must read the "
          "same data",
          reference, r, other);
    }
  }
  if (!mismatch.empty()) {
    // The rank that hosts the store waits until every rank has read the
    // descriptions before it leaves (and the store with it), so that each
    // names the difference rather than a lost store.
    s.store->set(read_key(s.settings.rank), bytes_of("1"));
    if (s.store_hosted_here) {
      const std::vector<std::string> read = every_rank(n, read_key);
      const auto read_deadline = Clock::now() + s.settings.timeout;
      while (!s.store->check(read) && Clock::now() < read_deadline) {
        std::this_thread::sleep_for(Millis(20));
      }
    }
    throw DistributedError(mismatch);
  }
  if (s.settings.same_machine && n > 1 && s.open_shared_memory()) return;
  auto options = c10d::ProcessGroupGloo::Options::create(s.settings.timeout);
  options->devices.push_back(gloo_device(s.settings.host));
  options->threads = 1;
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("topkfs/gloo", s.store);
  try {
    s.group = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, s.settings.rank, n, options);
  } catch (const std::exception& error) {
    s.blame(first_line(error.what()));
  }
}

void ProcessRanks::announce_failure(const std::string& message) noexcept {
  try {
    state_->store->set(failed_key(state_->settings.rank), bytes_of(first_line(message)));
  } catch (...) {
    // The store is gone too: the others find out from the broken connection.
  }
}

int ProcessRanks::rank() const { return state_->settings.rank; }
int ProcessRanks::size() const { return state_->settings.world_size; }
void ProcessRanks::sum(float* values, std::size_t count) { state_->sum(values, count); }
void ProcessRanks::sum(double* values, std::size_t count) { state_->sum(values, count); }
std::unique_ptr<PendingSum> ProcessRanks::start_sum(float* values, std::size_t count) {
  return state_->start_sum(values, count);
}
double ProcessRanks::sum_seconds() const { return state_->sum_seconds; }
long ProcessRanks::sum_calls() const { return state_->sum_calls; }

struct StoreHost::State {
  c10::intrusive_ptr<c10d::TCPStore> store;
};

StoreHost::StoreHost(int world_size, std::chrono::seconds timeout)
    : state_(std::make_unique<State>()) {
  c10d::TCPStoreOptions options;
  options.port = 0;  // the system picks a free one
  options.isServer = true;
  options.waitWorkers = false;
  options.numWorkers = static_cast<std::size_t>(world_size);
  options.timeout = timeout;
  try {
    state_->store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  } catch (const std::exception& error) {
    throw DistributedError(
        fmt::format("cannot open a rendezvous store on loopback: {}", first_line(error.what())));
  }
}

StoreHost::~StoreHost() = default;
int StoreHost::port() const { return state_->store->getPort(); }

}  // namespace topkfs
