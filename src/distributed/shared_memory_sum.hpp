#pragma once
// The sum over ranks that run on one machine, through a POSIX shared-memory
// segment instead of Gloo's loopback sockets (docs/scale.md, "Ranks on one
// machine"). Over loopback a sum is a chain of hand-offs between threads of
// both processes (the caller's, Gloo's worker, its socket thread), each of
// which waits for a core while every core computes; here the calling thread
// copies its values into its slot, meets the others at a barrier in the
// segment and adds the slots itself: one copy, one wait and N reads.
//
// Every rank adds the slots in rank order, so all ranks hold bitwise the same
// sum, the same for every run with this rank count (for 2 ranks the same as
// Gloo's, since a + b == b + a in floating point).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace topkfs {

class SharedMemorySum {
 public:
  // Called about every 50 ms while a rank waits for the others; it throws to
  // stop the wait (a rank that is gone, a timeout). Its argument is the rank
  // whose process has ended, or -1.
  using WhileWaiting = std::function<void(int gone_rank)>;

  // Rank 0 creates the segment `name` (a name for shm_open, "/..."); the
  // others open it once rank 0 has said it exists. Throws DistributedError
  // naming the segment when the system refuses it.
  static std::unique_ptr<SharedMemorySum> create(const std::string& name, int ranks);
  static std::unique_ptr<SharedMemorySum> open(const std::string& name, int rank, int ranks);
  ~SharedMemorySum();
  SharedMemorySum(const SharedMemorySum&) = delete;
  SharedMemorySum& operator=(const SharedMemorySum&) = delete;

  // True when every rank has opened the segment and this one sees each
  // other rank's process running: the ranks share their process ids, so
  // that a wait can tell a rank that has ended (not so across containers
  // that share /dev/shm but not their process ids).
  bool sees_every_rank() const;
  // Removes the segment's name once every rank has opened it, so that
  // nothing is left in /dev/shm whatever happens later (the mappings stay).
  void unlink_name();

  // Replaces `values` by their sum over the ranks, in rank order; every rank
  // calls it at the same point with the same count.
  void sum(float* values, std::size_t count, const WhileWaiting& while_waiting);
  void sum(double* values, std::size_t count, const WhileWaiting& while_waiting);

 private:
  struct Mapping;
  SharedMemorySum(std::unique_ptr<Mapping> mapping, int rank);
  template <typename Scalar>
  void sum_chunks(Scalar* values, std::size_t count, const WhileWaiting& while_waiting);
  void arrive_and_wait(const WhileWaiting& while_waiting);
  int gone_rank() const;

  std::unique_ptr<Mapping> mapping_;
  int rank_;
  unsigned long chunks_ = 0;  // chunks summed so far: which of the two slot sets is next
};

}  // namespace topkfs
