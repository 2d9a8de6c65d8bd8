#!/usr/bin/python3
"""Downstream accuracy of a feature selection (docs/method.md §3, protocol 3).

Usage: score_extra_trees.py DATA_DIR COLUMNS

DATA_DIR holds the four MNIST-style IDX files (train/t10k images and labels,
gzip-compressed); COLUMNS is a comma-separated list of 0-based pixel columns.
Fits scikit-learn's ExtraTreesClassifier(n_estimators=50, random_state=0,
n_jobs=2) on those columns of the training split and prints its accuracy on
the test split. The files are read by tests/python_support/idx.py,
independently of topkfs's IDX reader, so that the score does not depend on
the code under test.
"""
import os
import sys

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python_support"))
from idx import read_idx_split  # noqa: E402


def load_split(folder, prefix):
    images, labels = read_idx_split(folder, prefix)
    return images.astype(np.float32), labels


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    folder, column_text = sys.argv[1], sys.argv[2]
    columns = [int(c) for c in column_text.split(",") if c]
    x_train, y_train = load_split(folder, "train")
    x_test, y_test = load_split(folder, "t10k")
    if not columns or max(columns) >= x_train.shape[1] or min(columns) < 0:
        raise SystemExit(f"columns must be in 0..{x_train.shape[1] - 1}")
    model = ExtraTreesClassifier(n_estimators=50, random_state=0, n_jobs=2)
    model.fit(x_train[:, columns], y_train)
    print(f"{model.score(x_test[:, columns], y_test):.6f}")


if __name__ == "__main__":
    main()
