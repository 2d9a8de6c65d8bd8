#pragma once
// The ranks of a data-parallel run as processes (docs/scale.md): a c10d
// TCPStore for the rendezvous and c10d's Gloo process group for the sums,
// from Debian's libtorch, or shared memory for ranks on one machine. This
// header keeps libtorch out of its users.
#include <chrono>
#include <memory>
#include <string>

#include "topkfs/core/rank_group.hpp"

namespace topkfs {

struct RendezvousSettings {
  int rank = 0;
  int world_size = 1;
  std::string host = "127.0.0.1";  // of the store (MASTER_ADDR)
  int port = 29500;                // MASTER_PORT
  // How long a rank waits for the store, for the others at the rendezvous
  // and for a sum, before it gives up.
  std::chrono::seconds timeout{300};
  // A launcher (`select --nproc`) hosts the store; otherwise rank 0 does.
  bool store_elsewhere = false;
  // Every rank runs on this machine (`select --nproc`, or LOCAL_WORLD_SIZE
  // equal to the world size): the sums go through shared memory rather
  // than Gloo's sockets (docs/scale.md, "Ranks on one machine").
  bool same_machine = false;
};

class ProcessRanks final : public RankGroup {
 public:
  // Connects to the store (rank 0 opens it unless store_elsewhere). Throws
  // DistributedError naming the address when it cannot be reached within
  // the timeout.
  static std::unique_ptr<ProcessRanks> join(const RendezvousSettings& settings);
  ~ProcessRanks() override;

  // The rendezvous: every rank gives a description of its data; unless all
  // are the same, every rank throws DistributedError naming the first rank
  // that differs from rank 0. Then the Gloo group forms. A rank that
  // announced a failure meanwhile is named at once instead of waited for.
  void agree_on_data(const std::string& description);
  // Best effort, never throws: tells the other ranks why this one stops, so
  // that their errors name the cause.
  void announce_failure(const std::string& message) noexcept;

  int rank() const override;
  int size() const override;
  void sum(float* values, std::size_t count) override;
  void sum(double* values, std::size_t count) override;
  // Hands the sum to Gloo's worker thread, which works through the sums in
  // the order they were started while this thread computes.
  std::unique_ptr<PendingSum> start_sum(float* values, std::size_t count) override;

  // Time spent in sum() and in the waits of started sums so far (waiting for
  // the slowest rank included), and the number of sums.
  double sum_seconds() const;
  long sum_calls() const;

 private:
  struct State;
  explicit ProcessRanks(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The store of the ranks a launcher starts on this machine, on a loopback
// port the system picks (no race for a free port).
class StoreHost {
 public:
  StoreHost(int world_size, std::chrono::seconds timeout);
  ~StoreHost();
  StoreHost(const StoreHost&) = delete;
  StoreHost& operator=(const StoreHost&) = delete;
  int port() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace topkfs
