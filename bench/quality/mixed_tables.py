#!/usr/bin/env python3
"""Mixed-type tables (text categories, empty cells): every topkfs method
against three scikit-learn rankings, under one protocol.

For each table and each of SPLITS random stratified 80/20 splits (seeds
0..SPLITS-1, drawn here and written as two CSV files), and each k:
  - topkfs: `topkfs select TRAIN.csv --target Class --method M --k K
    --split none` (encoding learned from the training file alone);
  - scikit-learn: SimpleImputer (most frequent) + OneHotEncoder on text
    columns, SimpleImputer (median) + missing indicator on numeric ones
    (a ColumnTransformer fitted on the training rows), then mutual
    information, random-forest importance (100 trees) and L1-logistic
    (|coef| summed over classes, C = 0.1), each column's score summed over
    its encoded pieces, top k columns;
then the same downstream model judges every selection: that
ColumnTransformer restricted to the selected columns, fitted on the
training rows, and ExtraTrees with 50 trees, accuracy on the test rows.

Usage: /usr/bin/python3 bench/quality/mixed_tables.py
       [--topkfs build/apps/topkfs/topkfs] [--data ../shared/data] [--splits 5]
       [--ks 3,5,10] [--methods a,b] [--output report.json] [--update report.json]
Prints one table per dataset: mean accuracy over splits and k, and per k.
--update REPORT runs only --methods (without the scikit-learn rankings unless
one is named) and replaces their entries in REPORT, which records the commit
each method was measured at (written to --output, default REPORT).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.feature_selection import mutual_info_classif
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
from bench_paths import shared_data_dir  # noqa: E402
TABLES = {"soybean": "soybean/soybean.csv", "house_votes84": "house_votes84/house_votes84.csv"}
METHODS = ["dnn-top", "dfs", "concrete", "stg", "fir", "random-forest", "inffs", "lasso",
           "lasso-top", "ridge", "ridge-top", "elastic-net", "elastic-net-top"]
MISSING = {"", "NA", "N/A", "n/a", "null", "NULL", "nan", "NaN", "NAN", "?"}


def read_table(path, target):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    t = header.index(target)
    names = [h for j, h in enumerate(header) if j != t]
    cells = [[r[j] for j in range(len(header)) if j != t] for r in body]
    y = np.array([r[t] for r in body])
    return header, body, names, cells, y


def column_kinds(cells, m):
    """A column holding a cell that is neither a number nor missing is text."""
    kinds = []
    for j in range(m):
        text = False
        for row in cells:
            v = row[j]
            if v in MISSING:
                continue
            try:
                float(v)
            except ValueError:
                text = True
                break
        kinds.append("text" if text else "number")
    return kinds


def as_matrix(cells, kinds, columns):
    out = np.empty((len(cells), len(columns)), dtype=object)
    for c, j in enumerate(columns):
        for i, row in enumerate(cells):
            v = row[j]
            if v in MISSING:
                out[i, c] = np.nan
            elif kinds[j] == "number":
                out[i, c] = float(v)
            else:
                out[i, c] = v
    return out


def encoder(kinds, columns):
    """The scikit-learn user's five lines, on `columns` (positions in the matrix)."""
    text = [c for c, j in enumerate(columns) if kinds[j] == "text"]
    numbers = [c for c, j in enumerate(columns) if kinds[j] == "number"]
    parts = []
    if text:
        parts.append(("text", make_pipeline(
            SimpleImputer(strategy="constant", fill_value="(missing)"),
            OneHotEncoder(handle_unknown="ignore")), text))
    if numbers:
        parts.append(("numbers", SimpleImputer(strategy="median", add_indicator=True), numbers))
    return ColumnTransformer(parts, sparse_threshold=0)


def downstream_accuracy(cells, y, kinds, train, test, chosen):
    x = as_matrix(cells, kinds, chosen)
    enc = encoder(kinds, chosen)
    x_train = enc.fit_transform(x[train]).astype(float)
    x_test = enc.transform(x[test]).astype(float)
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0, n_jobs=1)
    trees.fit(x_train, y[train])
    return 100.0 * float(np.mean(trees.predict(x_test) == y[test]))


def encoded_owner(enc, kinds, m):
    """For each encoded column of enc (fitted on every column), its table column."""
    owner = []
    for name, transformer, cols in enc.transformers_:
        if name == "text":
            one_hot = transformer.steps[-1][1]
            for c, cats in zip(cols, one_hot.categories_):
                owner += [c] * len(cats)
        elif name == "numbers":
            imputer = transformer
            owner += list(cols)
            owner += [cols[i] for i in imputer.indicator_.features_]
    return np.array(owner)


def sklearn_rankings(cells, y, kinds, train, seed):
    m = len(kinds)
    columns = list(range(m))
    x = as_matrix(cells, kinds, columns)
    enc = encoder(kinds, columns)
    x_train = enc.fit_transform(x[train]).astype(float)
    owner = encoded_owner(enc, kinds, m)
    assert len(owner) == x_train.shape[1]
    scores = {}
    scores["sklearn-mutual-info"] = mutual_info_classif(x_train, y[train], random_state=seed)
    forest = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    scores["sklearn-random-forest"] = forest.fit(x_train, y[train]).feature_importances_
    logistic = LogisticRegression(penalty="l1", C=0.1, solver="saga", max_iter=2000,
                                  random_state=seed)
    scaled = (x_train - x_train.mean(0)) / (x_train.std(0) + 1e-12)
    coef = np.abs(logistic.fit(scaled, y[train]).coef_).sum(0)
    scores["sklearn-l1-logistic"] = coef
    out = {}
    for name, s in scores.items():
        per_column = np.zeros(m)
        np.add.at(per_column, owner, s)
        # Ties (e.g. all zero) to the lower index, as topkfs ranks.
        out[name] = sorted(range(m), key=lambda j: (-per_column[j], j))
    return out


def write_split(header, body, rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for i in rows:
            w.writerow(body[i])


def topkfs_selection(topkfs, train_csv, method, k, names):
    run = subprocess.run([topkfs, "select", train_csv, "--target", "Class", "--method", method,
                          "--k", str(k), "--split", "none", "--json", "-q"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"topkfs select {method} --k {k} failed: {run.stderr.strip()}")
    result = json.loads(run.stdout)
    return [names.index(n) for n in result["selected_names"]], result["fit_seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topkfs", default=os.path.join(ROOT, "build/apps/topkfs/topkfs"))
    parser.add_argument("--data", default=shared_data_dir(ROOT))
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--ks", default="3,5,10")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--output")
    parser.add_argument("--update")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    methods = args.methods.split(",")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    date = time.strftime("%Y-%m-%d")
    if args.update:
        with open(args.update) as f:
            report = json.load(f)
        if report["splits"] != args.splits or report["ks"] != ks:
            sys.exit(f"mixed_tables: {args.update} has {report['splits']} splits and k = "
                     f"{report['ks']}; pass the same --splits and --ks")
        for method in methods:
            report.setdefault("method_commits", {})[method] = f"{commit}, {date}"
    else:
        report = {"protocol": __doc__.split("\n\n")[1], "splits": args.splits, "ks": ks,
                  "commit": commit, "date": date, "tables": {}}
    for table in args.tables.split(","):
        header, body, names, cells, y = read_table(os.path.join(args.data, TABLES[table]),
                                                   "Class")
        kinds = column_kinds(cells, len(names))
        scores = {}  # method -> k -> [accuracy per split]
        seconds = {}
        splitter = StratifiedShuffleSplit(n_splits=args.splits, test_size=0.2, random_state=0)
        with tempfile.TemporaryDirectory() as scratch:
            for s, (train, test) in enumerate(splitter.split(np.zeros(len(y)), y)):
                train_csv = os.path.join(scratch, f"train{s}.csv")
                write_split(header, body, train, train_csv)
                for method in methods:
                    for k in ks:
                        chosen, fit = topkfs_selection(args.topkfs, train_csv, method, k, names)
                        acc = downstream_accuracy(cells, y, kinds, train, test, chosen)
                        scores.setdefault(method, {}).setdefault(k, []).append(acc)
                        seconds[method] = seconds.get(method, 0.0) + fit
                if args.update:
                    print(f"{table}: split {s + 1}/{args.splits} done", file=sys.stderr)
                    continue
                started = time.time()
                for name, ranking in sklearn_rankings(cells, y, kinds, train, s).items():
                    for k in ks:
                        acc = downstream_accuracy(cells, y, kinds, train, test, ranking[:k])
                        scores.setdefault(name, {}).setdefault(k, []).append(acc)
                seconds["sklearn (all three)"] = seconds.get("sklearn (all three)", 0.0) + (
                    time.time() - started)
                print(f"{table}: split {s + 1}/{args.splits} done", file=sys.stderr)
        everything = sorted(range(len(names)))
        all_columns = [downstream_accuracy(cells, y, kinds, tr, te, everything)
                       for tr, te in splitter.split(np.zeros(len(y)), y)]
        measured = {}
        for name, per_k in scores.items():
            mean = float(np.mean([a for k in ks for a in per_k[k]]))
            measured[name] = {"mean": mean, "per_k": {str(k): float(np.mean(per_k[k])) for k in ks}}
        if args.update:
            kept = report["tables"][table]
            merged = dict(kept["methods"])
            merged.update(measured)
            seconds = {**kept["fit_seconds"], **seconds}
        else:
            merged = measured
        rows = sorted(((name, v["mean"], {k: v["per_k"][str(k)] for k in ks})
                       for name, v in merged.items()), key=lambda r: -r[1])
        print(f"\n{table} ({len(y)} rows x {len(names)} columns; ExtraTrees accuracy %, mean of "
              f"{args.splits} splits; all columns: {np.mean(all_columns):.1f})")
        print(f"{'method':24s} {'mean':>6s} " + " ".join(f"{'k=' + str(k):>6s}" for k in ks))
        for name, mean, per_k in rows:
            print(f"{name:24s} {mean:6.1f} " + " ".join(f"{per_k[k]:6.1f}" for k in ks))
        report["tables"][table] = {
            "all_columns": float(np.mean(all_columns)),
            "methods": {name: {"mean": mean, "per_k": {str(k): v for k, v in per_k.items()}}
                        for name, mean, per_k in rows},
            "fit_seconds": seconds}
    output = args.output or args.update
    if output:
        with open(output, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
