"""Shared fixtures of the Python suite: small planted data, fast method
options, and the command-line tool of the same build.

Run from the build folder's package: PYTHONPATH=<build>/python.
"""

import contextlib
import gzip
import os
import pathlib
import signal
import struct
import threading
import time

import numpy as np
import pytest

import topkfs

# dnn-top/dfs small enough that a fit takes milliseconds; every test gives
# threads=1 so that results are reproducible and the suite does not fight
# other processes for the cores.
# min_steps 0: exactly these epochs, however few rows the test data has.
FAST_NEURAL = {"epochs": 4, "min_steps": 0, "hidden": [8], "batch": 32, "threads": 1, "seed": 0}


def has_method(name):
    return name in topkfs.methods()


requires_neural = pytest.mark.skipif(
    not has_method("dnn-top"), reason="built without libtorch (TOPKFS_WITH_TORCH=OFF)"
)


@pytest.fixture
def ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt here, and a child started meanwhile
    dies of it, however the suite was started.

    A process started with SIGINT ignored (a background job of a script,
    nohup, some CI runners) passes that on: Python then installs no
    KeyboardInterrupt handler, a SIGINT is discarded by the kernel, and the
    children it starts ignore it too. The tests of Ctrl-C set up what an
    interactive interpreter has, then put the suite's own disposition back.
    """
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can be set in the main thread only")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def ctrl_c_once_written(path, timeout=120):
    """Presses Ctrl-C (SIGINT to this process) from another thread once
    `path` exists; the body must end in KeyboardInterrupt (use with the
    ctrl_c_raises fixture)."""

    def press():
        deadline = time.monotonic() + timeout
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.002)
        os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press)
    try:
        with pytest.raises(KeyboardInterrupt):
            presser.start()
            yield
    finally:
        presser.join()


def planted_classes(n=240, m=12, informative=(2, 7), classes=3, seed=0):
    """Classes decided by a few columns; the others are noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m)).astype(np.float32)
    score = sum(X[:, j] for j in informative)
    edges = np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1])
    y = np.digitize(score, edges).astype(np.int64)
    return X, y


def planted_regression(n=200, m=10, informative=(1, 4, 8), seed=0, outputs=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m)).astype(np.float32)
    columns = []
    for out in range(outputs):
        weights = np.zeros(m)
        weights[list(informative)] = [3.0, -2.0, 1.5][: len(informative)]
        columns.append(X.astype(np.float64) @ weights * (out + 1) + 0.01 * rng.normal(size=n))
    y = np.stack(columns, axis=1)
    return X, (y[:, 0] if outputs == 1 else y)


@pytest.fixture
def classes_data():
    return planted_classes()


@pytest.fixture
def regression_data():
    return planted_regression()


def write_csv(path, X, y, header=True, target_name="label", fmt="%.5f"):
    """A CSV with the target last, as `topkfs select` reads by default."""
    names = [f"f{j}" for j in range(X.shape[1])] + [target_name]
    with open(path, "w") as out:
        if header:
            out.write(",".join(names) + "\n")
        for row, target in zip(X, y):
            out.write(",".join(fmt % v for v in row) + "," + str(target) + "\n")
    return path


@pytest.fixture
def cli():
    """The `topkfs` executable of the build the package comes from."""
    override = os.environ.get("TOPKFS_CLI")
    if override:
        return pathlib.Path(override)
    build = pathlib.Path(topkfs.__file__).resolve().parents[2]
    path = build / "apps" / "topkfs" / "topkfs"
    if not path.exists():
        pytest.skip(f"no topkfs command at {path} (set TOPKFS_CLI)")
    return path


def write_idx(path, array):
    """An IDX file (MNIST's format), gzipped when the name ends in .gz."""
    codes = {np.dtype(np.uint8): 0x08, np.dtype(">i4"): 0x0C}
    header = struct.pack(">BBBB", 0, 0, codes[array.dtype], array.ndim)
    header += b"".join(struct.pack(">I", size) for size in array.shape)
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wb") as out:
        out.write(header + array.tobytes())


def write_mnist_folder(folder, train_images, train_labels, test_images, test_labels):
    folder.mkdir(exist_ok=True)
    write_idx(folder / "train-images-idx3-ubyte.gz", train_images)
    write_idx(folder / "train-labels-idx1-ubyte.gz", train_labels)
    write_idx(folder / "t10k-images-idx3-ubyte", test_images)
    write_idx(folder / "t10k-labels-idx1-ubyte", test_labels)
    return folder
