#!/usr/bin/env bash
# Builds the fuzz targets with clang + libFuzzer (ASan and UBSan on) in
# ./build-fuzz (TOPKFS_FUZZ_BUILD_DIR: another folder configured with
# TOPKFS_FUZZ=ON, as CI uses build-asan, which scripts/sanitize.sh address
# configures so) and runs each for a bounded time on top of its seed corpus
# (tests/fuzz/corpus/<reader>), one target per core (TOPKFS_FUZZ_JOBS),
# then prints the executions and the coverage
# of each (libFuzzer's cov, the code edges reached, and ft, the features:
# edges with hit counts). A crash stops nothing: its input is kept as
# build-fuzz/findings/<reader>/crash-*, the script exits 1 at the end, and
# the input belongs in tests/fuzz/regressions/<reader>/ once fixed (the
# replay test runs it from then on).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [READER...]      (default 60, all)
#   TOPKFS_FUZZ_RUNS=N scripts/fuzz.sh 0 npy   # N executions instead of a time
#   TOPKFS_FUZZ_SEED=S: libFuzzer's random seed (default 0: a new one each run);
#   CI fixes it, so that a run explores the same inputs each time
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TOPKFS_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-60}"
shift || true
readers=("$@")
if [ ${#readers[@]} -eq 0 ]; then readers=(csv libsvm idx npy npz mat hdf5 result_json reader_answer); fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  # Only the readers are fuzzed: no libtorch, tests, benchmarks or Python.
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DTOPKFS_FUZZ=ON -DTOPKFS_SANITIZE=address,undefined -DTOPKFS_WITH_TORCH=OFF \
    -DTOPKFS_BUILD_TESTS=OFF -DTOPKFS_BUILD_BENCH=OFF -DTOPKFS_BUILD_PYTHON=OFF \
    >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
if ! grep -q '^TOPKFS_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "fuzz.sh: $build was configured without TOPKFS_FUZZ=ON: no fuzz targets there" >&2
  exit 1
fi
cmake --build "$build" -j "$(nproc)" --target fuzz_targets >"$build/fuzz-build.log" 2>&1 ||
  { grep -E 'error' -A3 "$build/fuzz-build.log" | head -40; exit 1; }

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# The inputs are at most 8 KB: an HDF5 or v7.3 .mat structure that makes
# libhdf5 allocate tens of MB is already a loop the HDF5 reader program's
# limit refuses. At the 1 GB default each such input took 3 to 5 s under ASan (60 s on
# a loaded machine, past -timeout), and the hdf5 rate fell from about 400
# to 25 a second once the work corpus held a few; at 64 MB they take 0.5 s.
export TOPKFS_HDF5_READER_MEMORY_MB="${TOPKFS_HDF5_READER_MEMORY_MB:-64}"
# Two targets at a time by default (TOPKFS_FUZZ_JOBS, default: the cores):
# each is one process on one core, so a run of N targets takes N / 2 times
# the time per target on an idle 2-core machine, and each target still
# gets its full time. The table is printed once every target has ended.
jobs="${TOPKFS_FUZZ_JOBS:-$(nproc)}"
fuzz_one() {
  local reader="$1" work="$build/corpus/$1" findings="$build/findings/$1"
  mkdir -p "$work" "$findings"      # the work corpus grows; the seeds stay clean
  local limit=(-max_total_time="$seconds")
  if [ -n "${TOPKFS_FUZZ_RUNS:-}" ]; then limit=(-runs="$TOPKFS_FUZZ_RUNS"); fi
  # rss_limit: a reader that allocates what the header claims is a finding.
  local code=0
  "$build/tests/fuzz/fuzz_$reader" "${limit[@]}" -seed="${TOPKFS_FUZZ_SEED:-0}" \
    -max_len=8192 -rss_limit_mb=2048 \
    -timeout=20 -print_final_stats=1 -artifact_prefix="$findings/" \
    "$work" "$root/tests/fuzz/corpus/$reader" >"$build/fuzz-$reader.log" 2>&1 || code=$?
  echo "$code" >"$build/fuzz-$reader.status"
}
for reader in "${readers[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  rm -f "$build/fuzz-$reader.status"
  fuzz_one "$reader" &
done
wait

status=0
printf '%-12s %12s %10s %8s %8s %s\n' reader executions exec/s cov ft result
for reader in "${readers[@]}"; do
  log="$build/fuzz-$reader.log"
  result=ok
  if [ "$(cat "$build/fuzz-$reader.status" 2>/dev/null)" != 0 ]; then
    result="FINDING (see $log)"
    status=1
  fi
  executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  features=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  printf '%-12s %12s %10s %8s %8s %s\n' "$reader" "$executions" "$speed" "$coverage" "$features" \
    "$result"
done
# CI keeps only what is printed: for each finding, the sanitizer's or
# libFuzzer's report (its first frames) and the input it saved, so that a
# finding on a machine where it does not reproduce can still be read.
for reader in "${readers[@]}"; do
  if [ "$(cat "$build/fuzz-$reader.status" 2>/dev/null)" = 0 ]; then continue; fi
  log="$build/fuzz-$reader.log"
  echo "--- $reader: the finding's report ($log)"
  grep -m1 -A24 -E '^==[0-9]+==(ERROR|WARNING)|runtime error|ERROR: libFuzzer|SUMMARY' "$log" || tail -n 30 "$log"
  grep -E "Test unit written to" "$log" | tail -n 3 || true
  find "$build/findings/$reader" -type f 2>/dev/null | head -n 3 | while read -r input; do
    echo "input $(basename "$input") ($(stat -c %s "$input") bytes), base64:"
    head -c 12288 "$input" | base64 -w 120
  done || true
done
exit $status
