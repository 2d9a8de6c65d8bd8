#!/usr/bin/python3
"""Reference rows of the dnn-top quality study: what a scikit-learn user would
pick instead of a top-k network.

Usage: quality_reference.py BUILD_DIR [OUTPUT_JSON]

Four rankings, each computed with scikit-learn on the training rows only:
  anova-f        univariate ANOVA F statistic (f_classif)
  mutual-info    mutual information with the class (mutual_info_classif)
  random-forest  impurity importance of RandomForestClassifier(100 trees)
  l1-logistic    norm of each feature's coefficients in an L1-penalised
                 multinomial logistic regression (saga, C = 0.05 on
                 standardised columns)
mutual-info and l1-logistic learn from at most 10000 training rows (a seeded
stratified subsample on MNIST and Fashion-MNIST): on all 60000 they take
tens of minutes each.
Each is scored as bench/quality/quality_study's workloads are: ExtraTrees
(50 trees) on the top k columns, accuracy % on the test rows, over 3 seeds (MNIST and
Fashion-MNIST: their own split, the seed changes the rankings' and the trees'
randomness; USPS: a random stratified 80/20 split per seed, drawn by
scikit-learn, not by topkfs, so the rows differ from the study's but the
protocol is the same), and the stability of each over 10 USPS splits
(Kuncheva index at k = 10). The data is read with topkfs's Python reader
(BUILD_DIR/python); nothing else of topkfs is used.
Writes OUTPUT_JSON (default bench/quality/results/study/reference.json).
"""
import itertools
import json
import os
import sys
import time

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.feature_selection import f_classif, mutual_info_classif
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


SLOW_ROWS = 10000


def ranking(name, x, y, seed, n_jobs=2):
    """Feature indices, best first (n_jobs: the forest's processes)."""
    if name in ("mutual-info", "l1-logistic") and len(y) > SLOW_ROWS:
        x, _, y, _ = train_test_split(x, y, train_size=SLOW_ROWS, stratify=y, random_state=seed)
    if name == "anova-f":
        score = np.nan_to_num(f_classif(x, y)[0])
    elif name == "mutual-info":
        score = mutual_info_classif(x, y, random_state=seed)
    elif name == "random-forest":
        forest = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=n_jobs)
        score = forest.fit(x, y).feature_importances_
    elif name == "l1-logistic":
        scaled = StandardScaler().fit_transform(x)
        model = LogisticRegression(penalty="l1", C=0.05, solver="saga", max_iter=100, tol=1e-3,
                                   random_state=seed)
        score = np.linalg.norm(model.fit(scaled, y).coef_, axis=0)
    else:
        raise ValueError(name)
    # Stable sort: ties keep the lower index first, as topkfs's rankings do.
    return np.argsort(-score, kind="stable")


def extra_trees_accuracy(x_train, y_train, x_test, y_test, columns, seed, n_jobs=2):
    model = ExtraTreesClassifier(n_estimators=50, random_state=seed, n_jobs=n_jobs)
    model.fit(x_train[:, columns], y_train)
    return 100.0 * model.score(x_test[:, columns], y_test)


def kuncheva(sets, m):
    k = len(sets[0])
    values = []
    for a, b in itertools.combinations(sets, 2):
        r = len(set(a) & set(b))
        values.append((r * m - k * k) / (k * (m - k)))
    return float(np.mean(values))


def jaccard(sets):
    return float(np.mean([len(set(a) & set(b)) / len(set(a) | set(b))
                          for a, b in itertools.combinations(sets, 2)]))


def write_json(path, value):
    """Writes through a temporary, so that a stopped run leaves the old report."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(value, f, indent=1)
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    sys.path.insert(0, os.path.join(os.path.abspath(sys.argv[1]), "python"))
    import topkfs  # noqa: E402  (the build's module)
    output = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        ROOT, "bench", "quality", "results", "study", "reference.json")
    data_dir = os.environ.get("TOPKFS_DATA_DIR", os.path.join(ROOT, os.pardir, "shared", "data"))
    names = ["anova-f", "mutual-info", "random-forest", "l1-logistic"]
    result = json.load(open(output)) if os.path.exists(output) else {}

    def predefined(path):
        data = topkfs.load(os.path.join(data_dir, path))
        train, test = data.split
        return data.X[train], data.y[train], data.X[test], data.y[test]

    def random_split(x, y, seed):
        a, b, c, d = train_test_split(x, y, test_size=0.2, stratify=y, random_state=seed)
        return a, c, b, d

    usps = topkfs.load(os.path.join(data_dir, "usps", "usps.h5"))
    workloads = [("mnist", [10, 50], "mnist"), ("fashion", [10], "fashion-mnist"),
                 ("usps", [10], None)]
    for prefix, ks, path in workloads:
        fixed = predefined(path) if path else None
        for name in names:
            scores = {k: [] for k in ks}
            seconds = []
            for seed in range(3):
                x_train, y_train, x_test, y_test = fixed or random_split(usps.X, usps.y, seed)
                start = time.monotonic()
                order = ranking(name, x_train, y_train, seed)
                seconds.append(time.monotonic() - start)
                for k in ks:
                    scores[k].append(extra_trees_accuracy(x_train, y_train, x_test, y_test,
                                                          order[:k], seed))
            for k in ks:
                result.setdefault(f"{prefix}-k{k}", {})[name] = {
                    "mean": float(np.mean(scores[k])), "std": float(np.std(scores[k])),
                    "seconds": float(np.mean(seconds))}
                print(f"{prefix}-k{k} {name}: {np.mean(scores[k]):.1f}", flush=True)
    for name in names:
        sets, seconds = [], []
        for seed in range(10):
            x_train, y_train, _, _ = random_split(usps.X, usps.y, seed)
            start = time.monotonic()
            sets.append(list(ranking(name, x_train, y_train, seed)[:10]))
            seconds.append(time.monotonic() - start)
        result.setdefault("usps-stability", {})[name] = {
            "kuncheva": kuncheva(sets, usps.X.shape[1]), "jaccard": jaccard(sets),
            "seconds": float(np.mean(seconds))}
        print(f"usps-stability {name}: K {result['usps-stability'][name]['kuncheva']:.3f}",
              flush=True)
    write_json(output, result)


if __name__ == "__main__":
    main()
