#!/usr/bin/env python3
"""How rules for choosing the method would have done, judged on recorded runs.

`topkfs evaluate --method auto --candidates A,B,... --output R.json` records
in every run each candidate's validation score on each fold (`parts`), over
the folds (`mean`, `se`) and its stability (docs/evaluate.md). A rule
chooses a method from those records alone; its test score in that run and k
is then read from the fixed methods' own runs of the same seeds (the merged
reports of bench/quality/reproduce), so every rule and every subset of the
candidates is judged without fitting again. (The chosen method's own fit in
an evaluate --method auto run is that method's fit on the same rows; dnn-top
there trains per k while the fixed runs train one model for every k, so its
figures can differ from a real auto run's by that.)

Usage: /usr/bin/python3 bench/quality/auto_rules.py STUDY_DIR
       [--fixed bench/quality/results/merged] [--sklearn bench/quality/results/sklearn-rankings.json]
       [--datasets a,b] [--subsets name=m1+m2,...]
STUDY_DIR holds one evaluate report per dataset, named <dataset>.json.
Prints, per rule and candidate subset, each dataset's mean score of the
chosen methods against the best fixed method's and the best scikit-learn
ranking's.
"""
import argparse
import itertools
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THREE = ["dnn-top", "elastic-net-top", "random-forest"]
DEFAULT_SUBSETS = {
    "three (before 2026-12-07)": THREE,
    "+elastic-net (the default)": THREE + ["elastic-net"],
    "+stg": THREE + ["stg"],
    "+stg+elastic-net": THREE + ["stg", "elastic-net"],
    "+inffs": THREE + ["inffs"],
    "all six": THREE + ["elastic-net", "stg", "inffs"],
}


def better(a, b, higher):
    return a > b if higher else a < b


def best_index(cands, higher):
    best = 0
    for i, c in enumerate(cands):
        if better(c["mean"], cands[best]["mean"], higher):
            best = i
    return best


def most_stable(cands, near, best):
    chosen = best
    for i in near:
        c, held = cands[i], cands[chosen]
        if c["stability"] > held["stability"] or (
            c["stability"] == held["stability"] and c["mean"] == held["mean"] and i < chosen
        ):
            chosen = i
    return chosen


def rule_best_score(cands, higher):
    return best_index(cands, higher)


def rule_overlap_then_stable(cands, higher):
    """The landed rule: one-standard-error intervals overlap, then the most stable."""
    best = best_index(cands, higher)
    near = [i for i, c in enumerate(cands)
            if abs(c["mean"] - cands[best]["mean"]) <= c["se"] + cands[best]["se"]]
    return most_stable(cands, near, best)


def paired_gap(a, b, higher):
    """Mean and standard error over the folds of how much a trails b."""
    gaps = [(pb - pa) if higher else (pa - pb) for pa, pb in zip(a["parts"], b["parts"])]
    n = len(gaps)
    mean = sum(gaps) / n
    if n < 2:
        return mean, 0.0
    var = sum((g - mean) ** 2 for g in gaps) / (n - 1)
    return mean, math.sqrt(var / n)


def rule_paired_then_stable(cands, higher):
    """Near: trails the best by at most one standard error of the paired gaps."""
    best = best_index(cands, higher)
    near = []
    for i, c in enumerate(cands):
        gap, se = paired_gap(c, cands[best], higher)
        if gap <= se:
            near.append(i)
    return most_stable(cands, near, best)


def rule_stable_among_best_half(cands, higher):
    """Of the better half by score, the most stable."""
    order = sorted(range(len(cands)), key=lambda i: -cands[i]["mean"] if higher else cands[i]["mean"])
    near = order[: max(1, (len(cands) + 1) // 2)]
    return most_stable(cands, near, near[0])


RULES = {
    "best score": rule_best_score,
    "overlap, stable": rule_overlap_then_stable,
    "paired 1se, stable": rule_paired_then_stable,
    "better half, stable": rule_stable_among_best_half,
}


def fixed_scores(path):
    with open(path) as f:
        report = json.load(f)
    scores = {}
    for run in report["runs"]:
        scores[(run["method"], run["k"], run["run"])] = run["score"]
    # The fixed methods only: a report may hold auto's own rows too.
    means = {m["method"]: m["over_k"]["mean"] for m in report["methods"] if m["method"] != "auto"}
    return scores, means, report["higher_is_better"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("study")
    parser.add_argument("--fixed", default=os.path.join(ROOT, "bench/quality/results/merged"))
    parser.add_argument("--sklearn",
                        default=os.path.join(ROOT, "bench/quality/results/sklearn-rankings.json"))
    parser.add_argument("--datasets")
    parser.add_argument("--subsets", help="name=m1+m2,... (default: the six of the study)")
    args = parser.parse_args()
    subsets = DEFAULT_SUBSETS
    if args.subsets:
        subsets = {}
        for item in args.subsets.split(","):
            name, methods = item.split("=")
            subsets[name] = methods.split("+")
    with open(args.sklearn) as f:
        sklearn = json.load(f)["datasets"]
    names = (args.datasets.split(",") if args.datasets else
             sorted(n[:-5] for n in os.listdir(args.study) if n.endswith(".json")))
    table = {}
    for name in names:
        with open(os.path.join(args.study, name + ".json")) as f:
            study = json.load(f)
        scores, means, higher = fixed_scores(os.path.join(args.fixed, name + ".json"))
        fixed_best = max(means.items(), key=lambda kv: kv[1] if higher else -kv[1])
        sk = sklearn.get(name, {}).get("methods", {})
        sk_best = max((v["mean"] for v in sk.values()), default=float("nan"),
                      key=lambda v: v if higher else -v)
        for (subset, members), (rule, choose) in itertools.product(subsets.items(),
                                                                   RULES.items()):
            got, picks = [], {}
            for run in study["runs"]:
                cands = [c for c in run["automatic"]["candidates"] if c["method"] in members]
                cands = [dict(c, stability=c["stability"] if c["stability"] is not None
                              else float("nan")) for c in cands]
                # The validation metric (accuracy, or MAE for real targets)
                # may point the other way from the reported one (F1).
                validation_higher = run["automatic"]["metric"] != "MAE"
                method = cands[choose(cands, validation_higher)]["method"]
                picks[method] = picks.get(method, 0) + 1
                got.append(scores[(method, run["k"], run["run"])])
            table[(subset, rule, name)] = (sum(got) / len(got), picks)
        table[("fixed", "best", name)] = (fixed_best[1], {fixed_best[0]: 0})
        table[("sklearn", "best", name)] = (sk_best, {})
    print("dataset".ljust(50) + "".join(n[:9].rjust(10) for n in names))
    for key in [("fixed", "best"), ("sklearn", "best")]:
        print(f"{key[0] + ' ' + key[1]:50s}" + "".join(
            f"{table[key + (n,)][0]:10.2f}" for n in names))
    for subset, rule in itertools.product(subsets, RULES):
        row = f"{subset + ' | ' + rule:50s}"
        for n in names:
            mean = table[(subset, rule, n)][0]
            gap = mean - table[("fixed", "best", n)][0]
            row += f"{mean:7.2f}{'*' if abs(gap) <= 0.5 or gap > 0 else ' '}  "
        print(row)
    print("\n* within 0.5 of the best fixed method (or above it).\n")
    print(f"{'over the datasets':50s}{'within 0.5':>12s}{'>= sklearn':>12s}{'shortfall':>12s}")
    for subset, rule in itertools.product(subsets, RULES):
        within = at_least = 0
        shortfall = 0.0
        for n in names:
            mean = table[(subset, rule, n)][0]
            best = table[("fixed", "best", n)][0]
            sk_best = table[("sklearn", "best", n)][0]
            within += mean >= best - 0.5
            at_least += not mean < sk_best  # a missing scikit-learn figure counts
            shortfall += max(0.0, best - mean)
        print(f"{subset + ' | ' + rule:50s}{within:12d}{at_least:12d}{shortfall:12.2f}")
    print("\nPicks per dataset:")
    for subset, rule in itertools.product(subsets, RULES):
        picks = "; ".join(f"{n}: " + ", ".join(f"{m} {c}" for m, c in sorted(
            table[(subset, rule, n)][1].items())) for n in names)
        print(f"  {subset} | {rule}: {picks}")


if __name__ == "__main__":
    sys.exit(main())
