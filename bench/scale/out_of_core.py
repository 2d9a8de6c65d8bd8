#!/usr/bin/env python3
"""Out-of-core training: peak anonymous memory and epoch time per row.

Generates a 2,000,000 x 500 float32 .npy (4 GB) with a planted support, in
row blocks (never the whole matrix in memory), after checking the free disk
space; then times `topkfs select X.npy --method dnn-top --k 20 --epochs 1`:

  (a) the 2,000,000 rows mapped from the file: peak RssAnon (sampled from
      /proc/PID/status every 20 ms) and the epoch time per row;
  (b) the first ROWS_IN_MEMORY rows, read into memory (--in-memory);
  (c) the same rows mapped;

(b) and (c) run twice, before and after (a), and their times are averaged;
all with the page cache warm (the files are read once before the runs). It
prints the ratios (a)/(b) and (c)/(b) of the time per training row, and
the load average, then deletes the files.

Usage: bench/scale/out_of_core.py [TOPKFS] [--rows N] [--keep] [--dir DIR]
"""
import argparse
import json
import os
import shutil
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_process import Sampled, scratch_folder

COLUMNS = 500
SUPPORT = 10
BLOCK_ROWS = 50_000
ROWS_IN_MEMORY = 500_000


def write_planted(path_x, path_y, rows, seed=7):
    """X ~ N(0, 1); y = 1 when a fixed mix of SUPPORT columns is positive."""
    rng = np.random.default_rng(seed)
    support = np.arange(0, COLUMNS, COLUMNS // SUPPORT)[:SUPPORT]
    weights = rng.standard_normal(SUPPORT)
    x = np.lib.format.open_memmap(path_x, mode="w+", dtype="<f4", shape=(rows, COLUMNS))
    y = np.empty(rows, dtype="<i8")
    for first in range(0, rows, BLOCK_ROWS):
        last = min(rows, first + BLOCK_ROWS)
        block = rng.standard_normal((last - first, COLUMNS), dtype=np.float32)
        signal = block[:, support] @ weights + 0.5 * np.sin(3 * block[:, support[0]])
        y[first:last] = signal > 0
        x[first:last] = block
        x.flush()
    del x
    np.save(path_y, y)
    return support


def copy_prefix(source_x, source_y, path_x, path_y, rows):
    big = np.load(source_x, mmap_mode="r")
    out = np.lib.format.open_memmap(path_x, mode="w+", dtype="<f4", shape=(rows, COLUMNS))
    for first in range(0, rows, BLOCK_ROWS):
        last = min(rows, first + BLOCK_ROWS)
        out[first:last] = big[first:last]
    out.flush()
    del out
    np.save(path_y, np.load(source_y)[:rows])


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def run_select(topkfs, x, y, extra):
    command = [topkfs, "select", x, "--y-file", y, "--method", "dnn-top", "--k", "20",
               "--epochs", "1", "--json", "--quiet", "--seed", "1"] + extra
    run = Sampled(command)
    out, _, _ = run.finish()
    result = json.loads(out)
    epoch = result["history"][0]["seconds"]
    train_rows = result["data"]["rows"]
    for note in result.get("notes", []):
        if "training rows" in note:
            train_rows = int(note.split(" training rows")[0].split()[-1])
    return {"peak_mb": run.peak_kb / 1024, "epoch_s": epoch, "train_rows": train_rows,
            "per_row_us": 1e6 * epoch / train_rows, "selected": result["selected"]}


def mean_run(runs):
    """The first run with the times averaged over `runs` and the peak the largest."""
    out = dict(runs[0])
    for key in ("epoch_s", "per_row_us"):
        out[key] = sum(r[key] for r in runs) / len(runs)
    out["peak_mb"] = max(r["peak_mb"] for r in runs)
    out["spread"] = max(r["per_row_us"] for r in runs) / min(r["per_row_us"] for r in runs)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("topkfs", nargs="?",
                        default=os.path.join(here, "..", "..", "build", "apps", "topkfs", "topkfs"))
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp"))
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args()

    prefix = min(ROWS_IN_MEMORY, args.rows)
    needed = (args.rows + prefix) * COLUMNS * 4 + (1 << 30)
    free = shutil.disk_usage(args.dir).free
    print(f"disk        {free / 1e9:.1f} GB free in {args.dir}, {needed / 1e9:.1f} GB needed")
    if free < needed:
        sys.exit("not enough free disk space")
    with scratch_folder(args.dir, "topkfs_out_of_core", args.keep) as work:
        big_x, big_y = os.path.join(work, "X.npy"), os.path.join(work, "y.npy")
        small_x, small_y = os.path.join(work, "X_small.npy"), os.path.join(work, "y_small.npy")
        start = time.time()
        support = write_planted(big_x, big_y, args.rows)
        copy_prefix(big_x, big_y, small_x, small_y, prefix)
        print(f"generated   {args.rows} x {COLUMNS} float32 ({os.path.getsize(big_x) / 1e9:.2f} GB)"
              f" and its first {prefix} rows in {time.time() - start:.0f} s;"
              f" planted {[int(c) for c in support]}")
        for path in (big_x, small_x):
            warm(path)
        print(f"load        {os.getloadavg()[0]:.2f} (1 min) before the runs,"
              f" on {os.cpu_count()} cores")
        # (b) and (c) before and after (a), so that a change of the machine's
        # load during the long run hits the baseline alike.
        memory_runs = [run_select(args.topkfs, small_x, small_y, ["--in-memory"])]
        small_runs = [run_select(args.topkfs, small_x, small_y, [])]
        mapped = run_select(args.topkfs, big_x, big_y, [])
        memory_runs.append(run_select(args.topkfs, small_x, small_y, ["--in-memory"]))
        small_runs.append(run_select(args.topkfs, small_x, small_y, []))
        memory, mapped_small = mean_run(memory_runs), mean_run(small_runs)
        print(f"runs        (b) and (c) twice each, before and after (a); their two times per"
              f" row differ by {100 * (memory['spread'] - 1):.0f}% and"
              f" {100 * (mapped_small['spread'] - 1):.0f}%")
        for name, r in (("(a) mapped, all rows", mapped), ("(b) in memory, prefix", memory),
                        ("(c) mapped, prefix", mapped_small)):
            print(f"{name:24s} epoch {r['epoch_s']:7.1f} s over {r['train_rows']} training rows:"
                  f" {r['per_row_us']:6.2f} us/row; peak RssAnon {r['peak_mb']:7.0f} MB;"
                  f" planted selected {len(set(r['selected']) & set(support))}/{SUPPORT}")
        print(f"ratio       time per row (a)/(b) = {mapped['per_row_us'] / memory['per_row_us']:.3f}"
              f" (target <= 1.3), (c)/(b) = {mapped_small['per_row_us'] / memory['per_row_us']:.3f}")
        print(f"memory      peak RssAnon (a) = {mapped['peak_mb']:.0f} MB (target <= 600 MB);"
              f" (b) holds its {prefix} rows: {memory['peak_mb']:.0f} MB")
        print(f"load        {os.getloadavg()[0]:.2f} (1 min) after the runs")


if __name__ == "__main__":
    main()
