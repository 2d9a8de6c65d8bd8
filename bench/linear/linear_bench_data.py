#!/usr/bin/python3
"""Writes the linear models' benchmark problem once as CSV, so that topkfs and
scikit-learn read the very same numbers.

  /usr/bin/python3 bench/linear/linear_bench_data.py OUT.csv [--rows 10000] [--cols 1000] [--seed 0]

10000 rows x 1000 columns of standard normals; 20 informative columns with
coefficients of magnitude 0.5..1.5 and random sign, and 20 decoys, each a copy
of one informative column with correlation 0.9 (0.9 x + sqrt(0.19) z); the
target is the informative part plus Gaussian noise of 0.1 times its standard
deviation. Values are rounded to multiples of 1/1024 (exact in float32, so the
float32 features of topkfs and the float64 ones of numpy are equal) and the
informative and decoy columns are listed in OUT.csv.json.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_problem import exact_in_float32, parse_arguments, write_csv


def main():
    args, rng = parse_arguments(__doc__, "out", decoys=20)
    n, m, p = args.rows, args.cols, args.informative
    x = rng.standard_normal((n, m))
    order = rng.permutation(m)
    informative = np.sort(order[:p])
    decoys = order[p:p + args.decoys]
    sources = informative[np.arange(args.decoys) % p]
    x[:, decoys] = 0.9 * x[:, sources] + np.sqrt(1 - 0.81) * x[:, decoys]
    x = exact_in_float32(x)
    beta = rng.uniform(0.5, 1.5, p) * rng.choice([-1.0, 1.0], p)
    signal = x[:, informative] @ beta
    y = np.round(signal + 0.1 * signal.std() * rng.standard_normal(n), 6)

    write_csv(args.out, x, y, "y", "%.6f")
    with open(args.out + ".json", "w") as f:
        json.dump({"informative": informative.tolist(), "decoys": sorted(decoys.tolist()),
                   "coefficients": beta.tolist(), "seed": args.seed}, f)


if __name__ == "__main__":
    main()
