"""Errors arrive as ValueError/OSError with the library's messages; fits run
without the GIL and stop on Ctrl-C."""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import scipy.sparse

import topkfs
from conftest import FAST_NEURAL, has_method, planted_classes, planted_regression, requires_neural


def test_option_errors_carry_the_library_messages(regression_data):
    X, y = regression_data
    with pytest.raises(ValueError, match="unknown method 'lassoo'; choose one of: .*lasso-top"):
        topkfs.TopKSelector("lassoo", k=2).fit(X, y)
    with pytest.raises(
        ValueError, match="option 'lambda1' does not apply to method lasso-top; it takes: .*max_iter"
    ):
        topkfs.TopKSelector("lasso-top", k=2, lambda1=0.1).fit(X, y)
    with pytest.raises(topkfs.OptionError, match="^max_iter takes an integer, not 'many'"):
        topkfs.TopKSelector("lasso-top", k=2, max_iter="many").fit(X, y)
    with pytest.raises(ValueError, match=r"k=11 is out of range: X has 10 feature\(s\)"):
        topkfs.TopKSelector("lasso-top", k=11).fit(X, y)
    with pytest.raises(ValueError, match="k=2.5: a fraction of the features is above 0 and below 1"):
        topkfs.TopKSelector("lasso-top", k=2.5).fit(X, y)
    with pytest.raises(ValueError, match="task takes"):
        topkfs.TopKSelector("lasso-top", k=2, task="ranking").fit(X, y)
    with pytest.raises(ValueError, match="options must be a dict"):
        topkfs.TopKSelector("lasso-top", k=2, options=["lr"]).fit(X, y)
    with pytest.raises(TypeError, match="cannot pass a dict"):
        topkfs.TopKSelector("lasso-top", k=2, max_iter={"a": 1}).fit(X, y)


@requires_neural
def test_neural_option_and_training_errors(classes_data):
    X, y = classes_data
    with pytest.raises(ValueError, match="^epochs must be at least 1, got 0"):
        topkfs.TopKSelector("dnn-top", k=2, options=dict(FAST_NEURAL, epochs=0)).fit(X, y)
    with pytest.raises(ValueError, match="dfs is dnn-top with lambda3 = 0"):
        topkfs.TopKSelector("dfs", k=2, options=dict(FAST_NEURAL, lambda3=1)).fit(X, y)
    no_shape = "^body='cnn' needs an image shape: X carries none; give image_shape='HxW'"
    with pytest.raises(ValueError, match=no_shape):
        topkfs.TopKSelector("dnn-top", k=2, options=dict(FAST_NEURAL, body="cnn")).fit(X, y)
    diverging = dict(FAST_NEURAL, lr=1e30, clip=0)
    with pytest.raises(topkfs.TrainingError, match="training diverged") as caught:
        topkfs.TopKSelector("dnn-top", k=2, options=diverging).fit(X * 1e18, y)
    assert isinstance(caught.value, ValueError)


def test_data_errors(regression_data):
    X, y = regression_data
    selector = topkfs.TopKSelector("lasso-top", k=2)
    bad = X.copy()
    bad[3, 2] = np.inf  # NaN is a missing value (imputed); infinity is refused
    with pytest.raises(ValueError, match="infinity|inf"):
        selector.fit(bad, y)
    with pytest.raises(ValueError, match="2D array"):
        selector.fit(X[:, 0], y)
    with pytest.raises(TypeError, match="sparse"):
        selector.fit(scipy.sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match="requires y"):
        selector.fit(X, None)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        selector.fit(X, y[:-1])
    with pytest.raises(ValueError, match="float32"), np.errstate(over="ignore"):
        selector.fit(X.astype(np.float64) * 1e300, y)
    with pytest.raises(ValueError, match="one class"):
        topkfs.TopKSelector("lasso-top", k=2).fit(X, np.zeros(len(X), dtype=int))
    with pytest.raises(ValueError, match="all numbers or all strings"):
        topkfs.TopKSelector("lasso-top", k=2).fit(X[:4], np.array([1, "a", 2, "b"], dtype=object))
    with pytest.raises(ValueError, match="classification takes one column"):
        topkfs.TopKSelector("lasso-top", k=2).fit(X, np.zeros((len(X), 2), dtype=int))
    fitted = topkfs.TopKSelector("lasso-top", k=2, threads=1).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(X[:, :5])


def test_unfitted_selector_refuses_to_transform(regression_data):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        topkfs.TopKSelector().transform(regression_data[0])


def test_select_on_files_reports_file_and_option_errors(tmp_path):
    with pytest.raises(OSError, match="missing.csv"):
        topkfs.select(tmp_path / "missing.csv", "lasso-top", 2)
    # Bad options fail before the data is read, as in the command.
    with pytest.raises(ValueError, match="option 'lambda1' does not apply"):
        topkfs.select(tmp_path / "missing.csv", "lasso-top", 2, options={"lambda1": 2})
    with pytest.raises(ValueError, match="^split takes"):
        X, y = planted_regression(n=20, m=4, informative=(0,))
        from conftest import write_csv

        topkfs.select(write_csv(tmp_path / "d.csv", X, y), "lasso-top", 2, split="half")


def large_problem():
    """A problem whose fit takes a good fraction of a second."""
    return planted_classes(n=4000, m=100, informative=(1, 2), classes=2, seed=9)


@requires_neural
def test_the_gil_is_released_while_a_method_trains():
    X, y = large_problem()
    selector = topkfs.TopKSelector(
        "dnn-top", k=2, epochs=40, min_steps=0, hidden=[64], patience=0, validation=0, threads=1
    )
    worker = threading.Thread(target=selector.fit, args=(X, y))
    worker.start()
    # Spin in Python while the fit runs: with the GIL held by the fit this
    # loop could not advance until the fit ended.
    spins = 0
    while worker.is_alive():
        spins += 1
    worker.join()
    assert selector.n_iter_ == 40
    assert spins > 10000, spins


@requires_neural
def test_ctrl_c_stops_a_fit(ctrl_c_raises):
    X, y = large_problem()
    # About a minute of training at most, so that a lost interrupt fails the
    # test instead of hanging the suite.
    selector = topkfs.TopKSelector(
        "dnn-top", k=2, epochs=3000, hidden=[64], patience=0, validation=0, threads=1
    )
    # One press, 0.3 s into the fit: the library checks for it at least every
    # 0.1 s; started inside the `raises` block, so that however late it comes
    # it cannot land outside it.
    press = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            press.start()
            selector.fit(X, y)
    finally:
        press.cancel()
        press.join()
    assert time.monotonic() - start < 10
    assert not hasattr(selector, "selected_")


def pool_threads():
    """Each thread pool of the process and its size, as threadpoolctl sees them."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    return sorted((pool["internal_api"], pool["filepath"], pool["num_threads"])
                  for pool in threadpoolctl.threadpool_info())


@pytest.mark.parametrize("method", ["lasso-top", "dnn-top", "random-forest"])
def test_a_fit_leaves_the_thread_pools_as_it_found_them(method, classes_data):
    if not has_method(method):
        pytest.skip("built without libtorch")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    X, y = classes_data
    options = {**(FAST_NEURAL if method == "dnn-top" else {}), "threads": 1}
    # Two threads in every pool before, one asked for by the fit: the fit
    # changes them for itself and must put them back.
    with threadpoolctl.threadpool_limits(limits=2):
        before = pool_threads()
        assert any(api == "openblas" for api, _, _ in before), before
        topkfs.TopKSelector(method, k=2, **options).fit(X, y)
        assert pool_threads() == before
        # k="auto": the inner fits and their downstream scoring.
        topkfs.TopKSelector(method, k="auto", k_max=3, **options).fit(X, y)
        assert pool_threads() == before


def _import_with(tmp_path, variable, value, code):
    """Runs `code` after `import topkfs` in a new interpreter whose
    environment sets `variable`: the package gives the library the limits of
    the environment at import (the library reads none itself)."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(topkfs.__file__)))
    environment = dict(os.environ, PYTHONPATH=package_parent, **{variable: value})
    return subprocess.run(
        [sys.executable, "-c", "import topkfs\n" + code],
        env=environment, capture_output=True, text=True, cwd=tmp_path, check=False)


def test_hdf5_rows_above_the_budget_go_to_pythons_temporary_folder(tmp_path):
    """An HDF5 matrix above half the memory budget comes back in an unnamed
    file of tempfile.gettempdir() (TMPDIR here), as taken at import: mapped,
    the folder left empty; once the folder is gone the read is refused
    naming the file and the folder."""
    import h5py

    path = tmp_path / "rows.h5"
    with h5py.File(path, "w") as f:
        f["X"] = np.arange(120, dtype=np.float32).reshape(40, 3)  # 480 bytes
        f["Y"] = np.arange(40) % 2
    folder = tmp_path / "python_tmp"
    folder.mkdir()
    code = (
        f"import os\n"
        f"done = topkfs.convert({str(path)!r}, {str(tmp_path / 'rows.npz')!r})\n"
        f"print(done['storage'], os.listdir({str(folder)!r}))\n"
        f"os.rmdir({str(folder)!r})\n"
        f"try:\n    topkfs.convert({str(path)!r}, {str(tmp_path / 'again.npz')!r})\n"
        "except topkfs.FileError as error:\n    print(error)\n"
    )
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(topkfs.__file__)))
    environment = dict(os.environ, PYTHONPATH=package_parent, TMPDIR=str(folder),
                       TOPKFS_MEMORY_LIMIT="400")
    done = subprocess.run([sys.executable, "-c", "import topkfs\n" + code], env=environment,
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "mapped []", done.stdout
    assert lines[1].startswith(f"{path}: cannot make a temporary file in '{folder}'"), done.stdout


def test_the_memory_limit_of_the_environment_applies_from_import(tmp_path):
    tiny = tmp_path / "tiny.svm"
    tiny.write_text("1 1:2.5\n0 2:1\n")  # 96 bytes as the memory check counts them
    code = (
        f"try:\n    topkfs.load({str(tiny)!r})\n"
        "except topkfs.DataError as error:\n    print(error)\n"
    )
    done = _import_with(tmp_path, "TOPKFS_MEMORY_LIMIT", "50", code)
    assert done.returncode == 0, done.stderr
    assert "tiny.svm" in done.stdout and "TOPKFS_MEMORY_LIMIT allows" in done.stdout
    assert _import_with(tmp_path, "TOPKFS_MEMORY_LIMIT", "1K", code).stdout == ""
    refused = _import_with(tmp_path, "TOPKFS_MEMORY_LIMIT", "lots", "")
    assert refused.returncode != 0
    assert "TOPKFS_MEMORY_LIMIT='lots': expected a positive number of bytes" in refused.stderr
