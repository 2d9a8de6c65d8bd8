#pragma once
// The data-parallel flags of `select` (docs/scale.md): a process is alone,
// a launcher of N local ranks (--nproc N), or one rank of a run that
// torchrun, Slurm or the user started, told who it is by the PyTorch
// variables RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT or by --rank,
// --world-size and --master (a flag wins over its variable).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "topkfs/core/cpu_share.hpp"
#include "topkfs/distributed/process_ranks.hpp"

namespace topkfs::cli {

struct DistributedFlags {
  int nproc = 0;
  std::optional<int> rank;
  std::optional<int> world_size;
  std::string master;  // ADDR:PORT
  int timeout = 300;   // seconds
};

void add_distributed_flags(CLI::App& command, DistributedFlags& flags);

struct DistributedRole {
  enum Kind { Alone, Launcher, Rank } kind = Alone;
  RendezvousSettings rendezvous;  // for Rank
};

// From the flags and the environment; throws OptionError for an incomplete
// or contradictory set (naming the flag or variable).
DistributedRole distributed_role(const DistributedFlags& flags);

// The launcher: starts `flags.nproc` ranks of this very command line on
// this machine around a store it hosts, waits for them and returns 0 when
// every rank succeeded. Rank 0 keeps this process's stdout and stderr; the
// others' output is kept aside, and shown only when one of them fails first
// (every rank meets the same bad option or file: one copy of its message).
// When a rank fails the others are given --timeout seconds to stop on their
// own, then killed. A usage error of the ranks returns their exit status
// (2); any other failure throws DistributedError naming the rank that
// failed first.
int launch_local_ranks(const DistributedFlags& flags);

// Why `ranks` local ranks cannot beat one process on a machine measured as
// `load` (fewer free cores than ranks: they take turns), or empty;
// the launcher prints it once as a warning before it starts them.
std::string core_shortage(int ranks, const CoreLoad& load);

}  // namespace topkfs::cli
