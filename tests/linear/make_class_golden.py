#!/usr/bin/python3
"""Golden values for tests/cpp/linear_class_exactness_test.cpp: the binomial
family from scikit-learn, the multinomial family from R's glmnet.

Run from anywhere with Debian's Python (the multinomial part needs Rscript with
glmnet: Debian's r-cran-glmnet, which scripts/setup.sh installs):
    /usr/bin/python3 tests/linear/make_class_golden.py
It rewrites tests/linear/class_golden.json beside this script.

How topkfs's penalties map (docs/linear.md). topkfs minimises, on columns
standardised over the training rows (mean 0, population sd 1) with
unpenalised intercepts,
    L(B, b) + lambda2 sum_j ||B_j||_2 + lambda1/2 ||B||_F^2
with L the negative log-likelihood divided by n.
  * binomial (B one column): scikit-learn's LogisticRegression with
    penalty="elasticnet" minimises C n L + l1_ratio ||w||_1 + (1 - l1_ratio)/2 ||w||^2,
    so  C = 1 / (n (lambda1 + lambda2)),  l1_ratio = lambda2 / (lambda1 + lambda2).
  * multinomial (B one column per class, grouped): glmnet's
    family="multinomial", type.multinomial="grouped" minimises
    L + lambda ((1 - alpha)/2 ||B||_F^2 + alpha sum_j ||B_j||_2),
    so  lambda = lambda1 + lambda2,  alpha = lambda2 / (lambda1 + lambda2).
    glmnet standardises with the population sd too; its coefficients come
    back on the original columns and are put on the standardised ones here
    (times sd_j; intercepts plus sum_j beta_j mean_j).
The features are multiples of 1/256 (exact in float32, the precision topkfs
keeps features in), so that every side sees the very same numbers.
"""
import json
import os
import subprocess
import tempfile

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression

HERE = os.path.dirname(os.path.abspath(__file__))


def make_data(seed, n, m, classes, informative=4):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, m))
    z[:, 1] = 0.7 * z[:, 0] + 0.7 * z[:, 1]  # a correlated pair
    offsets = rng.uniform(-3, 3, m)
    scales = rng.uniform(0.2, 5, m)
    x = np.round((z * scales + offsets) * 256) / 256
    xs = (x - x.mean(axis=0)) / x.std(axis=0)
    outputs = 1 if classes == 2 else classes
    beta = np.zeros((m, outputs))
    beta[:informative] = rng.uniform(-1.5, 1.5, (informative, outputs))
    eta = xs @ beta
    if classes == 2:
        labels = (rng.random(n) < 1 / (1 + np.exp(-eta[:, 0]))).astype(int)
    else:
        p = np.exp(eta - eta.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        labels = np.array([rng.choice(classes, p=row) for row in p])
    return x, labels


def standardised(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def binomial(name, seed, n, m, lambda1, lambda2):
    x, labels = make_data(seed, n, m, 2)
    alpha = lambda1 + lambda2
    model = LogisticRegression(penalty="elasticnet", solver="saga", C=1 / (n * alpha),
                               l1_ratio=lambda2 / alpha, tol=1e-13, max_iter=10_000_000)
    model.fit(standardised(x), labels)
    return dict(name=name, family="binomial", classes=2, x=x.tolist(), labels=labels.tolist(),
                fits=[dict(lambda1=lambda1, lambda2=lambda2,
                           intercept=model.intercept_.tolist(),
                           coef=model.coef_.T.tolist())])


R_PROGRAM = r"""
suppressMessages(library(glmnet))
args <- commandArgs(TRUE)
x <- as.matrix(read.csv(args[1], header = FALSE))
y <- factor(scan(args[2], quiet = TRUE))
lambdas <- as.matrix(read.csv(args[3], header = FALSE))  # rows: lambda1, lambda2
mean <- colMeans(x)
sd <- sqrt(colMeans(sweep(x, 2, mean)^2))
out <- c()
for (r in seq_len(nrow(lambdas))) {
  l1 <- lambdas[r, 1]; l2 <- lambdas[r, 2]
  fit <- glmnet(x, y, family = "multinomial", type.multinomial = "grouped",
                alpha = l2 / (l1 + l2), lambda = l1 + l2, standardize = TRUE,
                thresh = 1e-15, maxit = 1e8)
  for (b in coef(fit)) {
    beta <- as.numeric(b[-1])
    out <- rbind(out, c(b[1] + sum(beta * mean), beta * sd))
  }
}
write.table(out, args[4], sep = ",", row.names = FALSE, col.names = FALSE)
"""


def glmnet_version():
    return subprocess.run(["Rscript", "-e", "cat(as.character(packageVersion('glmnet')))"],
                          check=True, capture_output=True, text=True).stdout.strip()


def multinomial(name, seed, n, m, classes, lambdas):
    x, labels = make_data(seed, n, m, classes)
    with tempfile.TemporaryDirectory() as folder:
        paths = [os.path.join(folder, f) for f in ("x.csv", "y.txt", "lambdas.csv", "out.csv")]
        np.savetxt(paths[0], x, delimiter=",", fmt="%.10g")
        np.savetxt(paths[1], labels, fmt="%d")
        np.savetxt(paths[2], np.array(lambdas), delimiter=",", fmt="%.17g")
        program = os.path.join(folder, "fit.R")
        with open(program, "w") as f:
            f.write(R_PROGRAM)
        subprocess.run(["Rscript", program] + paths, check=True)
        out = np.loadtxt(paths[3], delimiter=",").reshape(len(lambdas), classes, m + 1)
    fits = [dict(lambda1=l1, lambda2=l2, intercept=out[i, :, 0].tolist(),
                 coef=out[i, :, 1:].T.tolist()) for i, (l1, l2) in enumerate(lambdas)]
    return dict(name=name, family="multinomial", classes=classes, x=x.tolist(),
                labels=labels.tolist(), fits=fits)


def main():
    problems = [
        binomial("binomial elastic net", 1, 150, 8, 0.03, 0.02),
        binomial("binomial lasso, columns > rows", 2, 50, 80, 0.0, 0.03),
        binomial("binomial ridge", 3, 120, 10, 0.05, 0.0),
        multinomial("multinomial elastic net", 4, 160, 10, 3, [(0.03, 0.02), (0.03, 0.005)]),
        multinomial("multinomial lasso, columns > rows", 5, 60, 90, 4, [(0.0, 0.08), (0.0, 0.04)]),
        multinomial("multinomial ridge", 6, 100, 12, 5, [(0.05, 0.0)]),
    ]
    golden = dict(scikit_learn=sklearn.__version__, glmnet=glmnet_version(), problems=problems)
    with open(os.path.join(HERE, "class_golden.json"), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
