#!/usr/bin/env python3
"""What reading an HDF5 file costs the command, two builds side by side:
`topkfs info FILE` (the read, its checks and the summary) run by two
`topkfs` binaries in fresh processes, rounds interleaved (A, B, A, B, ...),
each under /usr/bin/time -v for its wall time and peak resident memory.
Prints each build's median and the ratio B / A, which is what a comparison
on a shared machine can state (the load is printed with it).

Usage: bench/io/reader_process_ab.py A_TOPKFS B_TOPKFS [--file usps.h5]
       [--rounds 15]
(--file defaults to usps.h5 of the shared data beside the checkout.)
"""
import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_paths import shared_data_dir


def timed(topkfs, path):
    """(wall seconds, peak resident MB) of `topkfs info path`, the reader
    program included (time -v counts the waited-for children)."""
    run = subprocess.run(["/usr/bin/time", "-v", topkfs, "info", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    wall = rss = None
    for line in run.stderr.splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            clock = line.rsplit(" ", 1)[1].split(":")
            wall = sum(float(part) * 60 ** i for i, part in enumerate(reversed(clock)))
        if line.startswith("Maximum resident set size"):
            rss = int(line.rsplit(" ", 1)[1]) / 1024
    return wall, rss


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    parser.add_argument("--file", default=os.path.join(shared_data_dir(root), "usps", "usps.h5"))
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with open("/proc/loadavg") as f:
        print(f"load before: {f.read().strip()}")
    times = {"A": [], "B": []}
    memory = {"A": [], "B": []}
    timed(args.a, args.file)  # the page cache warmed for both
    for _ in range(args.rounds):
        for name, topkfs in (("A", args.a), ("B", args.b)):
            wall, rss = timed(topkfs, args.file)
            times[name].append(wall)
            memory[name].append(rss)
    for name, topkfs in (("A", args.a), ("B", args.b)):
        print(f"{name} {topkfs}: median {statistics.median(times[name]):.3f} s "
              f"(min {min(times[name]):.3f}, max {max(times[name]):.3f}), peak RSS "
              f"{statistics.median(memory[name]):.0f} MB")
    ratio = statistics.median(times["B"]) / statistics.median(times["A"])
    print(f"B / A wall time: {ratio:.3f} over {args.rounds} interleaved rounds")
    with open("/proc/loadavg") as f:
        print(f"load after: {f.read().strip()}")


if __name__ == "__main__":
    main()
