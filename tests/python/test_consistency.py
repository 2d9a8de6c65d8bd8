"""The command, the C++ API and the Python estimator give the same selection
on the same data, seed and thread count.

The three paths:
  1. `topkfs select data.csv --method M --k K --seed S --threads 1 ... -o r.json`
  2. topkfs.select(): the library's read_dataset + run_selection in process
     (what the command runs, reached through the module's low-level function)
  3. TopKSelector.fit on the arrays of topkfs.load (and of numpy.loadtxt)
"""

import json
import subprocess

import numpy as np
import pytest

import topkfs
from conftest import planted_classes, planted_regression, write_csv, write_mnist_folder


def run_cli(cli, path, method, k, options, out):
    command = [str(cli), "select", str(path), "--method", method, "--k", str(k), "-q"]
    command += ["-o", str(out)]
    for name, value in options.items():
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        command += [f"--{name.replace('_', '-')}", text]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return json.loads(out.read_text())


def assert_same(first, second, what):
    assert first["selected"] == second["selected"], what
    assert first["ranking"] == second["ranking"], what
    np.testing.assert_array_equal(np.asarray(first["scores"]), np.asarray(second["scores"]), what)


CASES = [
    ("dnn-top", {"epochs": 5, "hidden": [16, 8], "seed": 5, "threads": 1, "lr": 0.01}, "classes"),
    ("dfs", {"epochs": 3, "hidden": [8], "seed": 2, "threads": 1}, "classes"),
    ("dnn-top", {"epochs": 4, "hidden": [8], "seed": 3, "threads": 1}, "real"),
    ("lasso-top", {"threads": 1}, "real"),
    ("elastic-net-top", {"threads": 1, "lambda1": 0.1}, "real"),
    ("elastic-net-top", {"threads": 1}, "classes"),
]


@pytest.mark.parametrize("method,options,target", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_command_library_and_estimator_agree(tmp_path, cli, method, options, target):
    if method not in topkfs.methods():
        pytest.skip(f"{method} is not built")
    if target == "classes":
        X, y = planted_classes(n=300, m=14, informative=(3, 9), classes=3, seed=7)
    else:
        X, y = planted_regression(n=250, m=12, informative=(2, 5, 10), seed=7)
        y = np.round(y, 4)
    path = write_csv(tmp_path / "data.csv", X, y, fmt="%.5f")
    k = 3

    from_cli = run_cli(cli, path, method, k, options, tmp_path / "r.json")
    from_library = topkfs.select(path, method, k, options=options)
    assert_same(from_cli, from_library, "command vs library")
    assert from_cli["data"] == from_library["data"]
    assert from_cli["options"] == from_library["options"]

    X_loaded, y_loaded = topkfs.load(path)
    estimator = topkfs.TopKSelector(method, k=k, options=options).fit(X_loaded, y_loaded)
    assert_same(from_cli, estimator.result_, "command vs estimator")
    assert list(estimator.selected_) == from_cli["selected"]

    # The user's own parsing of the file gives the same float32 values.
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    y_text = table[:, -1].astype(np.int64) if target == "classes" else table[:, -1]
    estimator = topkfs.TopKSelector(method, k=k, **options).fit(table[:, :-1], y_text)
    assert_same(from_cli, estimator.result_, "command vs estimator on numpy.loadtxt")


def test_library_split_rules_match_the_command(tmp_path, cli):
    X, y = planted_regression(n=120, m=6, informative=(0, 3), seed=1)
    path = write_csv(tmp_path / "data.csv", X, np.round(y, 4))
    options = {"threads": 1}
    from_cli_path = tmp_path / "r.json"
    command = [str(cli), "select", str(path), "--method", "lasso-top", "--k", "2", "-q",
               "--threads", "1", "--split", "random", "--test-size", "0.25", "--split-seed", "4",
               "-o", str(from_cli_path)]
    subprocess.run(command, check=True, timeout=120)
    from_cli = json.loads(from_cli_path.read_text())
    from_library = topkfs.select(path, "lasso-top", 2, options=options, split="random",
                                 test_size=0.25, split_seed=4)
    assert_same(from_cli, from_library, "random split")
    assert from_library["data"]["rows"] == 90
    # The same notes, each face naming the options its own way (a flag, a keyword).
    spelled = [note.replace("--screen-level 0", "screen_level=0") for note in from_cli["notes"]]
    assert spelled == from_library["notes"]
    assert any("screen_level=0" in note for note in from_library["notes"])


@pytest.mark.parametrize("body", ["mlp", "cnn"])
def test_image_folder_with_its_split(tmp_path, cli, body):
    """On MNIST-style data the command learns from the predefined training
    split with image scaling; the estimator on the training rows with the
    image shape does the same."""
    if "dnn-top" not in topkfs.methods():
        pytest.skip("dnn-top is not built")
    rng = np.random.default_rng(11)

    def images(n):
        labels = rng.integers(0, 3, size=n).astype(np.uint8)
        pictures = rng.integers(0, 60, size=(n, 8, 8)).astype(np.uint8)
        for label in range(3):  # a bright pixel per class
            pictures[labels == label, 2 + 2 * label, 3] = 250
        return pictures, labels

    folder = write_mnist_folder(tmp_path / "mnist", *images(200), *images(40))
    options = {"epochs": 3, "min_steps": 0, "hidden": [8], "seed": 1, "threads": 1, "body": body}
    from_cli = run_cli(cli, folder, "dnn-top", 3, options, tmp_path / "r.json")
    assert from_cli["data"]["rows"] == 200
    assert from_cli["options"]["scaling_used"] == "image"
    data = topkfs.load(folder)
    train = data.split.train
    estimator = topkfs.TopKSelector("dnn-top", k=3, image_shape=data.image_shape, **options)
    estimator.fit(data.X[train], data.y[train])
    assert estimator.result_["options"]["scaling_used"] == "image"
    assert_same(from_cli, estimator.result_, "command vs estimator on images")
