#pragma once
// Ranks of a data-parallel run as threads of one process, over c10d's Gloo
// on loopback (or shared memory) around a store the test hosts (as `select --nproc` does):
// each thread joins, agrees on the data and runs `work` with its ranks.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "topkfs/distributed/process_ranks.hpp"

namespace topkfs::test {

// Runs `work(ranks, rank)` on `count` ranks, one thread each, and fails the
// test with a rank's error message when one throws. `same_machine`: the
// ranks sum through shared memory rather than Gloo.
inline void run_ranks_in_threads(int count,
                                 const std::function<void(ProcessRanks&, int rank)>& work,
                                 bool same_machine = false) {
  std::vector<std::string> errors(static_cast<std::size_t>(count));
  const StoreHost store(count, std::chrono::seconds(60));
  std::vector<std::thread> threads;
  for (int r = 0; r < count; ++r) {
    threads.emplace_back([&, r] {
      try {
        RendezvousSettings settings;
        settings.rank = r;
        settings.world_size = count;
        settings.port = store.port();
        settings.store_elsewhere = true;
        settings.timeout = std::chrono::seconds(60);
        settings.same_machine = same_machine;
        const auto ranks = ProcessRanks::join(settings);
        ranks->agree_on_data("same");
        work(*ranks, r);
      } catch (const std::exception& error) {
        errors[static_cast<std::size_t>(r)] = error.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int r = 0; r < count; ++r)
    EXPECT_EQ(errors[static_cast<std::size_t>(r)], "") << "rank " << r;
}

}  // namespace topkfs::test
