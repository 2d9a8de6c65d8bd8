#!/usr/bin/env python3
"""Data-parallel reading: how much of a mapped file each rank reads.

Generates a ROWS x 500 float32 .npy with a planted support
(bench/scale/out_of_core.py's generator, in row blocks), then runs `topkfs select X.npy --method dnn-top
--k 20 --epochs 1 --threads 1` once as one process and once as 2 ranks
started by hand (--rank/--world-size/--master), each time with the file
dropped from the page cache first (posix_fadvise DONTNEED), so that every
page a process touches is read from the disk and counted in its
ru_inblock (the "File system inputs" of /usr/bin/time). It prints, per
process, the bytes read from the disk against the file's size, the peak
RssAnon (sampled every 20 ms) and the selection, and the load average.

Usage: bench/scale/shard_reads.py [TOPKFS] [--rows N] [--dir DIR] [--keep]
"""
import argparse
import json
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_process import Sampled, scratch_folder
from out_of_core import COLUMNS, write_planted


def drop_from_cache(path):
    with open(path, "rb") as f:
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measured(run):
    out, _, usage = run.finish()
    return {"read_mb": usage.ru_inblock * 512 / 1e6, "peak_mb": run.peak_kb / 1024,
            "result": json.loads(out) if out.strip() else None}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("topkfs", nargs="?",
                        default=os.path.join(here, "..", "..", "build", "apps", "topkfs", "topkfs"))
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp"))
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args()

    with scratch_folder(args.dir, "topkfs_shard_reads", args.keep) as work:
        x, y = os.path.join(work, "X.npy"), os.path.join(work, "y.npy")
        support = write_planted(x, y, args.rows)
        size_mb = os.path.getsize(x) / 1e6
        print(f"data        {args.rows} x {COLUMNS} float32, {size_mb:.0f} MB;"
              f" planted {[int(c) for c in support]}")
        print(f"load        {os.getloadavg()[0]:.2f} (1 min) before the runs,"
              f" on {os.cpu_count()} cores")
        common = [args.topkfs, "select", x, "--y-file", y, "--method", "dnn-top", "--k", "20",
                  "--epochs", "1", "--threads", "1", "--seed", "1", "--quiet", "--json"]
        drop_from_cache(x)
        alone = measured(Sampled(common))
        drop_from_cache(x)
        master = f"127.0.0.1:{free_port()}"
        ranks = [Sampled(common + ["--rank", str(r), "--world-size", "2", "--master", master,
                                   "--timeout", "600"]) for r in range(2)]
        parts = [measured(rank) for rank in ranks]
        rows = [("1 process", alone)] + [(f"rank {r} of 2", p) for r, p in enumerate(parts)]
        for name, r in rows:
            print(f"{name:12s} read {r['read_mb']:7.1f} MB from the disk"
                  f" ({100 * r['read_mb'] / size_mb:5.1f}% of the file);"
                  f" peak RssAnon {r['peak_mb']:6.0f} MB")
        one, two = set(alone["result"]["selected"]), set(parts[0]["result"]["selected"])
        # k = 20 over 10 planted columns: the other 10 are noise columns
        # whose order the order of the sums over the ranks can change.
        print(f"selection   planted columns selected: 1 process {len(one & set(support))}/10,"
              f" 2 ranks {len(two & set(support))}/10; the two sets of 20 share {len(one & two)}")
        print(f"load        {os.getloadavg()[0]:.2f} (1 min) after the runs")


if __name__ == "__main__":
    main()
