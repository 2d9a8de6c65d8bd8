#!/usr/bin/env bash
# ExtraTrees (50 trees) on MNIST restricted to 50 columns (train 60000,
# predict 10000): topkfs against scikit-learn's ExtraTreesClassifier in the
# same run, both on one thread, then topkfs's 2-thread speed-up.
#
#   bash bench/speed/trees_vs_sklearn.sh [BUILD_DIR] [MNIST_DIR] [REPEAT]
#
# BUILD_DIR holds bench/trees_bench (default: build); MNIST_DIR the four gzip
# IDX files (default: $TOPKFS_DATA_DIR/mnist, else ../shared/data/mnist beside
# the checkout); each side keeps the fastest of REPEAT runs (default 3).
# Columns: 50 evenly spaced pixels (24, 39, ..., 759; see bench/speed/trees_bench.cpp),
# the same on both sides. Reading the files is excluded on both sides;
# topkfs's fit includes gathering the 50 columns of the training rows out of
# the full 784-column matrix, scikit-learn is handed the 50 columns already
# cut out. Times are wall and CPU seconds; on a shared machine the CPU-time
# ratio is the steadier one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
mnist="${2:-${TOPKFS_DATA_DIR:-$here/../../../shared/data}/mnist}"
repeat="${3:-3}"
out="$(mktemp -d /tmp/topkfs-trees-bench.XXXXXX)"
trap 'rm -rf "$out"' EXIT

echo "== topkfs (bench/trees_bench)"
"$build/bench/trees_bench" "$mnist" --trees 50 --threads 1,2 --repeat "$repeat" | tee "$out/topkfs.txt"
columns="$(sed -n 's/^columns //p' "$out/topkfs.txt")"

echo "== scikit-learn (n_jobs=1)"
# numpy must not run a core type or cache size forced by the environment:
# unset for this command only.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  /usr/bin/python3 "$here/../../tests/trees/sklearn_forest.py" bench "$mnist" "$columns" \
  --trees 50 --jobs 1 --repeat "$repeat" | tee "$out/sklearn.txt"

echo "== ratio topkfs / scikit-learn (one thread, fit + predict; target <= 1.0)"
/usr/bin/python3 - "$out" <<'PY'
import re, sys
d = sys.argv[1]
ours = open(f"{d}/topkfs.txt").read()
theirs = open(f"{d}/sklearn.txt").read()
m = re.search(r"threads 1: .*? fit ([0-9.]+) s \(cpu ([0-9.]+) s\), predict ([0-9.]+) s \(cpu ([0-9.]+) s\), "
              r"accuracy ([0-9.]+)", ours)
fit_w, fit_c, pred_w, pred_c, acc = map(float, m.groups())
def pair(label):
    g = re.search(label + r" ([0-9.]+) cpu ([0-9.]+)", theirs)
    return float(g.group(1)), float(g.group(2))
sk_fit, sk_pred = pair("fit"), pair("predict")
sk_acc = float(re.search(r"accuracy ([0-9.]+)", theirs).group(1))
print(f"fit:            wall {fit_w / sk_fit[0]:.3f}, cpu {fit_c / sk_fit[1]:.3f}")
print(f"predict:        wall {pred_w / sk_pred[0]:.3f}, cpu {pred_c / sk_pred[1]:.3f}")
print(f"fit + predict:  wall {(fit_w + pred_w) / (sk_fit[0] + sk_pred[0]):.3f}, "
      f"cpu {(fit_c + pred_c) / (sk_fit[1] + sk_pred[1]):.3f}")
print(f"accuracy (seed 0 on each side): topkfs {acc:.4f}, scikit-learn {sk_acc:.4f}")
s = re.search(r"speed-up fit \+ predict, 2 threads vs 1: ([0-9.]+)", ours)
if s:
    print(f"topkfs 2-thread speed-up (fit + predict, wall): {float(s.group(1)):.2f}")
PY
