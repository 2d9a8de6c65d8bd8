#!/usr/bin/env python3
"""Data-parallel scaling of `topkfs select` on this machine's loopback.

MNIST (the predefined 60000 training rows), dnn-top, k = 50, one thread per
process (--threads 1, OPENBLAS_NUM_THREADS=1), three runs per round,
alternating so that a slow phase of a shared machine hits them alike:

  plain   `select`                      (one process)
  nproc1  `select --nproc 1`            (the launcher and one rank)
  nproc2  `select --nproc 2`            (two ranks, one thread each)

and, with --defaults, the same without --threads 1 and the BLAS limits:
`select` with its default threads (every free core) against `select
--nproc 2` with its own (each rank its share of the cores), the comparison
a user who adds processes makes.

`--batch` is per rank (PyTorch DDP's convention): at the defaults one
process takes 128 rows a step and two ranks 2 x 128, so an epoch is half as
many steps of the same size on each rank.

It prints the load average around each round, every run's seconds per epoch
(the result's history), and then: the epoch-time ratio nproc2 / plain (the
target is at most 0.8), nproc1 / plain (at most 1.03), whether --nproc 1
selected plain's 50 pixels and how many of them the 2 ranks share, and the time rank 0 spent in the sums over the
ranks per step (the result's sum_wait_ms_per_step: the part of the sums the
backward pass did not hide, waiting for the slower rank included). Run from the checkout after a build:

  bench/speed/data_parallel_scaling.py [--topkfs build/apps/topkfs/topkfs]
                                       [--data ../shared/data/mnist] [--rounds 2]
                                       [--epochs 1] [--batch N] [--defaults]
                                       [--json FILE]

--json FILE writes the two ratios (nproc2_over_plain, nproc1_over_plain) for
bench/speed/targets.py.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(topkfs, data, epochs, extra, output, one_thread=True):
    env = dict(os.environ)
    threads = []
    if one_thread:
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        threads = ["--threads", "1"]
    command = [topkfs, "select", data, "--method", "dnn-top", "--k", "50", "--epochs",
               str(epochs), "--min-steps", "0", "--patience", "0", "--seed", "1", "-q",
               "-o", output] + threads + extra
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(output) as f:
        result = json.load(f)
    epoch_seconds = statistics.mean(e["seconds"] for e in result["history"])
    per_step = result["options"].get("sum_wait_ms_per_step")
    return epoch_seconds, result["selected"], per_step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topkfs", default=os.path.join(HERE, "..", "..", "build", "apps",
                                                         "topkfs", "topkfs"))
    parser.add_argument("--data", default=os.path.join(HERE, "..", "..", "..", "shared",
                                                       "data", "mnist"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=None,
                        help="rows a step of each process (default: dnn-top's own); a larger "
                             "one gives each step more work for the same sum")
    parser.add_argument("--defaults", action="store_true",
                        help="also one process and 2 ranks at their default threads")
    parser.add_argument("--json")
    args = parser.parse_args()
    batch = ["--batch", str(args.batch)] if args.batch else []
    variants = {"plain": batch, "nproc1": ["--nproc", "1"] + batch,
                "nproc2": ["--nproc", "2"] + batch}
    if args.defaults:
        variants.update({"plain-defaults": batch, "nproc2-defaults": ["--nproc", "2"] + batch})
    seconds = {name: [] for name in variants}
    selected = {}
    sums = []
    with tempfile.TemporaryDirectory() as folder:
        for r in range(args.rounds):
            print(f"round {r + 1}: load average {load()}", flush=True)
            for name, extra in variants.items():
                epoch, chosen, per_step = run(args.topkfs, args.data, args.epochs, extra,
                                              os.path.join(folder, name + ".json"),
                                              one_thread=not name.endswith("-defaults"))
                seconds[name].append(epoch)
                selected[name] = sorted(chosen)
                if name == "nproc2":
                    sums.append(per_step)
                print(f"  {name:15s} {epoch:8.2f} s per epoch", flush=True)
        print(f"load average at the end {load()} (2 cores)")
    plain = statistics.median(seconds["plain"])
    print(f"epoch time ratio, 2 processes x 1 thread / 1 process x 1 thread: "
          f"{statistics.median(seconds['nproc2']) / plain:.3f} (target <= 0.8)")
    print(f"epoch time ratio, --nproc 1 / plain select: "
          f"{statistics.median(seconds['nproc1']) / plain:.3f} (target <= 1.03)")
    ratios = {"nproc2_over_plain": statistics.median(seconds["nproc2"]) / plain,
              "nproc1_over_plain": statistics.median(seconds["nproc1"]) / plain}
    if args.defaults:
        ratios["nproc2_over_plain_defaults"] = (statistics.median(seconds["nproc2-defaults"]) /
                                                statistics.median(seconds["plain-defaults"]))
        print(f"epoch time ratio at the default threads, 2 processes / 1 process: "
              f"{ratios['nproc2_over_plain_defaults']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(ratios, f)
    # --nproc 1 takes one process's steps; 2 ranks take steps of twice the
    # rows, so they learn otherwise and share most, not all, of the pixels.
    print(f"--nproc 1 selects as plain select: {selected['plain'] == selected['nproc1']}")
    shared = len(set(selected["plain"]) & set(selected["nproc2"]))
    print(f"pixels the 2 ranks share with one process: {shared} of {len(selected['plain'])}")
    print(f"wait for the sums over the ranks per step, rank 0 (2 processes): "
          f"{statistics.median(sums):.3f} ms (median of rounds)")


if __name__ == "__main__":
    main()
