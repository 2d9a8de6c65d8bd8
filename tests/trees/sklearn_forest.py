#!/usr/bin/python3
"""scikit-learn's forests on the data the C++ tree tests use (tests/cpp/trees_test.cpp).

  sklearn_forest.py accuracy DATA COLUMNS [--model et|rf] [--trees 50] [--seeds 5] [--jobs 2]
  sklearn_forest.py regression TRAIN.csv TEST.csv [--model et|rf] [--trees 100] [--seeds 3] [--jobs 2]
  sklearn_forest.py bench DATA COLUMNS [--trees 50] [--jobs 1] [--repeat 1]

DATA is a folder of MNIST-style gzip IDX files (train/t10k images and labels:
MNIST, Fashion-MNIST) or the USPS HDF5 file (train/data, train/target,
test/data, test/target); COLUMNS a comma-separated list of 0-based columns.
The files are read with numpy (tests/python_support/idx.py) and h5py,
independently of topkfs's readers, so that the reference does not depend on
the code under test.

accuracy:   the test accuracy of ExtraTreesClassifier (or RandomForestClassifier)
            fitted on COLUMNS of the training split, for random_state
            0..seeds-1; prints one line per seed, "importances <v1,v2,...>"
            (feature_importances_ averaged over the seeds), "nodes <mean
            node count per tree>" and "mean <accuracy>".
regression: CSV files with a header, target(s) in the columns named y*;
            prints "mean_r2 <R^2>" averaged over the seeds (R^2 averaged over
            the outputs).
bench:      one fit and one predict, timed (wall and CPU), best of --repeat;
            prints "fit <s> cpu <s>", "predict <s> cpu <s>", "accuracy <a>".
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python_support"))
from idx import read_idx_split  # noqa: E402


def load(path):
    """(x_train, y_train, x_test, y_test) of the predefined split, float32 features."""
    if os.path.isdir(path):
        parts = []
        for prefix in ("train", "t10k"):
            images, labels = read_idx_split(path, prefix)
            parts += [images.astype(np.float32), labels.astype(np.int64)]
        return tuple(parts)
    import h5py

    with h5py.File(path, "r") as h5:
        return (np.asarray(h5["train/data"], dtype=np.float32), np.asarray(h5["train/target"]),
                np.asarray(h5["test/data"], dtype=np.float32), np.asarray(h5["test/target"]))


def parse_columns(text, width):
    columns = [int(c) for c in text.split(",") if c]
    if not columns or min(columns) < 0 or max(columns) >= width:
        raise SystemExit(f"columns must be in 0..{width - 1}")
    return columns


def classifier(model, trees, seed, jobs):
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    kind = ExtraTreesClassifier if model == "et" else RandomForestClassifier
    return kind(n_estimators=trees, random_state=seed, n_jobs=jobs)


def accuracy(args):
    x_train, y_train, x_test, y_test = load(args.data)
    columns = parse_columns(args.columns, x_train.shape[1])
    # C-contiguous copies of the columns, as a user would pass them.
    x_train, x_test = np.ascontiguousarray(x_train[:, columns]), np.ascontiguousarray(x_test[:, columns])
    scores, nodes, importances = [], [], []
    for seed in range(args.seeds):
        model = classifier(args.model, args.trees, seed, args.jobs).fit(x_train, y_train)
        scores.append(model.score(x_test, y_test))
        nodes += [tree.tree_.node_count for tree in model.estimators_]
        importances.append(model.feature_importances_)
        print(f"seed {seed} {scores[-1]:.6f}")
    print("importances " + ",".join(f"{v:.6f}" for v in np.mean(importances, axis=0)))
    print(f"nodes {np.mean(nodes):.2f}")
    print(f"mean {np.mean(scores):.6f}")


def read_csv(path):
    with open(path) as stream:
        header = stream.readline().strip().split(",")
    values = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    target = [i for i, name in enumerate(header) if name.startswith("y")]
    features = [i for i in range(len(header)) if i not in target]
    return values[:, features].astype(np.float32), values[:, target]


def regression(args):
    from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor
    from sklearn.metrics import r2_score

    x_train, y_train = read_csv(args.train)
    x_test, y_test = read_csv(args.test)
    if y_train.shape[1] == 1:
        y_train, y_test = y_train[:, 0], y_test[:, 0]
    kind = ExtraTreesRegressor if args.model == "et" else RandomForestRegressor
    scores = []
    for seed in range(args.seeds):
        model = kind(n_estimators=args.trees, random_state=seed, n_jobs=args.jobs).fit(x_train, y_train)
        scores.append(r2_score(y_test, model.predict(x_test)))
        print(f"seed {seed} {scores[-1]:.6f}")
    print(f"mean_r2 {np.mean(scores):.6f}")


def bench(args):
    x_train, y_train, x_test, y_test = load(args.data)
    columns = parse_columns(args.columns, x_train.shape[1])
    x_train, x_test = np.ascontiguousarray(x_train[:, columns]), np.ascontiguousarray(x_test[:, columns])
    best = None
    for _ in range(args.repeat):
        model = classifier("et", args.trees, 0, args.jobs)
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(x_train, y_train)
        fit = (time.perf_counter() - wall, time.process_time() - cpu)
        wall, cpu = time.perf_counter(), time.process_time()
        predicted = model.predict(x_test)
        predict = (time.perf_counter() - wall, time.process_time() - cpu)
        if best is None or fit[0] + predict[0] < best[0][0] + best[1][0]:
            best = (fit, predict, float(np.mean(predicted == y_test)))
    import sklearn

    print(f"sklearn {sklearn.__version__} ExtraTreesClassifier(n_estimators={args.trees}, n_jobs={args.jobs})")
    print(f"fit {best[0][0]:.4f} cpu {best[0][1]:.4f}")
    print(f"predict {best[1][0]:.4f} cpu {best[1][1]:.4f}")
    print(f"accuracy {best[2]:.6f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("accuracy")
    p.add_argument("data")
    p.add_argument("columns")
    p.add_argument("--model", choices=["et", "rf"], default="et")
    p.add_argument("--trees", type=int, default=50)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--jobs", type=int, default=2)
    p.set_defaults(run=accuracy)
    p = sub.add_parser("regression")
    p.add_argument("train")
    p.add_argument("test")
    p.add_argument("--model", choices=["et", "rf"], default="et")
    p.add_argument("--trees", type=int, default=100)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2)
    p.set_defaults(run=regression)
    p = sub.add_parser("bench")
    p.add_argument("data")
    p.add_argument("columns")
    p.add_argument("--trees", type=int, default=50)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--repeat", type=int, default=1)
    p.set_defaults(run=bench)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
