"""X is read where it lies when it has the library's layout (C-contiguous
float32): fit then costs no memory for X, other layouts cost one float32
copy, and every layout gives the same selection."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import topkfs
from conftest import FAST_NEURAL, planted_classes, planted_regression, requires_neural

# Fits one X in a fresh interpreter (ru_maxrss is a high-water mark, so each
# layout needs its own process) and prints how much the peak RSS grew during
# fit. X is generated directly in its layout: no earlier peak hides the fit's.
# dnn-top reads minibatches straight from the matrix, so its own memory is
# small next to X.
_FIT_IN_SUBPROCESS = textwrap.dedent(
    """
    import json, resource, sys
    import numpy as np
    import topkfs

    megabytes, layout = float(sys.argv[1]), sys.argv[2]
    m = 200
    n = int(megabytes * 1e6 / 4 / m)
    rng = np.random.default_rng(0)
    if layout == "float64":
        X = rng.random((n, m))
    elif layout == "fortran":
        X = rng.random((m, n), dtype=np.float32).T
    else:
        X = rng.random((n, m), dtype=np.float32)
    y = (X[:, 3] > 0.5).astype(np.int64)
    options = dict(epochs=1, min_steps=0, hidden=[4], batch=2048, threads=1, seed=0, validation=0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    topkfs.TopKSelector("dnn-top", k=5, options=options).fit(X, y)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"grown_mb": (after - before) * 1024 / 1e6}))  # ru_maxrss is in KiB
    """
)

_X_MEGABYTES = 256.0


def _peak_growth_mb(layout):
    done = subprocess.run(
        [sys.executable, "-c", _FIT_IN_SUBPROCESS, str(_X_MEGABYTES), layout],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])["grown_mb"]


@requires_neural
def test_c_contiguous_float32_is_not_copied_other_layouts_once():
    borrowed = _peak_growth_mb("float32")
    assert borrowed < 0.25 * _X_MEGABYTES, f"fit grew the peak RSS by {borrowed:.0f} MB"
    for layout in ("float64", "fortran"):
        copied = _peak_growth_mb(layout)
        # One float32 copy of X, not none and not two. The peak's growth has
        # come out under the copy's size (229 MB for the 256 MB copy, in one
        # whole-suite run of five), so the lower bound only tells one copy
        # from none; the upper one tells it from two.
        assert 0.75 * _X_MEGABYTES < copied - borrowed < 1.25 * _X_MEGABYTES, (
            f"{layout}: fit grew the peak RSS by {copied:.0f} MB, {borrowed:.0f} MB for float32"
        )


def _layouts(X32):
    """The same values in the borrowed layout and in every converted one."""
    read_only = X32.copy()
    read_only.flags.writeable = False
    wide = np.zeros((X32.shape[0], 2 * X32.shape[1]), dtype=np.float32)
    wide[:, ::2] = X32
    return {
        "float32 C": X32,
        "float32 read-only": read_only,
        "float64": X32.astype(np.float64),
        "float32 Fortran": np.asfortranarray(X32),
        "float32 strided": wide[:, ::2],
        "float32 big-endian": X32.astype(">f4"),
        "float32 C, offset view": np.ascontiguousarray(np.vstack([X32[:1], X32]))[1:],
    }


def _selection(selector):
    return selector.selected_.tolist(), selector.scores_.tolist(), selector.ranking_.tolist()


@pytest.mark.parametrize(
    "method, options, data",
    [
        ("lasso-top", {}, planted_regression()),
        pytest.param("dnn-top", FAST_NEURAL, planted_classes(), marks=requires_neural),
    ],
)
def test_every_layout_gives_the_same_selection(method, options, data):
    X32, y = data
    reference = None
    for name, X in _layouts(X32).items():
        assert np.array_equal(X, X32)
        before = X.copy()
        refcount = sys.getrefcount(X)
        got = _selection(topkfs.TopKSelector(method, k=3, options=options).fit(X, y))
        if reference is None:
            reference = got
        assert got == reference, name
        assert np.array_equal(X, before), f"{name}: fit changed X"
        # The library let go of X (the borrowed buffer's owner was released).
        assert sys.getrefcount(X) == refcount, name

