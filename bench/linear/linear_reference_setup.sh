# shellcheck shell=bash
# Sourced by the linear models' comparison scripts (linear_vs_sklearn.sh,
# linear_class_vs_references.sh), after they set `here` to the suite's folder
# (bench/linear).
#
#   reference_run_start DEFAULT_DATA_DIR [BUILD_DIR] [DATA_DIR]
#     sets `build` (default: the build folder beside bench/, $here/../../build)
#     and `data_dir`, creates the latter, and lets every side use this CPU's BLAS kernels:
#     numpy must not run a slow core type forced by the environment
#     (OPENBLAS_CORETYPE).
#   write_once FILE WRITER ARG
#     runs bench/linear/WRITER ARG unless FILE exists: the problem is written once,
#     so that every side reads the very same numbers run after run.
# The ratio lines at the end of each script parse the timings with
# bench/common/bench_ratios.py (PYTHONPATH="$here/../common").

reference_run_start() {
  # shellcheck disable=SC2034  # `build` is the calling script's
  build="${2:-$here/../../build}"
  data_dir="${3:-$1}"
  mkdir -p "$data_dir"
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
}

write_once() {
  if [ ! -f "$1" ]; then
    /usr/bin/python3 "$here/$2" "$3"
  fi
}
