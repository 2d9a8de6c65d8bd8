#!/usr/bin/python3
"""Do dnn-top's defaults carry over to data they were not chosen on?

Usage: quality_generalisation.py BUILD_DIR [OUTPUT_JSON]

Two checks, each against what a scikit-learn user would pick instead:

1. Small tables that are not in ../shared/data: the data sets that ship with
   scikit-learn (breast cancer: 569 x 30, 2 classes; wine: 178 x 13, 3
   classes; digits: 1797 x 64, 10 classes). `dnn-top` with its defaults
   (through topkfs's Python package, one thread) and the four rankings of
   bench/quality/quality_reference.py, each scored as the study scores selections:
   ExtraTrees (50 trees) on the top k columns, accuracy % on a random
   stratified 80/20 split per seed, 5 seeds.
2. Detection under standardised columns (docs/results.md, Table 2): the
   regression versions of the four rankings (F statistic, mutual
   information, random-forest importance, the coefficients of a
   cross-validated Lasso) on the detection data sets with as many noise
   columns as originals. After standardisation the protocol's noise columns
   are independent standard normal columns, so that is what is appended here
   (10 noise seeds). This bounds what a ranking by relevance to the target
   finds when the noise is as spread out as the data.

Writes OUTPUT_JSON (default bench/quality/results/study/generalisation.json),
which bench/quality/quality_study renders into docs/quality-study.md.
"""
import os
import sys
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.ensemble import RandomForestRegressor
from sklearn.feature_selection import f_regression, mutual_info_regression
from sklearn.linear_model import LassoCV
from sklearn.model_selection import train_test_split

from quality_reference import ROOT, extra_trees_accuracy, ranking, write_json

TABLES = {  # name -> (loader, k values)
    "breast-cancer": (load_breast_cancer, [3, 5, 10]),
    "wine": (load_wine, [2, 3, 5]),
    "digits": (load_digits, [5, 10, 20]),
}
RANKINGS = ["anova-f", "mutual-info", "random-forest", "l1-logistic"]
DETECTION = ["pyrim/pyrim.csv", "kin8nm/kin8nm.csv", "cpu_act/cpu_act.csv",
             "ailerons/ailerons.csv"]
TABLE_SEEDS = 5
NOISE_SEEDS = 10


def table_accuracy(topkfs, result):
    for name, (loader, ks) in TABLES.items():
        x, y = loader(return_X_y=True)
        x = x.astype(np.float32)
        scores = {}  # method -> k -> [accuracy per seed]
        seconds = {}
        for seed in range(TABLE_SEEDS):
            x_train, x_test, y_train, y_test = train_test_split(
                x, y, test_size=0.2, stratify=y, random_state=seed)
            for method in RANKINGS:
                start = time.monotonic()
                order = ranking(method, x_train, y_train, seed)
                seconds.setdefault(method, []).append(time.monotonic() - start)
                for k in ks:
                    scores.setdefault(method, {}).setdefault(k, []).append(
                        extra_trees_accuracy(x_train, y_train, x_test, y_test, order[:k], seed))
            for k in ks:
                start = time.monotonic()
                selector = topkfs.TopKSelector("dnn-top", k=k, seed=seed, threads=1)
                selector.fit(x_train, y_train)
                seconds.setdefault("dnn-top", []).append(time.monotonic() - start)
                scores.setdefault("dnn-top", {}).setdefault(k, []).append(extra_trees_accuracy(
                    x_train, y_train, x_test, y_test, np.flatnonzero(selector.get_support()),
                    seed))
        result.setdefault("tables", {})[name] = {
            method: {"per_k": {str(k): float(np.mean(v)) for k, v in per_k.items()},
                     "mean": float(np.mean([a for v in per_k.values() for a in v])),
                     "seconds": float(np.mean(seconds[method]))}
            for method, per_k in scores.items()}
        for method, entry in result["tables"][name].items():
            print(f"{name} {method}: {entry['mean']:.1f} {entry['per_k']}", flush=True)


def regression_scores(method, x, y, seed):
    if method == "f-statistic":
        return np.nan_to_num(f_regression(x, y)[0])
    if method == "mutual-info":
        return mutual_info_regression(x, y, random_state=seed)
    if method == "random-forest":
        forest = RandomForestRegressor(n_estimators=100, random_state=seed, n_jobs=2)
        return forest.fit(x, y).feature_importances_
    if method == "lasso-cv":
        return np.abs(LassoCV(cv=5, random_state=seed, max_iter=5000).fit(x, y).coef_)
    raise ValueError(method)


def with_noise_columns(x, seed):
    """x with as many independent standard normal columns appended, all
    shuffled (as the protocol does, so that ties such as zero weights or
    zero mutual information do not favour the originals); and, per column
    of the result, its place before shuffling (< x.shape[1]: an original)."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(x.shape)
    column = rng.permutation(2 * x.shape[1])
    return np.hstack([x, noise])[:, column], column


def detection_bound(topkfs, data_dir, result):
    for path in DETECTION:
        data = topkfs.load(os.path.join(data_dir, path), task="regression")
        x, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y, dtype=np.float64)
        m = x.shape[1]
        f1 = {}
        for seed in range(NOISE_SEEDS):
            both, column = with_noise_columns(x, seed)
            spread = both.std(axis=0)
            both = (both - both.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
            for method in ["f-statistic", "mutual-info", "random-forest", "lasso-cv"]:
                chosen = np.argsort(-regression_scores(method, both, y, seed), kind="stable")[:m]
                # k = m: precision = recall = the share of originals chosen.
                originals = np.count_nonzero(column[chosen] < m)
                f1.setdefault(method, []).append(100.0 * originals / m)
        name = path.split("/")[0]
        result.setdefault("detection", {})[name] = {
            method: {"mean": float(np.mean(v)), "std": float(np.std(v))} for method, v in f1.items()}
        print(f"{name}: " + ", ".join(f"{k} {np.mean(v):.1f}" for k, v in f1.items()), flush=True)


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    sys.path.insert(0, os.path.join(os.path.abspath(sys.argv[1]), "python"))
    import topkfs  # noqa: E402  (the build's module)
    output = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        ROOT, "bench", "quality", "results", "study", "generalisation.json")
    data_dir = os.environ.get("TOPKFS_DATA_DIR", os.path.join(ROOT, os.pardir, "shared", "data"))
    result = {}
    detection_bound(topkfs, data_dir, result)
    table_accuracy(topkfs, result)
    write_json(output, result)


if __name__ == "__main__":
    main()
