#!/usr/bin/env bash
# Quick-start command (b): set up, build and run every test (C++ and Python).
# The fast tests run one per core; the quality tests (label "quality", a few
# minutes of training each) run one at a time after them, alone on the
# machine, as their thread count follows its load.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TOPKFS_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure --timeout 900 -j "$(nproc)" -LE quality
ctest --output-on-failure --timeout 900 -j 1 -L quality
if [ -d "$root/tests/python" ] && ls "$root"/tests/python/test_*.py >/dev/null 2>&1; then
  PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 -m pytest -q "$root/tests/python"
fi
