#!/bin/sh
# Parse rate of topkfs's CSV reader against numpy.loadtxt on the same ~100 MB
# numeric CSV, in the same run, single-threaded.
#
#   bench/io/csv_vs_numpy.sh [BUILD_DIR]      (default BUILD_DIR: build)
#
# The file is the one bench/io/csv_parse_bench.cpp generates (seeded) at
# $TOPKFS_CSV_BENCH_FILE or /tmp/topkfs_csv_bench_100mb.csv. Both rates are
# file bytes per second of process CPU time, so that other work on a shared
# machine does not distort the ratio; wall times are printed too.
set -eu

build_dir=${1:-build}
bench="$build_dir/bench/csv_parse_bench"
python=/usr/bin/python3
file=${TOPKFS_CSV_BENCH_FILE:-/tmp/topkfs_csv_bench_100mb.csv}
export TOPKFS_CSV_BENCH_FILE="$file"

if [ ! -x "$bench" ]; then
  echo "csv_vs_numpy.sh: $bench not found; build it with" >&2
  echo "  cmake --build $build_dir --target csv_parse_bench" >&2
  exit 2
fi

json=$(mktemp /tmp/csv_vs_numpy.XXXXXX.json)
trap 'rm -f "$json"' EXIT

# Generates the file when absent, then parses it for at least 3 s.
"$bench" --benchmark_min_time=3 --benchmark_out="$json" --benchmark_out_format=json >/dev/null

"$python" - "$file" "$json" <<'EOF'
import json
import os
import sys
import time

import numpy as np

path, result_path = sys.argv[1], sys.argv[2]
size = os.path.getsize(path)
with open(result_path) as handle:
    run = json.load(handle)["benchmarks"][0]
ours_rate = run["bytes_per_second"]
to_seconds = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[run["time_unit"]]
ours_wall = run["real_time"] * to_seconds

cpu0, wall0 = time.process_time(), time.perf_counter()
array = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
numpy_cpu, numpy_wall = time.process_time() - cpu0, time.perf_counter() - wall0
numpy_rate = size / numpy_cpu

print(f"file: {path} ({size / 1e6:.1f} MB, {array.shape[0]} rows x {array.shape[1]} columns)")
print(f"topkfs read_csv : {ours_rate / 1e6:8.1f} MB/s CPU  (wall {ours_wall:.2f} s per parse)")
print(f"numpy.loadtxt   : {numpy_rate / 1e6:8.1f} MB/s CPU  (wall {numpy_wall:.2f} s, numpy {np.__version__})")
print(f"ratio (topkfs / numpy): {ours_rate / numpy_rate:.1f}x")
EOF
