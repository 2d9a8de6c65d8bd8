#!/usr/bin/env python3
"""What reading a gzip-compressed HDF5 dataset costs against the same values
stored plainly: MNIST's training images (60000 x 784 float32, 188 MB) as
`.npy`, as an HDF5 dataset without compression, and as one in gzip with
shuffle (h5py's default chunks), each read by `topkfs info` in a fresh
process, rounds interleaved; h5py reading the gzip dataset alone is the
reference for one decompression.

The reader decodes every written chunk of a filtered dataset once before
libhdf5 reads it (a check against libhdf5's over-read of chunks that decode
short, docs/reliability.md), so the gzip file is inflated twice: the ratio
gzip / uncompressed shows that cost in one run, whatever the machine's load.

Usage: bench/io/hdf5_load.py [TOPKFS] [--data DIR] [--rounds 5] [--dir DIR]
"""
import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_process import scratch_folder


def mnist_train(data_dir):
    with gzip.open(os.path.join(data_dir, "mnist", "train-images-idx3-ubyte.gz")) as f:
        pixels = np.frombuffer(f.read()[16:], dtype=np.uint8)
    with gzip.open(os.path.join(data_dir, "mnist", "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read()[8:], dtype=np.uint8)
    return pixels.reshape(-1, 784).astype(np.float32) / 255, labels.astype(np.int32)


def write_files(folder, X, y):
    """The three stores of (X, y); returns {name: path}."""
    paths = {"npy": os.path.join(folder, "mnist.npy"),
             "hdf5": os.path.join(folder, "plain.h5"),
             "hdf5-gzip": os.path.join(folder, "gzip.h5")}
    np.save(paths["npy"], np.column_stack([X, y.astype(np.float32)]))
    with h5py.File(paths["hdf5"], "w") as f:
        f["X"], f["Y"] = X, y
    with h5py.File(paths["hdf5-gzip"], "w") as f:
        f.create_dataset("X", data=X, compression="gzip", shuffle=True)
        f["Y"] = y
    return paths


def seconds(command):
    began = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def h5py_read_seconds(path):
    began = time.perf_counter()
    with h5py.File(path, "r") as f:
        f["X"][...]
    return time.perf_counter() - began


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("topkfs", nargs="?",
                        default=os.path.join(here, "..", "..", "build", "apps", "topkfs", "topkfs"))
    parser.add_argument("--data", default=os.environ.get(
        "TOPKFS_DATA_DIR", os.path.join(here, "..", "..", "..", "shared", "data")))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", default="/tmp")
    args = parser.parse_args()
    X, y = mnist_train(args.data)
    with scratch_folder(args.dir, "hdf5_load") as folder:
        paths = write_files(folder, X, y)
        times = {name: [] for name in list(paths) + ["h5py gzip"]}
        for _ in range(args.rounds):
            for name, path in paths.items():
                times[name].append(seconds([args.topkfs, "info", path]))
            times["h5py gzip"].append(h5py_read_seconds(paths["hdf5-gzip"]))
        median = {name: statistics.median(values) for name, values in times.items()}
        for name, path in paths.items():
            print(f"{name:10s} {os.path.getsize(path) / 1e6:7.1f} MB on disk   "
                  f"topkfs info {median[name]:.3f} s (median of {args.rounds})")
        print(f"h5py reading the gzip X alone: {median['h5py gzip']:.3f} s")
        print(f"ratio hdf5-gzip / hdf5: {median['hdf5-gzip'] / median['hdf5']:.2f}")
        print(f"ratio hdf5-gzip / npy:  {median['hdf5-gzip'] / median['npy']:.2f}")
        print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
