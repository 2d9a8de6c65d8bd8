#!/usr/bin/python3
"""Golden values for tests/cpp/linear_exactness_test.cpp, from scikit-learn.

Run from anywhere with Debian's Python:  /usr/bin/python3 tests/linear/make_golden.py
It rewrites tests/linear/golden.json beside this script.

How topkfs's penalties map to scikit-learn (docs/linear.md):
  topkfs minimises, on columns standardised over the training rows (mean 0,
  population standard deviation 1, as StandardScaler) with an unpenalised
  intercept,
      1/(2n) ||y - b - Xw||^2 + lambda2 ||w||_1 + lambda1/2 ||w||_2^2
  scikit-learn's ElasticNet minimises
      1/(2n) ||y - b - Xw||^2 + alpha l1_ratio ||w||_1 + alpha (1 - l1_ratio)/2 ||w||_2^2
  so   alpha = lambda1 + lambda2,  l1_ratio = lambda2 / (lambda1 + lambda2)
  (Lasso: alpha = lambda2), and Ridge, which minimises ||y - b - Xw||^2 + alpha ||w||^2,
  has  alpha = n lambda1.
  lasso_path on the standardised X and the centred y has alphas = lambda2.
Coefficients on the original columns are w_j / sd_j, the intercept mean(y) - sum_j w_j mean_j / sd_j.

The features are multiples of 1/256 (exact in float32, the precision topkfs
keeps features in) and the targets have 6 decimals, so that both sides see the
very same numbers.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import ElasticNet, Lasso, Ridge, lasso_path

TIGHT = dict(tol=1e-13, max_iter=1_000_000)


def make_data(seed, n, m, correlated=0, constant_column=None):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, m))
    for j in range(correlated):  # column j+1 is a noisy copy of column j
        z[:, j + 1] = 0.8 * z[:, j] + 0.6 * z[:, j + 1]
    offsets = rng.uniform(-5, 5, m)
    scales = rng.uniform(0.1, 10, m)
    # Multiples of 1/256 below 2^15: exact in float32, short in JSON.
    x = np.round((z * scales + offsets) * 256) / 256
    if constant_column is not None:
        x[:, constant_column] = 2.5
    beta = np.zeros(m)
    support = rng.choice(m, size=min(5, m), replace=False)
    beta[support] = rng.uniform(0.5, 2.0, support.size) * rng.choice([-1, 1], support.size)
    xs, mean, sd = standardise(x)
    y = np.round(3.0 + xs @ beta + 0.5 * rng.standard_normal(n), 6)
    return x, y


def standardise(x):
    mean = x.mean(axis=0)
    sd = x.std(axis=0)
    constant = sd <= 1e-12 * np.maximum(1.0, np.abs(mean))
    safe = np.where(constant, 1.0, sd)
    xs = np.where(constant, 0.0, (x - mean) / safe)
    return xs, mean, np.where(constant, 0.0, sd)


def original_scale(coef_std, x, y):
    _, mean, sd = standardise(x)
    coef = np.where(sd > 0, coef_std / np.where(sd > 0, sd, 1.0), 0.0)
    return coef, float(y.mean() - coef @ mean)


def sklearn_fit(x, y, lambda1, lambda2):
    xs, _, _ = standardise(x)
    if lambda2 == 0:
        model = Ridge(alpha=x.shape[0] * lambda1, solver="cholesky").fit(xs, y)
    elif lambda1 == 0:
        model = Lasso(alpha=lambda2, **TIGHT).fit(xs, y)
    else:
        alpha = lambda1 + lambda2
        model = ElasticNet(alpha=alpha, l1_ratio=lambda2 / alpha, **TIGHT).fit(xs, y)
    return model.coef_


def problem(name, seed, n, m, lambda1, lambda2, **data_options):
    x, y = make_data(seed, n, m, **data_options)
    coef_std = sklearn_fit(x, y, lambda1, lambda2)
    coef, intercept = original_scale(coef_std, x, y)
    return {
        "name": name, "lambda1": lambda1, "lambda2": lambda2,
        "x": x.tolist(), "y": y.tolist(),
        "coef_std": coef_std.tolist(), "coef": coef.tolist(), "intercept": intercept,
    }


def path_problem(name, seed, n, m, points, eps):
    x, y = make_data(seed, n, m, correlated=2)
    xs, _, _ = standardise(x)
    alphas, coefs, _ = lasso_path(xs, y - y.mean(), n_alphas=points, eps=eps, **TIGHT)
    return {
        "name": name, "points": points, "eps": eps,
        "x": x.tolist(), "y": y.tolist(),
        "lambda2": alphas.tolist(), "coef_std": coefs.T.tolist(),
    }


def main():
    golden = {
        "generator": "tests/linear/make_golden.py",
        "sklearn": sklearn.__version__,
        "mapping": "alpha = lambda1 + lambda2, l1_ratio = lambda2 / alpha on standardised "
                   "columns; Ridge alpha = n lambda1",
        "problems": [
            problem("lasso, rows >> columns", 1, 120, 8, 0.0, 0.05),
            problem("elastic net, rows >> columns, correlated", 2, 100, 12, 0.5, 0.1, correlated=6),
            problem("elastic net, columns > rows", 3, 20, 30, 0.2, 0.03),
            problem("lasso, columns > rows, constant column", 4, 15, 25, 0.0, 0.02,
                    constant_column=7),
            problem("ridge, rows >> columns", 5, 60, 10, 0.7, 0.0),
            problem("ridge, columns > rows", 6, 20, 30, 0.3, 0.0),
            problem("elastic net, weak penalty", 7, 80, 12, 0.01, 0.001, correlated=4),
        ],
        "paths": [path_problem("lasso path", 8, 60, 10, 20, 1e-2)],
    }
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(out, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
