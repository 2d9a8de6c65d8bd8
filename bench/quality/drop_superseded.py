#!/usr/bin/env python3
"""Removes the methods of a new part of a dataset's results from its other
parts, so that each method's figures come from its latest run whatever the
order the parts are merged in (bench/quality/reproduce calls it after each
--methods run). A part left without methods is deleted with its .time file.

Usage: drop_superseded.py RESULTS NAME PART METHOD[,METHOD...]
  RESULTS  bench/quality/results; NAME the dataset (allaml); PART the new
  part's file name without .json (allaml.dnn-top+auto); the methods it ran.
"""
import glob
import json
import os
import sys


def main():
    results, name, part, methods = sys.argv[1:5]
    fresh = set(methods.split(","))
    candidates = [os.path.join(results, name + ".json")]
    candidates += sorted(glob.glob(os.path.join(results, glob.escape(name) + ".*.json")))
    for path in candidates:
        if not os.path.isfile(path) or os.path.basename(path) == part + ".json":
            continue
        with open(path) as f:
            report = json.load(f)
        kept = [m for m in report["methods"] if m["method"] not in fresh]
        if len(kept) == len(report["methods"]):
            continue
        if not kept:
            os.remove(path)
            time_file = path[:-len(".json")] + ".time"
            if os.path.exists(time_file):
                os.remove(time_file)
            print(f"   superseded: {os.path.basename(path)} (removed)")
            continue
        report["methods"] = kept
        report["runs"] = [r for r in report["runs"] if r["method"] not in fresh]
        with open(path + ".tmp", "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        os.replace(path + ".tmp", path)
        print(f"   superseded in {os.path.basename(path)}: {', '.join(sorted(fresh))}")


if __name__ == "__main__":
    main()
