#!/usr/bin/python3
"""Golden values for tests/cpp/linear_weights_test.cpp: weighted fits of the
gaussian and binomial families from scikit-learn's sample_weight.

Run from anywhere with Debian's Python:
    /usr/bin/python3 tests/linear/make_weighted_golden.py
It rewrites tests/linear/weighted_golden.json beside this script.

How topkfs's weighted objective maps (docs/linear.md, "Sample weights").
With row weights w, topkfs standardises the columns with the weighted mean
and the weighted population sd over the training rows and minimises
    sum_i w_i l_i / sum_i w_i + lambda2 ||b||_1 + lambda1/2 ||b||^2,
l_i the row's squared error / 2 (gaussian) or negative log-likelihood
(binomial). So, on the weighted-standardised columns:
  * scikit-learn's ElasticNet with sample_weight (which it rescales to sum to
    n) has alpha = lambda1 + lambda2, l1_ratio = lambda2 / alpha, as without
    weights (make_golden.py);
  * LogisticRegression minimises C sum_i w_i l_i + l1_ratio ||b||_1 +
    (1 - l1_ratio)/2 ||b||^2, so C = 1 / (sum(w) (lambda1 + lambda2)).
The data are make_golden.py's and make_class_golden.py's; the weights
include zeros (a removed row) and values above 1.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import ElasticNet, Lasso, LogisticRegression

import make_class_golden
import make_golden

HERE = os.path.dirname(os.path.abspath(__file__))
TIGHT = dict(tol=1e-13, max_iter=1_000_000)


def make_weights(seed, n):
    rng = np.random.default_rng(1000 + seed)
    return rng.choice([0.0, 0.5, 1.0, 2.0, 3.25], size=n, p=[0.1, 0.2, 0.4, 0.2, 0.1])


def weighted_standardised(x, w):
    mean = w @ x / w.sum()
    sd = np.sqrt(w @ (x - mean) ** 2 / w.sum())
    return (x - mean) / sd, mean, sd


def gaussian(name, seed, n, m, lambda1, lambda2):
    x, y = make_golden.make_data(seed, n, m)
    w = make_weights(seed, n)
    xs, mean, sd = weighted_standardised(x, w)
    if lambda1 == 0:
        model = Lasso(alpha=lambda2, **TIGHT)
    else:
        alpha = lambda1 + lambda2
        model = ElasticNet(alpha=alpha, l1_ratio=lambda2 / alpha, **TIGHT)
    model.fit(xs, y, sample_weight=w)
    coef = model.coef_ / sd
    return dict(name=name, family="gaussian", lambda1=lambda1, lambda2=lambda2, x=x.tolist(),
                y=y.tolist(), weights=w.tolist(), coef_std=model.coef_.tolist(),
                coef=coef.tolist(), intercept=float(model.intercept_ - coef @ mean))


def binomial(name, seed, n, m, lambda1, lambda2):
    x, labels = make_class_golden.make_data(seed, n, m, 2)
    w = make_weights(seed, n)
    xs, _, _ = weighted_standardised(x, w)
    alpha = lambda1 + lambda2
    model = LogisticRegression(penalty="elasticnet", solver="saga", C=1 / (w.sum() * alpha),
                               l1_ratio=lambda2 / alpha, tol=1e-13, max_iter=10_000_000)
    model.fit(xs, labels, sample_weight=w)
    return dict(name=name, family="binomial", lambda1=lambda1, lambda2=lambda2, x=x.tolist(),
                labels=labels.tolist(), weights=w.tolist(),
                coef_std=model.coef_[0].tolist(), intercept_std=float(model.intercept_[0]))


def main():
    problems = [
        gaussian("weighted lasso, rows >> columns", 1, 120, 8, 0.0, 0.05),
        gaussian("weighted elastic net, columns > rows", 3, 20, 30, 0.2, 0.03),
        gaussian("weighted elastic net, weak penalty", 7, 80, 12, 0.01, 0.001),
        binomial("weighted binomial elastic net", 1, 150, 8, 0.03, 0.02),
        binomial("weighted binomial lasso, columns > rows", 2, 50, 80, 0.0, 0.03),
    ]
    golden = dict(generator="tests/linear/make_weighted_golden.py",
                  scikit_learn=sklearn.__version__, problems=problems)
    with open(os.path.join(HERE, "weighted_golden.json"), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
