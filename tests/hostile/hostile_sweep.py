#!/usr/bin/env python3
"""A hostile sweep of the topkfs command (docs/bad-input.md, "The hostile
sweep"): it writes damaged and adversarial inputs (truncated, bit-flipped,
with NUL and Latin-1 bytes, huge numbers, odd line ends, mangled selection
and report JSON, hostile option values) from a fixed seed, runs the command
on each, and asserts what every refusal must look like:

* the process exits with 0, 1 or 2, never by a signal (no crash, no abort);
* on failure, stderr is "topkfs: error: ..." on one line, with no text of a
  library (nlohmann's "[json.exception", libtorch's "PytorchStreamReader",
  "terminate called") and no NUL byte, and stdout is empty;
* an output named on the command line exists only after a success, and no
  temporary (".NAME.tmp*") is left in the output folder.

Usage: hostile_sweep.py TOPKFS [--cases N] [--seed S] [--keep DIR]
(--cases defaults to $TOPKFS_HOSTILE_CASES, else 60.)
Exits 1 and lists the failing cases when any case breaks a rule."""

import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

LIBRARY_TEXT = ("[json.exception", "PytorchStreamReader", "terminate called", "c10::Error")


def base_files(folder):
    """Small valid inputs of each format, the seeds of the mutations."""
    rng = random.Random(0)
    rows = []
    for i in range(30):
        rows.append(f"{rng.random():.3f},{rng.choice(['red', 'green', ''])},{i % 5},{i % 2}")
    csv = "a,colour,b,y\n" + "\n".join(rows) + "\n"
    svm = "".join(f"{i % 2} 1:{rng.random():.2f} 3:{i}\n" for i in range(20))
    x = struct.pack("<60f", *[rng.random() for _ in range(60)])
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (20, 3), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + x
    idx = b"\x00\x00\x08\x03" + struct.pack(">III", 4, 2, 2) + bytes(range(16))
    files = {"t.csv": csv.encode(), "t.svm": svm.encode(), "x.npy": npy, "images-idx3-ubyte": idx}
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as out:
            out.write(data)
    return files


def mutate_bytes(data, rng):
    """One damage of the kinds files suffer (or hostile users make)."""
    kind = rng.randrange(9)
    at = rng.randrange(max(1, len(data)))
    if kind == 0:
        return data[:at], "truncated"
    if kind == 1:
        flipped = bytearray(data)
        flipped[at] ^= 1 << rng.randrange(8)
        return bytes(flipped), "bit flip"
    if kind == 2:
        return data[:at] + b"\x00" + data[at:], "NUL"
    if kind == 3:
        return data[:at] + b"\xe9\xff" + data[at:], "Latin-1 bytes"
    if kind == 4:
        return data.replace(b"\n", b"\r"), "CR line ends"
    if kind == 5:
        return data[:at] + rng.choice([b"1e39", b"-1e400", b"nan", b"18446744073709551616"]) + \
            data[at:], "huge number"
    if kind == 6:
        return b"\xef\xbb\xbf# comment\n" + data, "BOM and comment"
    if kind == 7:
        return data + data[: rng.randrange(1, 60)], "trailing piece"
    return b"", "empty"


def mutate_json(document, rng):
    """A selection or report JSON with one field damaged."""
    doc = json.loads(json.dumps(document))
    key = rng.choice(sorted(doc))
    value = rng.choice([None, -1, 0, 2**70, 1e300, "x", [], {}, [[[[]]]], "é"])
    if rng.random() < 0.3:
        del doc[key]
        return json.dumps(doc), f"without '{key}'"
    doc[key] = value
    return json.dumps(doc, ensure_ascii=False), f"'{key}' = {value!r}"


HOSTILE_OPTIONS = [
    "--k ''", "--k 0", "--k -1", "--k 0x2", "--k 1e9", "--k 101%", "--k abc", "--k 1,2",
    "--target 99", "--target ''", "--target name:", "--target index:x", "--nan sometimes",
    "--threads 100000", "--seed -1", "--seed 18446744073709551616", "--delimiter '\"'",
    "--max-levels 0", "--na-values ''", "--categorical nope", "--numeric a,a", "--lambda2 nan",
    "--epochs -3", "--hidden 4,,4", "--rank -1", "--world-size 0", "--nproc 0", "--timeout 0",
    "--class-weight nothing.csv", "--sample-weight zz", "--groups /nonexistent",
]


class Sweep:
    def __init__(self, topkfs, folder):
        self.topkfs = topkfs
        self.folder = folder
        self.out = os.path.join(folder, "out")
        os.makedirs(self.out)
        self.failures = []
        self.runs = 0

    def run(self, args, what, output=None):
        """Runs `topkfs ARGS` (a shell string) and checks the rules."""
        self.runs += 1
        if output and os.path.exists(output):
            os.remove(output)
        result = subprocess.run(f"{self.topkfs} {args}", shell=True, capture_output=True,
                                timeout=120, cwd=self.folder)
        err = result.stderr.decode("utf-8", "replace")
        broken = []
        if result.returncode < 0 or result.returncode not in (0, 1, 2):
            broken.append(f"exit status {result.returncode}")
        if result.returncode != 0:
            if not err.startswith("topkfs: error: "):
                broken.append("stderr does not start with 'topkfs: error: '")
            if result.stdout:
                broken.append("stdout is not empty on failure")
            if output and os.path.exists(output):
                broken.append("the output exists after a failure")
        if b"\x00" in result.stderr:
            broken.append("a NUL byte on stderr")
        for text in LIBRARY_TEXT:
            if text in err:
                broken.append(f"library text '{text}' on stderr")
        leftovers = [name for name in os.listdir(self.out) if ".tmp" in name]
        if leftovers:
            broken.append(f"temporaries left: {leftovers}")
            for name in leftovers:
                os.remove(os.path.join(self.out, name))
        if broken:
            self.failures.append(f"{what}: topkfs {args}\n    " + "; ".join(broken) +
                                 f"\n    stderr: {err.strip()[:300]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("topkfs")
    parser.add_argument(
        "--cases", type=int, default=int(os.environ.get("TOPKFS_HOSTILE_CASES", "60"))
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="keep the inputs in this folder")
    options = parser.parse_args()
    folder = options.keep or tempfile.mkdtemp(prefix="topkfs-hostile-")
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(options.seed)
    files = base_files(folder)
    sweep = Sweep(os.path.abspath(options.topkfs), folder)
    result = os.path.join(sweep.out, "r.json")
    sweep.run(f"select t.csv --k 2 -q --method lasso-top -o {result}", "base selection", result)
    sweep.run(f"evaluate t.csv --k 1,2 --seeds 2 -q --method lasso-top -o out/e.json",
              "base report")
    selection = json.load(open(result))
    report = json.load(open(os.path.join(sweep.out, "e.json")))
    names = sorted(files)
    for case in range(options.cases):
        out = os.path.join(sweep.out, f"c{case}.json")
        kind = case % 4
        if kind < 2:  # a damaged data file, read and selected from
            source = names[rng.randrange(len(names))]
            data, what = mutate_bytes(files[source], rng)
            name = f"c{case}-{source}"
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
            command = "info" if kind == 0 else f"select --k 1 -q --method lasso-top -o {out}"
            verb, rest = (command.split(" ", 1) + [""])[:2]
            sweep.run(f"{verb} {name} {rest}", f"{source}, {what}", out if kind else None)
        elif kind == 2:  # a damaged selection or report
            document, verb = (selection, "transform") if rng.random() < 0.5 else (report, "report")
            text, what = mutate_json(document, rng)
            name = f"c{case}.json"
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                handle.write(text)
            target = os.path.join(sweep.out, f"c{case}.csv")
            if verb == "transform":
                sweep.run(f"transform t.csv --selection {name} -o {target}", what, target)
            else:
                sweep.run(f"report {name} -o {out}", what, out)
        else:  # a hostile option value
            option = HOSTILE_OPTIONS[rng.randrange(len(HOSTILE_OPTIONS))]
            k = "" if option.startswith("--k ") else "--k 1"
            sweep.run(f"select t.csv --method lasso-top -q {k} {option} -o {out}", option, out)
    if not options.keep:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"hostile sweep: {sweep.runs} runs, {len(sweep.failures)} broke a rule")
    for failure in sweep.failures:
        print(failure)
    return 1 if sweep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
