#!/usr/bin/python3
"""Downstream accuracy of a feature selection (DESIGN.md section 2, protocol 3).

Usage: score_extra_trees.py DATA_DIR COLUMNS

DATA_DIR holds the four MNIST-style IDX files (train/t10k images and labels,
gzip-compressed); COLUMNS is a comma-separated list of 0-based pixel columns.
Fits scikit-learn's ExtraTreesClassifier(n_estimators=50, random_state=0,
n_jobs=2) on those columns of the training split and prints its accuracy on
the test split. The files are read here, independently of topkfs's IDX
reader, so that the score does not depend on the code under test.
"""
import gzip
import os
import struct
import sys

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier


def read_idx(path):
    with gzip.open(path, "rb") as stream:
        data = stream.read()
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise SystemExit(f"{path}: not an unsigned-byte IDX file")
    dims = struct.unpack(">" + "I" * ndim, data[4 : 4 + 4 * ndim])
    values = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if values.size != int(np.prod(dims)):
        raise SystemExit(f"{path}: header claims {dims}, file holds {values.size} values")
    return values.reshape(dims[0], -1) if ndim > 1 else values


def load_split(folder, prefix):
    images = read_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte.gz"))
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
