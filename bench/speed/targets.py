#!/usr/bin/env python3
"""The speed targets in one table, from one run of the benchmarks behind them.

Runs, one after the other on this machine:
  - build/bench/dnn_epoch_bench --breakdown --no-memory: dnn-top's MNIST epoch
    on one thread against the plain-autograd reference DNN^top, its step
    against the sum of its GEMMs timed alone (the GEMM floor), and a team of
    two threads against one;
  - bench/io/hdf5_epochs.py with 1 and 2 threads: USPS epochs from usps.h5 in
    memory and streamed by row blocks, against the same rows from .npy;
  - bench/speed/data_parallel_scaling.py: select --nproc 2 against one process
    (MNIST, dnn-top at its defaults, one thread a process);
each writing its figures with --json, then prints every ratio beside its
target. Each ratio is measured within its own benchmark's interleaved
rounds, so a slower phase of the machine hits both sides of it; run it on an
otherwise idle machine all the same (about 25 minutes with the defaults).

Usage: /usr/bin/python3 bench/speed/targets.py [--build build] [--data ../shared/data]
                                                [--rounds 3] [--skip NAME,...]
                                                [--only NAME,...]
NAME: epoch, hdf5, nproc.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
from bench_paths import shared_data_dir  # noqa: E402

# name, what, figure key in the benchmark's JSON, target, True when the
# figure must be at most the target (False: at least).
TARGETS = [
    ("epoch", "one core: dnn-top epoch / plain PyTorch-style DNN^top", "dnn_top_over_reference",
     0.25, True),
    ("epoch", "one core: dnn-top step / its GEMMs alone (the floor)", "dnn_top_over_gemm_floor",
     1.15, True),
    ("epoch", "two threads: speed-up of a team of two over one thread", "team_of_two_speedup",
     1.6, False),
    ("hdf5", "USPS usps.h5 in memory / .npy, 1 thread", "h5_over_npy@1", 1.1, True),
    ("hdf5", "USPS usps.h5 streamed / .npy, 1 thread", "h5_stream_over_npy@1", 1.3, True),
    ("hdf5", "USPS usps.h5 in memory / .npy, 2 threads", "h5_over_npy@2", 1.1, True),
    ("hdf5", "USPS usps.h5 streamed / .npy, 2 threads", "h5_stream_over_npy@2", 1.3, True),
    ("nproc", "--nproc 2 / one process, epoch time, one thread each", "nproc2_over_plain", 0.8,
     True),
    ("nproc", "--nproc 2 / one process, epoch time, default threads", "nproc2_over_plain_defaults",
     0.8, True),
]


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_json(command, path):
    print("$ " + " ".join(command), flush=True)
    subprocess.run(command, check=True)
    with open(path) as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--data", default=shared_data_dir(ROOT))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip", default="")
    parser.add_argument("--only", default="", help="run these benchmarks alone (NAME,...)")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    only = set(filter(None, args.only.split(",")))
    if only:
        skip |= {"epoch", "hdf5", "nproc"} - only
    topkfs = os.path.join(args.build, "apps", "topkfs", "topkfs")
    figures = {}
    started = load()
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "figures.json")
        if "epoch" not in skip:
            figures.update(run_json(
                [os.path.join(args.build, "bench", "dnn_epoch_bench"), args.data, "--breakdown",
                 "--no-memory", "--rounds", str(args.rounds), "--json", out], out))
        if "hdf5" not in skip:
            for threads in (1, 2):
                got = run_json(
                    ["/usr/bin/python3", os.path.join(ROOT, "bench", "io", "hdf5_epochs.py"),
                     topkfs, "--data", args.data, "--rounds", str(args.rounds), "--threads",
                     str(threads), "--json", out], out)
                figures[f"h5_over_npy@{threads}"] = got["h5_over_npy"]
                figures[f"h5_stream_over_npy@{threads}"] = got["h5_stream_over_npy"]
        if "nproc" not in skip:
            figures.update(run_json(
                ["/usr/bin/python3", os.path.join(HERE, "data_parallel_scaling.py"), "--topkfs",
                 topkfs, "--data", os.path.join(args.data, "mnist"), "--rounds",
                 str(max(2, args.rounds - 1)), "--defaults", "--json", out], out))
    print(f"\nSpeed targets (load average {started} at the start, {load()} at the end; "
          f"{os.cpu_count()} cores)\n")
    print(f"| {'measure':58s} | figure | target | |")
    print(f"|{'-' * 60}|--------|--------|---|")
    for name, what, key, target, at_most in TARGETS:
        if name in skip or key not in figures:
            continue
        value = figures[key]
        met = value <= target if at_most else value >= target
        sign = "<=" if at_most else ">="
        print(f"| {what:58s} | {value:6.3f} | {sign} {target:<4} | {'met' if met else 'NOT met'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
