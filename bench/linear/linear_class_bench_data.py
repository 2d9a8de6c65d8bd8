#!/usr/bin/python3
"""Writes the class families' benchmark problems once as CSV, so that topkfs,
scikit-learn and R glmnet read the very same numbers.

  /usr/bin/python3 bench/linear/linear_class_bench_data.py OUT_DIR [--rows 10000] [--cols 1000]

OUT_DIR/binomial.csv and OUT_DIR/multinomial.csv: rows x cols standard
normals rounded to multiples of 1/1024 (exact in float32), 20 informative
columns; the label (last column) drawn from a logistic model (two classes) or
a softmax model over 10 classes with coefficients of magnitude 0.2..0.6.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_problem import exact_in_float32, parse_arguments, write_csv


def write(path, x, labels):
    write_csv(path, x, labels, "label", "%d")


def main():
    args, rng = parse_arguments(__doc__, "out_dir", classes=10)
    n, m, p = args.rows, args.cols, args.informative
    os.makedirs(args.out_dir, exist_ok=True)

    x = exact_in_float32(rng.standard_normal((n, m)))
    beta = rng.uniform(0.2, 0.6, p) * rng.choice([-1.0, 1.0], p)
    eta = x[:, :p] @ beta
    write(os.path.join(args.out_dir, "binomial.csv"), x,
          (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int))

    x = exact_in_float32(rng.standard_normal((n, m)))
    beta = rng.uniform(0.2, 0.6, (p, args.classes)) * rng.choice([-1.0, 1.0], (p, args.classes))
    eta = x[:, :p] @ beta
    prob = np.exp(eta - eta.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    labels = (prob.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    write(os.path.join(args.out_dir, "multinomial.csv"), x, labels)


if __name__ == "__main__":
    main()
