#!/usr/bin/env bash
# Configures and builds topkfs in ./build (Release). Incremental after the first
# run; quiet on success, the compiler's output on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TOPKFS_BUILD_DIR:-$root/build}"
mkdir -p "$build"
log="$build/build.log"
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "topkfs: configuring in $build"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
echo "topkfs: building (a first build takes several minutes: libtorch is large)"
if ! cmake --build "$build" -j "$(nproc)" >"$log" 2>&1; then
  grep -E 'error|Error' -A3 "$log" | head -60
  echo "topkfs: build failed; full log in $log" >&2
  exit 1
fi
