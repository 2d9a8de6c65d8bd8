#!/usr/bin/env python3
"""Training epochs from HDF5 against the same rows from `.npy`: USPS's
training rows (7291 x 256 float32, `usps.h5` as shipped: gzip, chunks of
456 rows x 16 columns) trained by dnn-top from

  - npy:        the same rows written as a `.npy` pair (mapped);
  - h5:         usps.h5 read into memory (it fits half the memory budget);
  - h5-stream:  usps.h5 above half the memory budget, forced by a budget
                below twice the matrix (TOPKFS_MEMORY_LIMIT, default 16M):
                written by the HDF5 reader program to an unnamed temporary
                file and mapped from there (docs/scale.md; builds before
                2026-12-07 read it by row blocks).

Each a `topkfs select ... --epochs E --min-steps 0 --threads T` in a fresh
process under /usr/bin/time, rounds interleaved; the figures are the median
epoch time of epochs 2..E from the result's history (the ratios against npy
within a round) and the process's peak resident memory.
With `--compare OTHER` (repeatable), every round runs the three arms with
OTHER (another build, e.g. the one before a change) too, so that every
build's ratios come from the same minutes of the machine.

Usage: bench/io/hdf5_epochs.py [TOPKFS] [--compare OTHER] [--data DIR]
       [--rounds 3] [--epochs 6] [--threads 1] [--limit 16M] [--dir DIR]
       [--json FILE]
--json FILE writes the first build's median ratios (h5_over_npy,
h5_stream_over_npy) and its thread count, for bench/speed/targets.py.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_process import scratch_folder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def epoch_seconds(topkfs, data_args, folder, name, args, extra_env):
    """The median epoch time in seconds, and the peak resident memory in MB."""
    out = os.path.join(folder, name + ".json")
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(args.threads), **extra_env)
    run = subprocess.run(["/usr/bin/time", "-f", "%M", topkfs, "select", *data_args,
                          "--method", "dnn-top", "--k", "50", "--epochs", str(args.epochs),
                          "--min-steps", "0", "--threads", str(args.threads), "-q", "-o", out],
                         check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    peak_mb = int(run.stderr.split()[-1]) / 1024
    with open(out) as f:
        result = json.load(f)
    history = result.get("history") or result["training"]["history"]
    return statistics.median(e["seconds"] for e in history[1:]), peak_mb


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("topkfs", nargs="?",
                        default=os.path.join(ROOT, "build", "apps", "topkfs", "topkfs"))
    parser.add_argument("--compare", action="append", default=[],
                        help="another topkfs build, run in the same rounds (repeatable)")
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", default="16M")
    parser.add_argument("--dir", default="/tmp")
    parser.add_argument("--json")
    args = parser.parse_args()
    h5 = os.path.join(args.data, "usps", "usps.h5")
    if not os.path.exists(h5):
        sys.exit(f"{h5} not found")
    with scratch_folder(args.dir, "hdf5_epochs") as folder:
        with h5py.File(h5, "r") as f:
            x, y = f["train/data"][:], f["train/target"][:]
        np.save(os.path.join(folder, "x.npy"), x.astype(np.float32))
        np.save(os.path.join(folder, "y.npy"), y.astype(np.int32))
        arms = {
            "npy": ([os.path.join(folder, "x.npy"), "--y-file", os.path.join(folder, "y.npy")],
                    {}),
            # The predefined split: the training rows alone, as in the .npy.
            "h5": ([h5], {}),
            "h5-stream": ([h5], {"TOPKFS_MEMORY_LIMIT": args.limit}),
        }
        builds = {"": args.topkfs}
        for i, other in enumerate(args.compare):
            builds[f"compared{i + 1} "] = other
        rounds = []
        peaks = []
        for r in range(args.rounds):
            measured = {label + name: epoch_seconds(build, data, folder, name, args, env)
                        for label, build in builds.items()
                        for name, (data, env) in arms.items()}
            rounds.append({n: m[0] for n, m in measured.items()})
            peaks.append({n: m[1] for n, m in measured.items()})
            print(f"round {r + 1}: " + ", ".join(f"{n} {s * 1000:.1f} ms"
                                                 for n, s in rounds[-1].items()), flush=True)
    print(f"\nepoch time (median of epochs 2..{args.epochs}), {args.threads} thread(s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads,
                       "h5_over_npy": statistics.median(r["h5"] / r["npy"] for r in rounds),
                       "h5_stream_over_npy": statistics.median(
                           r["h5-stream"] / r["npy"] for r in rounds)}, f)
    for label, build in builds.items():
        print(f"\n{build}")
        print("| arm | ms per epoch (median over rounds) | / npy (median, min-max) "
              "| peak RSS, MB (median) |")
        print("|---|---|---|---|")
        for name in arms:
            ratios = [r[label + name] / r[label + "npy"] for r in rounds]
            ms = statistics.median(r[label + name] for r in rounds) * 1000
            peak = statistics.median(p[label + name] for p in peaks)
            print(f"| {name} | {ms:.1f} | {statistics.median(ratios):.2f} "
                  f"({min(ratios):.2f}-{max(ratios):.2f}) | {peak:.0f} |")


if __name__ == "__main__":
    main()
