"""What the linear benchmarks' problem writers (linear_bench_data.py,
linear_class_bench_data.py) share: the size and seed arguments, values exact
in float32, and the CSV every side reads."""
import numpy as np


def size_arguments(parser, informative):
    """--rows, --cols, --informative and --seed, with the benchmarks' defaults."""
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--cols", type=int, default=1000)
    parser.add_argument("--informative", type=int, default=informative)
    parser.add_argument("--seed", type=int, default=0)


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
