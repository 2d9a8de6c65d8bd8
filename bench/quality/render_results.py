#!/usr/bin/env python3
"""Writes docs/results.md from the evaluation reports of bench/quality/reproduce.

Usage: render_results.py RESULTS_DIR OUTPUT_MD

RESULTS_DIR holds <dataset>.json (reports of `topkfs evaluate --output`) and
<dataset>.time (`/usr/bin/time -v` of that run). The commentary that says
where ours fall short and why is kept by hand in RESULTS_DIR/commentary.md and
copied in.
"""
import datetime
import json
import os
import platform
import sys

# The paper's figures (Wu & Cheng; docs/method.md §3).
PAPER_ACCURACY = {  # Table 4, mean over k = 10..50, %
    "mnist": {"dfs": 85.0, "random-forest": 84.4, "stg": 82.4, "fir": 73.9, "inffs": 16.9, "dnn-top": 89.4},
    "fashion-mnist": {"dfs": 77.0, "random-forest": 76.6, "stg": 76.9, "fir": 67.9, "inffs": 29.0, "dnn-top": 80.9},
    "usps": {"dfs": 93.6, "random-forest": 83.2, "stg": 91.6, "fir": 81.6, "inffs": 7.5, "dnn-top": 94.0},
    "coil20": {"dfs": 99.3, "random-forest": 94.6, "stg": 95.4, "fir": 91.5, "inffs": 40.8, "dnn-top": 99.3},
    "allaml": {"dfs": 100, "random-forest": 100, "stg": 100, "fir": 92.5, "inffs": 57.5, "dnn-top": 100},
}
PAPER_DETECTION = {  # Table 2, F1 %; CS-FS is the concrete selector
    "pyrim": {"elastic-net": 51.9, "dfs": 81.5, "random-forest": 7.4, "concrete": 74.1,
              "elastic-net-top": 51.9, "dnn-top": 88.9},
    "kin8nm": {"elastic-net": 62.5, "dfs": 75.0, "random-forest": 62.5, "concrete": 25.0,
               "elastic-net-top": 62.5, "dnn-top": 75.0},
    "cpu_act": {"elastic-net": 47.6, "dfs": 47.6, "random-forest": 9.5, "concrete": 47.6,
                "elastic-net-top": 47.6, "dnn-top": 81.0},
    "ailerons": {"elastic-net": 62.5, "dfs": 27.5, "random-forest": 10.0, "concrete": 42.5,
                 "elastic-net-top": 82.5, "dnn-top": 45.0},
}
# The stability runs (bench/quality/reproduce): report name -> what changes between
# its runs.
STABILITY = {
    "usps-stability": "split (seed fixed)",
    "usps-stability-seed": "split and seed",
}
NAMES = {**{name: "USPS (stability)" for name in STABILITY}, "mnist": "MNIST", "fashion-mnist": "Fashion-MNIST", "usps": "USPS", "coil20": "COIL20",
         "allaml": "ALLAML", "pyrim": "Pyrimidines", "kin8nm": "Kinematics (kin8nm)",
         "cpu_act": "CompAct (cpu_act)", "ailerons": "Ailerons"}
ORDER = ["dnn-top", "dfs", "random-forest", "stg", "concrete", "fir", "inffs",
         "elastic-net-top", "elastic-net"]
# The input scaling of each method's default on tabular data, for reports
# written before `topkfs evaluate` recorded it (bench/quality/reproduce runs every
# method with its defaults): the neural methods' auto is standard there, the
# linear models standardise as glmnet; Inf-FS reads the columns as given (its
# spread term is their standard deviation); the trees are unaffected by scale.
DEFAULT_SCALING = {"dnn-top": "standard", "dfs": "standard", "stg": "standard",
                   "concrete": "standard", "fir": "standard", "inffs": "none",
                   "elastic-net-top": "standard", "elastic-net": "standard"}


def load_reports(folder):
    """The merged report of each dataset (bench/quality/reproduce writes merged/<name>.json)."""
    reports = {}
    for name in NAMES:
        path = os.path.join(folder, "merged", name + ".json")
        if os.path.exists(path):
            with open(path) as f:
                reports[name] = json.load(f)
    return reports


def seconds(clock):
    """'1:02:03' or '2:03.45' (time -v's wall clock) in seconds."""
    total = 0.0
    for part in clock.split(":"):
        total = total * 60 + float(part)
    return total


def time_of(folder, name):
    """Wall time (summed over the parts of a dataset's results) and the largest
    peak memory of the evaluate runs, from their `time -v` files."""
    wall, rss = None, None
    for file in sorted(os.listdir(folder)):
        if not (file == name + ".time" or (file.startswith(name + ".") and file.endswith(".time"))):
            continue
        for line in open(os.path.join(folder, file)):
            line = line.strip()
            if line.startswith("Elapsed (wall clock) time"):
                wall = (wall or 0.0) + seconds(line.rsplit(": ", 1)[1])
            elif line.startswith("Maximum resident set size"):
                rss = max(rss or 0.0, int(line.split(": ", 1)[1]) / 1024)
    return wall, rss


def methods_of(report):
    present = [m["method"] for m in report["methods"]]
    return sorted(present, key=lambda m: ORDER.index(m) if m in ORDER else len(ORDER))


def summary(report, method):
    return next(m for m in report["methods"] if m["method"] == method)


def cell(s):
    if s["mean"] is None:
        return "-"
    return f"{s['mean']:.1f}" if s["count"] <= 1 else f"{s['mean']:.1f} ± {s['std']:.1f}"


def paper(value):
    return "-" if value is None else f"{value:g}"


def table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def scaling_of(report, method):
    """The scaling a method's fits used in a report ("-" for a method without one)."""
    return summary(report, method).get("scaling") or DEFAULT_SCALING.get(method, "-")


def scaling_row(reports, names, methods):
    """Per method: the scaling its rows used, with the datasets that differ."""
    row = ["input scaling"]
    for m in methods:
        used = {name: scaling_of(reports[name], m) for name in names if m in methods_of(reports[name])}
        common = max(set(used.values()), key=list(used.values()).count) if used else "-"
        others = [f"{NAMES[n]}: {v}" for n, v in used.items() if v != common]
        row.append(common + (f" ({'; '.join(others)})" if others else ""))
    return row


def overview(reports, names, paper_table, what, with_scaling=False):
    methods = []
    for name in names:
        for m in methods_of(reports[name]):
            if m not in methods:
                methods.append(m)
    methods.sort(key=lambda m: ORDER.index(m) if m in ORDER else len(ORDER))
    rows = []
    for name in names:
        report = reports[name]
        row = [NAMES[name]]
        for m in methods:
            ours = cell(summary(report, m)["over_k"]) if m in methods_of(report) else "n/a"
            row.append(f"{ours} ({paper(paper_table.get(name, {}).get(m))})")
        rows.append(row)
    if with_scaling:
        rows.append(scaling_row(reports, names, methods))
    return (f"{what}: ours (the paper's in brackets; - where the paper has none, n/a where "
            f"the method does not apply).\n\n" + table(rows, ["dataset"] + methods))


def load_sklearn_rankings(folder):
    """bench/quality/sklearn_rankings.py's report (RESULTS_DIR/sklearn-rankings.json), or None."""
    path = os.path.join(folder, "sklearn-rankings.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["datasets"]


def sklearn_note(sklearn):
    """Where the scikit-learn column of the auto table comes from."""
    commits = sorted({entry["commit"] for entry in sklearn.values()})
    versions = sorted({entry["sklearn"] for entry in sklearn.values()})
    return ("\"best scikit-learn ranking\" is the best of three scikit-learn rankings under the "
            "same protocol and k (`bench/quality/sklearn_rankings.py`, "
            "`bench/quality/results/sklearn-rankings.json`): mutual information, random-forest "
            "importance (100 trees) and L1 (L1-logistic, C = 0.05, on classes; the order in which "
            "columns enter the Lasso path on regression), on standardised columns where the "
            "ranking depends on scale. On MNIST and Fashion-MNIST their own split (mutual "
            "information and L1 learn from a stratified 10000 of its training rows); on USPS, "
            "COIL20 and ALLAML its 3 random stratified 80/20 "
            "splits are scikit-learn's (`train_test_split`), so its rows differ from topkfs's "
            "but the protocol is the same; on the detection data it draws the noise columns "
            f"with numpy, 10 noise seeds (scikit-learn {', '.join(versions)}, "
            f"commit {', '.join(commits)}).")


def auto_section(reports, names, sklearn=None):
    """--method auto beside the best fixed method of each dataset it ran on,
    and beside the best scikit-learn ranking where sklearn (the report of
    bench/quality/sklearn_rankings.py) has the dataset."""
    rows = []
    for name in names:
        report = reports[name]
        if "auto" not in methods_of(report):
            continue
        higher = report.get("higher_is_better", True)
        fixed = [m for m in methods_of(report) if m != "auto"]
        pick = max if higher else min
        best = pick(fixed, key=lambda m: summary(report, m)["over_k"]["mean"])
        ours = summary(report, "auto")["over_k"]["mean"]
        theirs = summary(report, best)["over_k"]["mean"]
        chosen = {}
        for run in report["runs"]:
            if run["method"] == "auto":
                chosen[run["chosen_method"]] = chosen.get(run["chosen_method"], 0) + 1
        total = sum(chosen.values())
        row = [NAMES[name], report["metric"], f"{ours:.1f}", f"{best} {theirs:.1f}",
               f"{ours - theirs:+.1f}"]
        if sklearn is not None:
            entry = sklearn.get(name)
            if entry is None:
                row += ["-", "-"]
            else:
                scores = {m: v["mean"] for m, v in entry["methods"].items()}
                top = pick(scores, key=scores.get)
                row += [f"{top} {scores[top]:.1f}", f"{ours - scores[top]:+.1f}"]
        rows.append(row + [", ".join(f"{m} {c}/{total}" for m, c in
                                     sorted(chosen.items(), key=lambda item: -item[1]))])
    if not rows:
        return None
    header = ["dataset", "metric", "auto", "best fixed method", "auto - best"]
    if sklearn is not None:
        header += ["best scikit-learn ranking", "auto - best sklearn"]
    return "\n".join([
        "## Auto against the fixed methods", "",
        "`--method auto` in `evaluate`: in every run and for each k, the method chosen among "
        "dnn-top, elastic-net-top, random-forest and elastic-net by validation fits on that "
        "run's training rows alone (docs/algorithms.md, \"Choosing k and the method\"), under "
        "the same protocol, splits and k as the fixed methods above (mean over k and runs). "
        "\"chosen\" counts the method it took over the runs and k. elastic-net became a "
        "candidate on 2026-12-07: the USPS, COIL20, Pyrimidines and Kinematics rows are of "
        "runs before it, where the candidates' recorded folds show the same choice with it in "
        "every run (bench/quality/results/2026-12-07-auto-candidates.md)."
        + (" " + sklearn_note(sklearn) if sklearn is not None else ""), "",
        table(rows, header + ["chosen"])])


def stability_section(folder, reports):
    first = reports["usps-stability"]
    out = ["## Stability", "",
           f"Selections on {first['seeds']} random stratified 80/20 splits of USPS; mean "
           "pairwise Jaccard index and Kuncheva index (1: the same features every time; "
           "about 0: no more overlap than chance) of the selected sets, per k. The protocol's "
           "default changes the split alone (each method keeps its seed, `--seed 0`); the "
           "second variation changes the method's seed with the split (`--vary-model-seed`).", ""]
    rows = []
    for name, varies in STABILITY.items():
        report = reports.get(name)
        if report is None:
            continue
        for m in methods_of(report):
            s = summary(report, m)
            cells = [f"J {e['jaccard']:.3f} / K {e['kuncheva']:.3f}" for e in s["per_k"]]
            rows.append([m, varies] + cells + [f"{s['fit_seconds']:.1f}"])
    out.append(table(rows, ["method", "what changes"] + [f"k = {k}" for k in first["ks"]]
                     + ["selection time, s"]))
    for m in methods_of(first):
        picture = f"img/stability-usps-{m}.png"
        if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(folder)), "..", "..", "docs", picture)):
            out += ["", f"![{m}: how often each pixel was selected at k = {max(first['ks'])}, "
                    f"split alone]({picture})"]
    return "\n".join(out)


def remeasured(report):
    """"; M1, M2 at commit C, DATE" for the methods a later run replaced."""
    at = {}
    for method, when in report.get("method_commits", {}).items():
        at.setdefault(when, []).append(method)
    return "".join(f"; {', '.join(methods)} at commit {when}" for when, methods in at.items())


def mixed_tables_section(folder):
    """bench/quality/mixed_tables.py's report (RESULTS_DIR/mixed_tables.json), when there is one."""
    path = os.path.join(folder, "mixed_tables.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        report = json.load(f)
    ks = ", ".join(str(k) for k in report["ks"])
    out = ["## Mixed-type tables", "",
           "The two real tables of the shared data as given (text codes, empty cells; "
           "`select FILE --target Class`, encoded on the training rows: "
           "docs/data-preparation.md, \"Mixed-type tables\") and three scikit-learn rankings "
           "on the same training rows (mutual information, random-forest importance and "
           "L1-logistic on SimpleImputer + OneHotEncoder data, each column's score summed over "
           "its encoded pieces). ExtraTrees (50 trees) on the one-hot, imputed selected columns, "
           f"accuracy % on the test rows, mean over k = {ks} and {report['splits']} random "
           "stratified 80/20 splits (`bench/quality/mixed_tables.py`; every method with its defaults; "
           f"commit {report.get('commit', '?')}, {report.get('date', '?')}"
           f"{remeasured(report)}).",
           ""]
    rows = []
    for name, entry in report["tables"].items():
        methods = entry["methods"]
        ours = {m: v for m, v in methods.items() if not m.startswith("sklearn-")}
        theirs = {m: v for m, v in methods.items() if m.startswith("sklearn-")}
        best_ours = max(ours, key=lambda m: ours[m]["mean"])
        best_theirs = max(theirs, key=lambda m: theirs[m]["mean"])
        rows.append([name, f"{best_ours} {ours[best_ours]['mean']:.1f}",
                     f"{best_theirs} {theirs[best_theirs]['mean']:.1f}",
                     f"{entry['all_columns']:.1f}"])
    out.append(table(rows, ["table", "best topkfs method", "best scikit-learn ranking",
                            "all columns"]))
    for name, entry in report["tables"].items():
        out += ["", f"{name}, every method (accuracy %, mean over the splits):", ""]
        per = [[m, f"{v['mean']:.1f}"] + [f"{v['per_k'][str(k)]:.1f}" for k in report["ks"]]
               for m, v in entry["methods"].items()]
        out.append(table(per, ["method", "mean"] + [f"k = {k}" for k in report["ks"]]))
    return "\n".join(out)


def details(folder, name, report):
    out = [f"### {NAMES[name]}", "", f"{report['metric']}; {report['split']}; "
           f"{report['seeds']} run(s), seeds {0}..{report['seeds'] - 1}."]
    header = ["k"] + methods_of(report)
    rows = []
    for i, k in enumerate(report["ks"]):
        rows.append([k] + [cell(summary(report, m)["per_k"][i]) for m in methods_of(report)])
    rows.append(["all k"] + [cell(summary(report, m)["over_k"]) for m in methods_of(report)])
    rows.append(["selection time, s"] + [f"{summary(report, m)['fit_seconds']:.1f}"
                                         for m in methods_of(report)])
    out += ["", table(rows, header)]
    wall, rss = time_of(folder, name)
    if wall:
        out += ["", f"Whole run: {wall / 60:.1f} min wall time, peak memory {rss:.0f} MB "
                    f"(`/usr/bin/time -v`). Command: `{command_of(name, report)}`"]
    picture = f"img/results-{name}.png"
    if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(folder)), "..", "..", "docs", picture)):
        out += ["", f"![{NAMES[name]}: score against k]({picture})"]
    for note in report.get("notes", []):
        out += ["", f"Note: {note}"]
    return "\n".join(out)


def command_of(name, report):
    return (f"topkfs evaluate DATA --method {','.join(methods_of(report))} "
            f"--protocol {report['protocol']} --k {','.join(str(k) for k in report['ks'])} "
            f"--seeds {report['seeds']}")


def machine():
    cpu = "unknown CPU"
    if os.path.exists("/proc/cpuinfo"):
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def main():
    folder, output = sys.argv[1], sys.argv[2]
    reports = load_reports(folder)
    accuracy = [n for n in PAPER_ACCURACY if n in reports]
    detection = [n for n in PAPER_DETECTION if n in reports]
    parts = ["# Results of the reproduction", "",
             "Generated by `bench/quality/reproduce` (which runs `topkfs evaluate` per dataset and "
             "then `bench/quality/render_results.py`); do not edit by hand: the commentary comes from "
             "`bench/quality/results/commentary.md`.", "",
             f"Machine: {machine()}. Rendered {datetime.date.today().isoformat()}.", ""]
    if accuracy:
        parts += ["## Downstream accuracy (Table 4)", "",
                  "ExtraTrees (50 trees) fitted on the selected columns of the training rows, "
                  "accuracy % on the test rows, mean ± standard deviation over k = 10, 20, 30, "
                  "40, 50 and the runs. MNIST and Fashion-MNIST use their own 60000/10000 "
                  "split; USPS, COIL20 and ALLAML random stratified 80/20 splits (docs/method.md "
                  "§3, \"Splits\"). Every method with its default options.", "",
                  overview(reports, accuracy, PAPER_ACCURACY, "Mean accuracy %"), ""]
    if detection:
        parts += ["## Detection F1 (Table 2)", "",
                  "As many noise columns appended as the data has, each Normal(0.1 mean, 0.01 sd) "
                  "of its column over 20 random rows; columns shuffled (seeded) so that no tie rule "
                  "favours the originals; k = number of original columns; F1 % of the selection "
                  "against the original columns, from all rows. Mean ± standard deviation over "
                  "noise seeds. The last row gives the input scaling each method's fits used "
                  "(standard: every column to mean 0 and sd 1 over the rows the method learns "
                  "from, which gives the noise columns the spread of the originals; none: the "
                  "columns as given; - : the method is unaffected by scale), with the datasets "
                  "where it differs in brackets.", "",
                  overview(reports, detection, PAPER_DETECTION, "F1 %", with_scaling=True), ""]
    automatic = auto_section(reports, accuracy + detection, load_sklearn_rankings(folder))
    if automatic:
        parts += [automatic, ""]
    if "usps-stability" in reports:
        parts += [stability_section(folder, reports), ""]
    mixed = mixed_tables_section(folder)
    if mixed:
        parts += [mixed, ""]
    commentary = os.path.join(folder, "commentary.md")
    if os.path.exists(commentary):
        parts += [open(commentary).read().strip(), ""]
    parts += ["## Per dataset", ""]
    for name in accuracy + detection:
        parts += [details(folder, name, reports[name]), ""]
    text = "\n".join(parts).rstrip() + "\n"
    tmp = output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, output)


if __name__ == "__main__":
    main()
