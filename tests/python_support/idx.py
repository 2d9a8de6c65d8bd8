"""MNIST-style gzip IDX files read with numpy alone.

The reference scripts of the tests (tests/neural/score_extra_trees.py,
tests/trees/sklearn_forest.py) read the data here, independently of topkfs's
IDX reader, so that their scores do not depend on the code under test. They
are run by path, so they put this folder on sys.path themselves.
"""
import gzip
import os
import struct

import numpy as np


def read_idx(path):
    """The unsigned-byte array of a gzip IDX file, one row per item when it has more than one axis."""
    with gzip.open(path, "rb") as stream:
        data = stream.read()
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise SystemExit(f"{path}: not an unsigned-byte IDX file")
    dims = struct.unpack(">" + "I" * ndim, data[4 : 4 + 4 * ndim])
    values = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if values.size != int(np.prod(dims)):
        raise SystemExit(f"{path}: header claims {dims}, file holds {values.size} values")
    return values.reshape(dims[0], -1) if ndim > 1 else values


def read_idx_split(folder, prefix):
    """(images, labels) of the split `prefix` ("train" or "t10k") in `folder`, as uint8."""
    images = read_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte.gz"))
    return images, labels
