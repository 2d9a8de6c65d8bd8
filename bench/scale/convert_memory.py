#!/usr/bin/env python3
"""`topkfs convert` of a large CSV: peak anonymous memory against the row count.

Writes a CSV of ROWS rows x 50 columns (values with 6 decimals, a 0/1
target; 1.8 GB for the default 4,000,000 rows), in row blocks after
checking the free disk space, and its first tenth as a second file. Then
converts both to .npy with `topkfs convert` (which parses a plain CSV in
passes over the mapped file, by row blocks) and reads the small one with
`topkfs info` (the in-memory reader `select` uses), sampling each
process's RssAnon from /proc/PID/status every 20 ms; /usr/bin/time -v's
"Maximum resident set size" would count the mapped text, which belongs to
the page cache. Prints the peaks, the growth per row, and the load.

With --mixed, the table is a mixed one: 10 text columns of 20 levels each
and 40 numeric columns with 5% empty cells (the issue's 1,000,000-row
case: `--mixed --rows 1000000`): convert then encodes it (one-hot, medians
and missing indicators, learned in two more passes by row blocks) and
writes the encoding beside the matrix.

Usage: bench/scale/convert_memory.py [TOPKFS] [--rows N] [--dir DIR] [--keep] [--mixed]
"""
import argparse
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_process import Sampled, scratch_folder

COLUMNS = 50
BLOCK_ROWS = 100_000


def number_cells(rng, count, columns):
    """count x columns cells d.dddddd, each followed by a comma (as bytes),
    and the digits they were made of."""
    digits = rng.integers(0, 10, size=(count, columns, 7), dtype=np.uint8)
    cells = np.empty((count, columns, 9), dtype=np.uint8)
    cells[:, :, 0] = digits[:, :, 0] + ord("0")
    cells[:, :, 1] = ord(".")
    cells[:, :, 2:8] = digits[:, :, 1:] + ord("0")
    cells[:, :, 8] = ord(",")
    return cells, digits


def write_csv(path, rows, seed=3):
    """Cells d.dddddd of random digits (values in [0, 10)), and a 0/1 target
    (column 3 above column 7), written as bytes built block by block:
    numpy's savetxt would format 200 million numbers one at a time."""
    rng = np.random.default_rng(seed)
    with open(path, "wb") as out:
        out.write((",".join(f"f{j}" for j in range(COLUMNS)) + ",y\n").encode())
        for first in range(0, rows, BLOCK_ROWS):
            count = min(BLOCK_ROWS, rows - first)
            cells, digits = number_cells(rng, count, COLUMNS)
            y = (digits[:, 3, 0] > digits[:, 7, 0]).astype(np.uint8) + ord("0")
            lines = np.concatenate(
                [cells.reshape(count, COLUMNS * 9), y[:, None],
                 np.full((count, 1), ord("\n"), dtype=np.uint8)], axis=1)
            out.write(lines.tobytes())


TEXT_COLUMNS = 10
LEVELS = 20


def write_mixed_csv(path, rows, seed=3):
    """TEXT_COLUMNS text cells 'cNN' (LEVELS levels), then the numeric cells
    of write_csv with 5% of them empty (blanks), and a 0/1 target."""
    rng = np.random.default_rng(seed)
    numeric = COLUMNS - TEXT_COLUMNS
    with open(path, "wb") as out:
        names = [f"t{j}" for j in range(TEXT_COLUMNS)] + [f"f{j}" for j in range(numeric)]
        out.write((",".join(names) + ",y\n").encode())
        for first in range(0, rows, BLOCK_ROWS):
            count = min(BLOCK_ROWS, rows - first)
            level = rng.integers(0, LEVELS, size=(count, TEXT_COLUMNS), dtype=np.uint8)
            text = np.empty((count, TEXT_COLUMNS, 4), dtype=np.uint8)
            text[:, :, 0] = ord("c")
            text[:, :, 1] = level // 10 + ord("0")
            text[:, :, 2] = level % 10 + ord("0")
            text[:, :, 3] = ord(",")
            cells, _ = number_cells(rng, count, numeric)
            cells[rng.random(size=(count, numeric)) < 0.05, :8] = ord(" ")
            y = (level[:, 0] < LEVELS // 2).astype(np.uint8) + ord("0")
            lines = np.concatenate(
                [text.reshape(count, TEXT_COLUMNS * 4), cells.reshape(count, numeric * 9),
                 y[:, None], np.full((count, 1), ord("\n"), dtype=np.uint8)], axis=1)
            out.write(lines.tobytes())


def peak_rss_anon(command):
    """Peak RssAnon (MB) and seconds of a command."""
    run = Sampled(command)
    run.finish()
    return run.peak_kb / 1024, run.seconds


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("topkfs", nargs="?",
                        default=os.path.join(here, "..", "..", "build", "apps", "topkfs", "topkfs"))
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp"))
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--mixed", action="store_true",
                        help="10 text columns and 40 numeric ones with empty cells")
    args = parser.parse_args()

    small_rows = args.rows // 10
    needed = args.rows * (COLUMNS * 10 + 4 * COLUMNS + 8) * 1.2 + (1 << 30)
    free = shutil.disk_usage(args.dir).free
    print(f"disk        {free / 1e9:.1f} GB free in {args.dir}, {needed / 1e9:.1f} GB needed")
    if free < needed:
        sys.exit("not enough free disk space")
    with scratch_folder(args.dir, "topkfs_convert_memory", args.keep) as work:
        big, small = os.path.join(work, "big.csv"), os.path.join(work, "small.csv")
        write = write_mixed_csv if args.mixed else write_csv
        write(big, args.rows)
        write(small, small_rows)
        print(f"data        {args.rows} x {COLUMNS} + target CSV, "
              f"{os.path.getsize(big) / 1e9:.2f} GB; and its first {small_rows} rows,"
              f" {os.path.getsize(small) / 1e9:.2f} GB")
        print(f"load        {os.getloadavg()[0]:.2f} (1 min) before the runs,"
              f" on {os.cpu_count()} cores")
        runs = {}
        for name, path in (("small", small), ("big", big)):
            runs[name] = peak_rss_anon([args.topkfs, "convert", path, "--target", "y", "--output",
                                        os.path.join(work, name + "_X.npy"), "--y-output",
                                        os.path.join(work, name + "_y.npy")])
        runs["info"] = peak_rss_anon([args.topkfs, "info", small, "--target", "y"])
        for name, rows, (peak, seconds) in (
                ("convert, small", small_rows, runs["small"]),
                ("convert, big", args.rows, runs["big"]),
                ("info (in memory), small", small_rows, runs["info"])):
            print(f"{name:24s} {rows:9d} rows: peak RssAnon {peak:7.0f} MB, {seconds:6.1f} s")
        growth = (runs["big"][0] - runs["small"][0]) * 1e6 / (args.rows - small_rows)
        print(f"growth      convert: {growth:.1f} bytes of peak RssAnon per row"
              f" (the matrix is {4 * COLUMNS} bytes a row)")
        print(f"load        {os.getloadavg()[0]:.2f} (1 min) after the runs")


if __name__ == "__main__":
    main()
