#!/usr/bin/python3
"""The scikit-learn rankings on the datasets where docs/results.md sets
`--method auto` against the fixed methods, under the same protocols.

Usage: sklearn_rankings.py [--build DIR] [--data DIR] [--only NAME[,NAME...]]
                           [--output JSON]
  --build   build folder whose python/ holds the topkfs module (default: build)
  --data    the shared data folder (default: $TOPKFS_DATA_DIR, else
            ../shared/data beside the checkout)
  --only    datasets to run (mnist, fashion-mnist, usps, coil20, allaml, pyrim,
            kin8nm, cpu_act, ailerons; default: all); the others already in the
            output are kept
  --output  default bench/quality/results/sklearn-rankings.json, which
            bench/quality/render_results.py puts beside auto in docs/results.md

Three rankings, each learnt with scikit-learn from the rows the protocol
selects from, one process (n_jobs=1):
  sklearn-mutual-info    mutual_info_classif / mutual_info_regression
                         (random_state = seed); it scales the columns itself
  sklearn-random-forest  impurity importance of RandomForestClassifier /
                         RandomForestRegressor (100 trees, random_state = seed);
                         trees are unaffected by scale
  sklearn-l1             classes: bench/quality/quality_reference.py's
                         l1-logistic (LogisticRegression, L1, saga, C = 0.05,
                         on StandardScaler columns; the norm of each column's
                         coefficients over the classes, which is |coef| for two
                         classes). Regression: the Lasso path (lasso_path, 100
                         penalties) on StandardScaler columns and the centred
                         target; columns ranked by the penalty at which they
                         enter, the earliest first (ties: the larger |coef| at
                         the end of the path), so the top k are the first k to
                         enter, as elastic-net-top reads a path
Protocols (docs/method.md §3):
  accuracy on MNIST and Fashion-MNIST: their own 60000/10000 split, one run
    (seed 0); mutual information and L1-logistic learn from a stratified
    subsample of 10000 of the training rows (quality_reference.py's rule),
    the forest from all of them; otherwise as below.
  accuracy (USPS, COIL20, ALLAML): 3 random stratified 80/20 splits drawn by
    scikit-learn (train_test_split(stratify=y, random_state=seed), seeds 0,
    1, 2: the rows differ from topkfs evaluate's splits, the protocol is the
    same); rankings on the training rows; ExtraTreesClassifier(50 trees,
    random_state = seed) on the top k columns, k = 10, 20, 30, 40, 50;
    accuracy % on the test rows; mean and sd over k and splits, and per k.
  detection (Pyrimidines, kin8nm, cpu_act, Ailerons): as many noise columns
    appended as the data has, column j's Normal(0.1 mean_j, 0.01 sd_j) with
    mean_j and sd_j over 20 random rows; columns shuffled; rankings on all
    rows; k = the number of original columns; F1 % of the top k against the
    originals; 10 noise seeds (0..9, numpy default_rng), mean and sd.
The data is read with topkfs's Python reader, as `topkfs evaluate` reads it
(the CSVs' target is their last column, read as a regression target).

A full run takes about 23 minutes on 2 cores: Ailerons 6, MNIST 6, Fashion-MNIST 5 (per
dataset: the "seconds" of the output and the printed table).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.ensemble import RandomForestRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import mutual_info_regression
from sklearn.linear_model import lasso_path
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from quality_reference import ROOT, extra_trees_accuracy, ranking, write_json

PREDEFINED = {"mnist": "mnist", "fashion-mnist": "fashion-mnist"}
ACCURACY = {"usps": "usps/usps.h5", "coil20": "coil20/COIL20.mat",
            "allaml": "allaml/ALLAML.mat"}
DETECTION = {"pyrim": "pyrim/pyrim.csv", "kin8nm": "kin8nm/kin8nm.csv",
             "cpu_act": "cpu_act/cpu_act.csv", "ailerons": "ailerons/ailerons.csv"}
METHODS = ["sklearn-mutual-info", "sklearn-random-forest", "sklearn-l1"]
# quality_reference.py's names of the class rankings.
CLASS_RANKING = {"sklearn-mutual-info": "mutual-info", "sklearn-random-forest": "random-forest",
                 "sklearn-l1": "l1-logistic"}
KS = [10, 20, 30, 40, 50]
SPLITS = 3
NOISE_SEEDS = 10
REFERENCE_ROWS = 20


def regression_ranking(method, x, y, seed):
    """Column indices, best first."""
    if method == "sklearn-mutual-info":
        score = mutual_info_regression(x, y, random_state=seed)
    elif method == "sklearn-random-forest":
        forest = RandomForestRegressor(n_estimators=100, random_state=seed, n_jobs=1)
        score = forest.fit(x, y).feature_importances_
    elif method == "sklearn-l1":
        _, coefs, _ = lasso_path(StandardScaler().fit_transform(x), y - y.mean(), n_alphas=100)
        entered = coefs != 0
        # The first penalty at which each column is in the model; never: last.
        step = np.where(entered.any(axis=1), entered.argmax(axis=1), coefs.shape[1])
        return np.lexsort((-np.abs(coefs[:, -1]), step))
    else:
        raise ValueError(method)
    # Stable sort: ties keep the lower index first; the shuffled columns make
    # that rule favour neither originals nor noise.
    return np.argsort(-score, kind="stable")


def with_noise(x, seed):
    """x with noise columns appended as topkfs's detection protocol appends
    them (src/data/noise_injection.cpp: population sd over the reference
    rows), shuffled; and whether each resulting column is an original."""
    rng = np.random.default_rng(seed)
    n, m = x.shape
    rows = rng.choice(n, size=min(REFERENCE_ROWS, n), replace=False)
    mean, sd = x[rows].mean(axis=0), x[rows].std(axis=0)
    noise = rng.normal(0.1 * mean, 0.01 * sd, size=(n, m))
    column = rng.permutation(2 * m)
    return np.hstack([x, noise])[:, column], column < m


def summary(values, per_k=None, seconds=None):
    out = {"mean": float(np.mean(values)), "std": float(np.std(values))}
    if per_k is not None:
        out["per_k"] = {str(k): float(np.mean(v)) for k, v in per_k.items()}
    out["ranking_seconds"] = float(np.mean(seconds))
    return out


def accuracy_dataset(data, predefined=False):
    """predefined: the data's own split, one run; else SPLITS random ones."""
    x, y = np.asarray(data.X), np.asarray(data.y)
    scores = {m: {k: [] for k in KS} for m in METHODS}
    seconds = {m: [] for m in METHODS}
    for seed in range(1 if predefined else SPLITS):
        if predefined:
            train, test = data.split.train, data.split.test
            x_train, x_test, y_train, y_test = x[train], x[test], y[train], y[test]
        else:
            x_train, x_test, y_train, y_test = train_test_split(
                x, y, test_size=0.2, stratify=y, random_state=seed)
        for method in METHODS:
            start = time.monotonic()
            order = ranking(CLASS_RANKING[method], x_train, y_train, seed, n_jobs=1)
            seconds[method].append(time.monotonic() - start)
            for k in KS:
                scores[method][k].append(extra_trees_accuracy(
                    x_train, y_train, x_test, y_test, order[:k], seed, n_jobs=1))
    split = ("the data's predefined split" if predefined else
             f"random stratified 80/20 (scikit-learn's train_test_split, seeds 0..{SPLITS - 1})")
    return {"metric": "accuracy %", "higher_is_better": True, "ks": KS,
            "splits": 1 if predefined else SPLITS, "split": split,
            "rows": [len(y_train), len(y_test)],
            "methods": {m: summary([a for v in scores[m].values() for a in v], scores[m],
                                   seconds[m]) for m in METHODS}}


def detection_dataset(data):
    x, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y, dtype=np.float64)
    m = x.shape[1]
    f1 = {method: [] for method in METHODS}
    seconds = {method: [] for method in METHODS}
    for seed in range(NOISE_SEEDS):
        both, original = with_noise(x, seed)
        for method in METHODS:
            start = time.monotonic()
            chosen = regression_ranking(method, both, y, seed)[:m]
            seconds[method].append(time.monotonic() - start)
            # k = m: precision = recall = the share of originals chosen.
            f1[method].append(100.0 * np.count_nonzero(original[chosen]) / m)
    return {"metric": "F1 %", "higher_is_better": True, "k": m, "noise_seeds": NOISE_SEEDS,
            "methods": {method: {**summary(f1[method], seconds=seconds[method]),
                                 "per_seed": f1[method]} for method in METHODS}}


def commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--data", default=os.environ.get(
        "TOPKFS_DATA_DIR", os.path.join(ROOT, os.pardir, "shared", "data")))
    parser.add_argument("--only", default="")
    parser.add_argument("--output", default=os.path.join(
        ROOT, "bench", "quality", "results", "sklearn-rankings.json"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.build), "python"))
    import topkfs  # noqa: E402  (the build's module)
    every = {**PREDEFINED, **ACCURACY, **DETECTION}
    names = [n for n in every if not args.only or n in args.only.split(",")]
    unknown = set(args.only.split(",")) - set(every) if args.only else set()
    if unknown:
        raise SystemExit(f"sklearn_rankings.py: unknown dataset(s) {', '.join(sorted(unknown))}")
    # saga stops at quality_reference.py's 100 passes and the Lasso path at its
    # own iteration limit, converged or not: the ranking is what they give then.
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    result = json.load(open(args.output)) if os.path.exists(args.output) else {}
    result.setdefault("datasets", {})
    for name in names:
        start = time.monotonic()
        if name in PREDEFINED:
            entry = accuracy_dataset(topkfs.load(os.path.join(args.data, PREDEFINED[name])),
                                     predefined=True)
        elif name in ACCURACY:
            entry = accuracy_dataset(topkfs.load(os.path.join(args.data, ACCURACY[name])))
        else:
            entry = detection_dataset(topkfs.load(os.path.join(args.data, DETECTION[name]),
                                                  task="regression"))
        entry["seconds"] = time.monotonic() - start
        entry["commit"] = commit()
        entry["sklearn"] = sklearn.__version__
        entry["date"] = datetime.date.today().isoformat()
        result["datasets"][name] = entry
        # Written after every dataset, so that a stopped run keeps what it did.
        write_json(args.output, result)
        print(f"{name} ({entry['metric']}, {entry['seconds']:.0f} s): " + ", ".join(
            f"{m} {v['mean']:.1f} ± {v['std']:.1f}" for m, v in entry["methods"].items()),
            flush=True)
    print()
    print("| dataset | metric | " + " | ".join(METHODS) + " | best | seconds |")
    print("|---|---|" + "---|" * (len(METHODS) + 2))
    for name, entry in result["datasets"].items():
        best = max(entry["methods"], key=lambda m: entry["methods"][m]["mean"])
        print(f"| {name} | {entry['metric']} | " + " | ".join(
            f"{entry['methods'][m]['mean']:.1f} ± {entry['methods'][m]['std']:.1f}"
            for m in METHODS) + f" | {best} | {entry['seconds']:.0f} |")


if __name__ == "__main__":
    main()
