"""topkfs.select(path) runs the library's pipeline from a file that
`topkfs select` runs (select/file_selection.hpp): the same selection from
the same HDF5 file, k in the command's forms, and training checkpoints that
resume to the uninterrupted run's result."""

import json
import subprocess

import h5py
import pytest

import topkfs
from conftest import ctrl_c_once_written, planted_classes, requires_neural, write_csv

# A tiny dnn-top: one thread, so that both faces train the same numbers.
TINY = {"hidden": [8], "epochs": 3, "min_steps": 0, "threads": 1, "seed": 5}


def as_flags(options):
    flags = []
    for name, value in options.items():
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        flags += ["--" + name.replace("_", "-"), text]
    return flags


def run_command(cli, *args):
    done = subprocess.run([str(cli), "select", *map(str, args), "--json", "--quiet"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def outcome(result):
    """What must be equal to the bit: the selection, the scores, the losses."""
    losses = [(epoch["loss"], epoch.get("val_loss")) for epoch in result["history"]]
    return result["selected"], result["scores"], losses


@pytest.fixture
def planted_h5(tmp_path):
    X, y = planted_classes(n=400, m=16, informative=(2, 9), classes=3, seed=6)
    path = tmp_path / "planted.h5"
    with h5py.File(path, "w") as out:
        out["X"] = X
        out["Y"] = y
    return path


@requires_neural
def test_an_hdf5_selection_is_the_commands(cli, planted_h5):
    command = run_command(cli, planted_h5, "--method", "dnn-top", "--k", "3", *as_flags(TINY))
    python = topkfs.select(planted_h5, method="dnn-top", k=3, options=TINY)
    assert outcome(python) == outcome(command)
    assert python["data"] == command["data"]
    assert python["notes"] == command["notes"]


def test_k_takes_the_commands_forms(cli, tmp_path):
    X, y = planted_classes(n=200, m=10, seed=2)
    data = write_csv(tmp_path / "data.csv", X, y)
    command = run_command(cli, data, "--method", "lasso", "--k", "30%")
    assert command["k"] == 3
    for k in ("30%", 0.3, 3):
        python = topkfs.select(data, method="lasso", k=k)
        assert python["selected"] == command["selected"], k
    with pytest.raises(topkfs.OptionError, match=r"k='0%': takes a whole number from 1"):
        topkfs.select(data, method="lasso", k="0%")
    with pytest.raises(ValueError, match="a fraction in"):
        topkfs.select(data, method="lasso", k=1.5)


@requires_neural
def test_checkpoints_need_a_method_that_can_resume_and_a_file(tmp_path):
    X, y = planted_classes(n=100, seed=3)
    data = write_csv(tmp_path / "data.csv", X, y)
    with pytest.raises(topkfs.OptionError, match="^checkpoint: lasso-top cannot write training"):
        topkfs.select(data, method="lasso-top", k=2, checkpoint=tmp_path / "run.ckpt")
    with pytest.raises(topkfs.OptionError, match="^resume continues from a checkpoint file"):
        topkfs.select(data, method="dnn-top", k=2, resume=True)
    assert not (tmp_path / "run.ckpt").exists()


@requires_neural
def test_a_file_selection_stopped_by_ctrl_c_resumes_from_its_checkpoint(
    cli, tmp_path, ctrl_c_raises
):
    X, y = planted_classes(n=1500, m=30, informative=(3, 11), classes=3, seed=4)
    data = write_csv(tmp_path / "data.csv", X, y)
    options = dict(hidden=[32], epochs=300, min_steps=0, validation=0.2, patience=0, threads=1,
                   seed=3)  # fmt: skip
    whole = run_command(cli, data, "--method", "dnn-top", "--k", "3", "--split", "none",
                        *as_flags(options))  # fmt: skip
    checkpoint = tmp_path / "select.ckpt"

    with ctrl_c_once_written(checkpoint):
        topkfs.select(data, method="dnn-top", k=3, split="none", options=options,
                      checkpoint=checkpoint, checkpoint_every=2)  # fmt: skip
    assert checkpoint.exists()
    resumed = topkfs.select(data, method="dnn-top", k=3, split="none", options=options,
                            checkpoint=checkpoint, resume=True)  # fmt: skip
    assert outcome(resumed) == outcome(whole)
