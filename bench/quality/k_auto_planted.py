#!/usr/bin/python3
"""--k auto on generated problems with a planted support: the k chosen
against the planted count, and the planted columns among those selected.

Usage: k_auto_planted.py METHOD [--rows N] [--build DIR] [--options JSON]
  METHOD     any registered method (dnn-top, elastic-net-top, ...)
  --rows     rows of every problem (default 1000)
  --options  keyword arguments of topkfs.TopKSelector as JSON, e.g.
             '{"k_rule": "best"}' or '{"k_folds": 5}'

Six problems, each seeded (numpy default_rng(1000 x informative + columns)):
classes and a real target, with 10 of 200, 20 of 500 and 30 of 2000
columns planted. Columns standard normal; the score a sum of the planted
columns with weights of size 0.5 to 1.5 and random sign; 10% noise (of the
score's spread); classes: the sign of score + noise, a real target: score +
noise. Prints one JSON line per problem: the chosen k, its relative error
to the planted count, the planted columns selected and their share, seconds.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBLEMS = [(task, informative, columns) for task in ("classes", "real")
            for informative, columns in ((10, 200), (20, 500), (30, 2000))]


def planted_problem(task, informative, columns, rows):
    rng = np.random.default_rng(1000 * informative + columns)
    x = rng.normal(size=(rows, columns)).astype(np.float32)
    planted = rng.choice(columns, size=informative, replace=False)
    weights = rng.uniform(0.5, 1.5, size=informative) * rng.choice([-1, 1], size=informative)
    score = x[:, planted] @ weights
    noisy = score + rng.normal(scale=0.1 * score.std(), size=rows)
    y = (noisy > 0).astype(int) if task == "classes" else noisy
    return x, y, planted


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("method")
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--options", default="{}")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.build), "python"))
    import topkfs  # noqa: E402  (the build's module)
    options = json.loads(args.options)
    for task, informative, columns in PROBLEMS:
        x, y, planted = planted_problem(task, informative, columns, args.rows)
        start = time.time()
        selector = topkfs.TopKSelector(method=args.method, k="auto", random_state=0, **options)
        selector.fit(x, y)
        found = len(set(selector.selected_.tolist()) & set(planted.tolist()))
        print(json.dumps({"task": task, "informative": informative, "columns": columns,
                          "k": selector.k_, "k_error": abs(selector.k_ - informative) / informative,
                          "planted_found": found, "recovery": found / informative,
                          "seconds": round(time.time() - start, 1)}), flush=True)


if __name__ == "__main__":
    main()
