#!/usr/bin/env bash
# Configures and builds topkfs in ./build (Release). Incremental after the first
# run; quiet on success, the compiler's output on failure.
# A unity build (CMake compiles a target's sources in batches of eight, so the
# libtorch, Eigen and GoogleTest headers are parsed once a batch): half the
# time of a first build (5.3 against 10.5 minutes on 2 cores), and the same
# batches as the sanitizer builds, so that two file-local names alike in
# different sources fail here first. TOPKFS_UNITY=OFF for a folder whose
# edits should recompile one source each (it applies when a folder is
# first configured).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TOPKFS_BUILD_DIR:-$root/build}"
mkdir -p "$build"
log="$build/build.log"
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "topkfs: configuring in $build"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_UNITY_BUILD="${TOPKFS_UNITY:-ON}" >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
echo "topkfs: building (a first build takes several minutes: libtorch is large)"
if ! cmake --build "$build" -j "$(nproc)" >"$log" 2>&1; then
  grep -E 'error|Error' -A3 "$log" | head -60
  echo "topkfs: build failed; full log in $log" >&2
  exit 1
fi
