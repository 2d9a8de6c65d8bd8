"""What the linear benchmarks' problem writers (linear_bench_data.py,
linear_class_bench_data.py) share: the size and seed arguments, values exact
in float32, and the CSV every side reads."""
import argparse

import numpy as np


def parse_arguments(doc, output, **counts):
    """The writer's arguments: `output` (where to write), --rows, --cols,
    --informative (20) and --seed, with the benchmarks' defaults, and one
    integer option per entry of `counts` (name: default); with the seeded
    generator."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(output)
    counts = {"rows": 10000, "cols": 1000, "informative": 20, **counts, "seed": 0}
    for name, default in counts.items():
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    return args, np.random.default_rng(args.seed)


def exact_in_float32(x):
    """x rounded to multiples of 1/1024: topkfs's float32 features and numpy's
    float64 ones are then the same numbers."""
    return np.round(x * 1024) / 1024


def write_csv(path, x, last, last_name, last_format):
    """Columns x0.. and one last column (the target or the label)."""
    header = ",".join([f"x{j}" for j in range(x.shape[1])] + [last_name])
    np.savetxt(path, np.column_stack([x, last]), delimiter=",", header=header, comments="",
               fmt=["%.12g"] * x.shape[1] + [last_format])
    print(f"wrote {path}: {x.shape[0]} rows x {x.shape[1]} columns + {last_name}")
