#!/usr/bin/python3
"""The quality study's offline checks (2026-11-27, 580afdb; docs/quality-study.md):
rules applied to finished `dnn-top` fits, measured without changing topkfs.

Usage: quality_offline.py BUILD_DIR screen|xor|clusters [--quick]

  screen    A marginal screen in front of dnn-top's ranking by |w|: the
            columns whose score test against the target alone passes at
            p < 0.05 (the linear models' rule, docs/linear.md) first, each
            group by |w|. Detection F1 on CompAct and Ailerons with
            standardised noise columns (the construction of
            bench/quality/quality_generalisation.py, 10 noise seeds) and
            ExtraTrees accuracy on scikit-learn's small tables (5 splits), with and
            without the screen.
  xor       Why the screen is not for a network's selection: y = [x3 > 0] xor
            [x11 > 0] among 20 standard normal columns (2000 rows, k = 2, 5
            seeds). Prints what dnn-top selects, and what passes the screen.
  clusters  Stability selection with votes pooled over clusters of
            correlated pixels: USPS k = 10, 10 stratified 80/20 splits x 5
            seeds (seed fixed across splits), Kuncheva index and ExtraTrees
            accuracy of each way of combining the five fits of a split.
  --quick   fewer seeds and splits, to check that the script runs.

Fits use topkfs's Python package from BUILD_DIR, one thread each.
"""
import os
import sys

import numpy as np
from scipy.stats import chi2
from sklearn.feature_selection import f_classif
from sklearn.model_selection import train_test_split

from quality_generalisation import TABLES, with_noise_columns
from quality_reference import ROOT, extra_trees_accuracy, kuncheva

DATA = os.environ.get("TOPKFS_DATA_DIR", os.path.join(ROOT, os.pardir, "shared", "data"))
LEVEL = 0.05


def passes_screen(x, y, classes):
    """Per column: its score statistic n R^2 (chi-square) has p < LEVEL."""
    x = x - x.mean(axis=0)
    variance = (x ** 2).sum(axis=0)
    safe = np.where(variance > 0, variance, 1.0)
    if classes:
        labels = np.unique(y)
        between = sum((y == c).sum() * x[y == c].mean(axis=0) ** 2 for c in labels)
        share, df = np.where(variance > 0, between / safe, 0.0), len(labels) - 1
    else:
        yc = y - y.mean()
        share, df = np.where(variance > 0, (x.T @ yc) ** 2 / (safe * (yc @ yc)), 0.0), 1
    return chi2.sf(len(y) * share, df) < LEVEL


def screened(scores, passing):
    order = np.argsort(-np.asarray(scores), kind="stable")
    return np.concatenate([order[passing[order]], order[~passing[order]]])


def fit(topkfs, x, y, k, seed, **options):
    return topkfs.TopKSelector("dnn-top", k=k, seed=seed, threads=1, **options).fit(x, y)


def screen(topkfs, quick):
    noise_seeds, splits = (2, 2) if quick else (10, 5)
    for path in ["cpu_act/cpu_act.csv", "ailerons/ailerons.csv"]:
        data = topkfs.load(os.path.join(DATA, path), task="regression")
        x, y = np.asarray(data.X, np.float64), np.asarray(data.y, np.float64)
        m = x.shape[1]
        found = {"plain": [], "screen": []}
        for seed in range(noise_seeds):
            both, column = with_noise_columns(x, seed)
            selector = fit(topkfs, both.astype(np.float32), y, m, seed)
            with_screen = screened(selector.scores_, passes_screen(both, y, False))[:m]
            for name, chosen in [("plain", selector.selected_), ("screen", with_screen)]:
                found[name].append(100.0 * np.count_nonzero(column[np.asarray(chosen)] < m) / m)
        print(f"{path.split('/')[0]} detection F1: " +
              ", ".join(f"{name} {np.mean(v):.1f}" for name, v in found.items()), flush=True)
    for name, (loader, ks) in TABLES.items():
        x, y = loader(return_X_y=True)
        x = x.astype(np.float32)
        accuracy = {"plain": [], "screen": []}
        for split in range(splits):
            x_train, x_test, y_train, y_test = train_test_split(
                x, y, test_size=0.2, stratify=y, random_state=split)
            passing = passes_screen(x_train.astype(np.float64), y_train, True)
            for k in ks:
                selector = fit(topkfs, x_train, y_train, k, split)
                for rule, chosen in [("plain", selector.selected_),
                                     ("screen", screened(selector.scores_, passing)[:k])]:
                    accuracy[rule].append(extra_trees_accuracy(
                        x_train, y_train, x_test, y_test, np.asarray(chosen), split))
        print(f"{name} accuracy: " +
              ", ".join(f"{rule} {np.mean(v):.2f}" for rule, v in accuracy.items()), flush=True)


def xor(topkfs, quick):
    for seed in range(2 if quick else 5):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((2000, 20)).astype(np.float32)
        y = ((x[:, 3] > 0) ^ (x[:, 11] > 0)).astype(int)
        selector = fit(topkfs, x, y, 2, seed)
        passing = passes_screen(x.astype(np.float64), y, True)
        print(f"seed {seed}: dnn-top selects {sorted(selector.selected_.tolist())}, with the "
              f"screen {sorted(screened(selector.scores_, passing)[:2].tolist())}; passing "
              f"the screen: {np.flatnonzero(passing).tolist()}", flush=True)


def votes_and_scores(fits):
    """The landed rule (docs/algorithms.md): votes of each fit's top k, ties
    by the mean relative |w|."""
    votes = np.zeros(len(fits[0].scores_))
    relative = np.zeros_like(votes)
    for one in fits:
        votes[one.selected_] += 1
        relative += one.scores_ / one.scores_.max()
    return votes, votes + 0.5 * relative / len(fits)


def pooled(fits, k, correlation, f_statistic, threshold, representative):
    """Votes pooled over groups of candidates correlated at |r| >= threshold;
    the k groups with most votes, each by its most voted pixel or by its
    pixel of largest F."""
    votes, score = votes_and_scores(fits)
    candidates = [j for j in np.argsort(-score, kind="stable") if votes[j] > 0]
    group_of, groups = {}, []
    for j in candidates:
        if j in group_of:
            continue
        members = [j] + [i for i in candidates if i not in group_of and i != j
                         and abs(correlation[i, j]) >= threshold]
        for i in members:
            group_of[i] = len(groups)
        groups.append(members)
    # Pooled votes, ties by the group's best relative |w| (score - votes).
    groups.sort(key=lambda g: -(sum(votes[i] for i in g) + max(score[i] - votes[i] for i in g)))
    rank = f_statistic if representative == "F" else score
    chosen = [max(g, key=lambda i: rank[i]) for g in groups[:k]]
    for j in np.argsort(-score, kind="stable"):  # fewer groups than k
        if len(chosen) < k and j not in chosen:
            chosen.append(j)
    return chosen


def clusters(topkfs, quick):
    k, restarts, splits = 10, (2 if quick else 5), (3 if quick else 10)
    data = topkfs.load(os.path.join(DATA, "usps", "usps.h5"))
    x, y = np.asarray(data.X, np.float32), np.asarray(data.y)
    rules = {"one fit (seed 0)": None, "votes (the landed rule)": None}
    for threshold in (0.7, 0.8, 0.9):
        for representative in ("votes", "F"):
            rules[f"pooled at |r| >= {threshold}, {representative}"] = (threshold, representative)
    chosen = {rule: [] for rule in rules}
    accuracy = {rule: [] for rule in rules}
    for split in range(splits):
        x_train, x_test, y_train, y_test = train_test_split(
            x, y, test_size=0.2, stratify=y, random_state=split)
        fits = [fit(topkfs, x_train, y_train, k, seed, scaling="image")
                for seed in range(restarts)]
        correlation = np.nan_to_num(np.corrcoef(x_train.T.astype(np.float64)))
        f_statistic = np.nan_to_num(f_classif(x_train, y_train)[0])
        for rule, how in rules.items():
            if how is None:
                columns = (fits[0].selected_ if rule.startswith("one") else
                           np.argsort(-votes_and_scores(fits)[1], kind="stable")[:k])
            else:
                columns = pooled(fits, k, correlation, f_statistic, *how)
            columns = np.asarray(columns)
            chosen[rule].append(set(columns.tolist()))
            accuracy[rule].append(
                extra_trees_accuracy(x_train, y_train, x_test, y_test, columns, split))
    for rule in rules:
        print(f"{rule}: Kuncheva {kuncheva(chosen[rule], x.shape[1]):.3f}, "
              f"accuracy {np.mean(accuracy[rule]):.2f}", flush=True)


def main():
    args = [a for a in sys.argv[1:] if a != "--quick"]
    checks = {"screen": screen, "xor": xor, "clusters": clusters}
    if len(args) != 2 or args[1] not in checks:
        raise SystemExit(__doc__)
    sys.path.insert(0, os.path.join(os.path.abspath(args[0]), "python"))
    import topkfs  # noqa: E402  (the build's module)
    checks[args[1]](topkfs, "--quick" in sys.argv)


if __name__ == "__main__":
    main()
