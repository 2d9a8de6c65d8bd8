# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034  # suite_about and benchmarks are the run script's
# The one command of a benchmark suite, shared by every bench/SUITE/run. A run
# script sets `suite_about` (what the suite measures), lists its benchmarks in
# `benchmarks`, one "name|what it runs|rough time" entry each in run order,
# defines a function bench_NAME for each, sources this file and calls
# `suite_main "$@"`:
#
#   bench/SUITE/run [--build DIR] [--only NAME[,NAME...]] [--list] [--help]
#
#   --build  build folder (default: build beside bench/), as scripts/build.sh
#            makes it; the executables are DIR/bench/*, the command
#            DIR/apps/topkfs/topkfs
#   --only   run these benchmarks alone (default: every one, in order)
#   --list   print the benchmarks and stop
#
# Each benchmark's output is printed and kept in
# bench/SUITE/results/run-YYYY-MM-DD-HHMMSS.log, with the load average before
# each one (figures taken at a load above the 2 cores are stretched). The
# first benchmark that fails stops the run. The functions see $root (the
# checkout), $suite_dir, $build, $bench_bin (DIR/bench), $topkfs and $data
# (the shared data: $TOPKFS_DATA_DIR, else ../shared/data beside the
# checkout), and call `suite_needs FILE...` for what they cannot run without.

suite_help() {
  local entry name what takes
  printf 'Usage: bench/%s/run [--build DIR] [--only NAME[,NAME...]] [--list] [--help]\n\n' \
    "${suite_dir##*/}"
  printf '%s\n\nBenchmarks, in the order of a full run (rough times on 2 cores):\n' "$suite_about"
  for entry in "${benchmarks[@]}"; do
    IFS='|' read -r name what takes <<<"$entry"
    printf '  %-16s %s (%s)\n' "$name" "$what" "$takes"
  done
  printf '\nOptions:\n'
  sed -n '/^#   --build/,/^#   --list/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  printf '\nOutput: printed, and kept in bench/%s/results/run-DATE.log.\n' "${suite_dir##*/}"
  printf 'Each benchmark runs alone too: bench/%s/README.md gives its own options.\n' \
    "${suite_dir##*/}"
}

# Stops the benchmark with the command that builds or fetches what is missing.
suite_needs() {
  local file
  for file in "$@"; do
    [ -e "$file" ] && continue
    echo "missing: $file" >&2
    case "$file" in
      "$bench_bin"/*) echo "  build it: cmake --build $build -j2 --target ${file##*/}" >&2 ;;
      "$topkfs") echo "  build it: bash scripts/build.sh" >&2 ;;
      *) echo "  (the shared data folder is \$TOPKFS_DATA_DIR or ../shared/data)" >&2 ;;
    esac
    return 1
  done
}

suite_main() {
  set -euo pipefail
  suite_dir="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
  root="$(cd "$suite_dir/../.." && pwd)"
  build="$root/build"
  local only="" entry name names=() selected=()
  for entry in "${benchmarks[@]}"; do names+=("${entry%%|*}"); done
  while [ $# -gt 0 ]; do
    case "$1" in
      --build) build="$2"; shift 2 ;;
      --only) only="$2"; shift 2 ;;
      --list) printf '%s\n' "${names[@]}"; return 0 ;;
      -h|--help) suite_help; return 0 ;;
      *) echo "bench/${suite_dir##*/}/run: unknown argument '$1' (try --help)" >&2; return 2 ;;
    esac
  done
  for name in ${only//,/ }; do
    printf '%s\n' "${names[@]}" | grep -qx -- "$name" ||
      { echo "bench/${suite_dir##*/}/run: no benchmark '$name' (--list shows them)" >&2; return 2; }
  done
  for name in "${names[@]}"; do
    if [ -z "$only" ] || grep -qx -- "$name" <<<"${only//,/$'\n'}"; then selected+=("$name"); fi
  done
  case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
  bench_bin="$build/bench"
  topkfs="$build/apps/topkfs/topkfs"
  data="${TOPKFS_DATA_DIR:-$root/../shared/data}"
  mkdir -p "$suite_dir/results"
  local log status commit
  log="$suite_dir/results/run-$(date +%Y-%m-%d-%H%M%S).log"
  commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  set +e
  (
    set -e
    echo "bench/${suite_dir##*/}/run at $commit on $(nproc) cores: ${selected[*]}"
    for name in "${selected[@]}"; do
      echo "== $name ($(date '+%F %T'), load $(cut -d' ' -f1-3 /proc/loadavg))"
      "bench_$name"
    done
  ) 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  echo "kept in ${log#"$root"/}"
  [ "$status" -eq 0 ] || echo "bench/${suite_dir##*/}/run: stopped, a benchmark failed" >&2
  return "$status"
}
