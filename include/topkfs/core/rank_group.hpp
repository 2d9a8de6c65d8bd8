#pragma once
// The ranks of a data-parallel fit, as the library sees them: who this
// process is, how many there are, and a sum over all of them. The transport
// behind it (c10d's Gloo process group, src/distributed) stays out of the
// methods, so that the linear methods, which do not link libtorch, reduce
// their statistics through the same seam as the neural trainer.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace topkfs {

// A sum over the ranks started and not yet waited for.
class PendingSum {
 public:
  virtual ~PendingSum() = default;
  // Returns once the values are the sum; throws as RankGroup::sum does.
  virtual void wait() = 0;
};

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Replaces `values` by their sum over the ranks; every rank calls it at the
  // same point with the same count. Throws DistributedError naming the rank
  // that failed or stopped answering.
  virtual void sum(float* values, std::size_t count) = 0;
  virtual void sum(double* values, std::size_t count) = 0;
  // The same without waiting: the caller may compute meanwhile, must leave
  // `values` alone until wait() returns, and waits for every sum it starts.
  // Every rank starts its sums in the same order. This default sums at once.
  virtual std::unique_ptr<PendingSum> start_sum(float* values, std::size_t count) {
    sum(values, count);
    struct Done final : PendingSum {
      void wait() override {}
    };
    return std::make_unique<Done>();
  }
};

// The file rows one rank owns: [begin, end). Shards are contiguous row
// ranges, so that a rank reading from disk reads one range.
struct RowShard {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  bool contains(std::int64_t row) const { return row >= begin && row < end; }
};

// Rank `rank` of `size`'s share of `rows` rows: the first rows % size ranks
// hold one row more than the others.
inline RowShard row_shard(std::int64_t rows, int rank, int size) {
  const std::int64_t base = rows / size, extra = rows % size;
  const std::int64_t begin = rank * base + (rank < extra ? rank : extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

}  // namespace topkfs
