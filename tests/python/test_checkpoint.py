"""Resumable training: `topkfs select --checkpoint` killed with SIGKILL or
stopped by Ctrl-C and run again with --resume gives the uninterrupted run's
result to the bit; so does TopKSelector.fit(checkpoint=...) after Ctrl-C; a
checkpoint of another run is refused, naming the difference."""

import json
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import topkfs
from conftest import ctrl_c_once_written, planted_classes, requires_neural, write_csv

# Long enough (a few seconds) that the kill below lands mid-run; small enough
# for the suite. One thread: a team of another size gives other numbers.
SELECT = [
    "--method", "dnn-top", "--k", "3", "--hidden", "32", "--epochs", "300",
    "--min-steps", "0", "--validation", "0.2", "--patience", "0", "--threads", "1",
    "--seed", "3", "--split", "none", "--json", "--quiet",
]  # fmt: skip


def select(cli, data, *extra):
    done = subprocess.run(
        [str(cli), "select", str(data), *SELECT, *extra], capture_output=True, text=True
    )
    return done


def outcome(result):
    """What must be equal to the bit: the selection, the scores, the losses."""
    losses = [(epoch["loss"], epoch.get("val_loss")) for epoch in result["history"]]
    return result["selected"], result["scores"], losses


def wait_for_new_version(path, seen, process, deadline):
    """Waits until `path` exists with another modification time than `seen`."""
    while time.monotonic() < deadline:
        try:
            stamp = os.stat(path).st_mtime_ns
        except FileNotFoundError:
            stamp = None
        if stamp is not None and stamp != seen:
            return stamp
        assert process.poll() is None, "the run ended before it could be killed"
        time.sleep(0.002)
    pytest.fail(f"no new checkpoint at {path}")


@requires_neural
@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "Ctrl-C"])
def test_a_stopped_run_resumes_to_the_uninterrupted_result(cli, tmp_path, ctrl_c_raises, stop):
    X, y = planted_classes(n=1500, m=30, informative=(3, 11), classes=3, seed=4)
    data = write_csv(tmp_path / "data.csv", X, y)
    whole = select(cli, data)
    assert whole.returncode == 0, whole.stderr
    checkpoint = tmp_path / "run.ckpt"
    result = tmp_path / "result.json"
    args = [str(cli), "select", str(data), *SELECT, "--checkpoint", str(checkpoint)]
    process = subprocess.Popen(
        args + ["--checkpoint-every", "2", "--output", str(result)], stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    # Stopped once it has written two checkpoints and trains on.
    first = wait_for_new_version(checkpoint, None, process, deadline)
    wait_for_new_version(checkpoint, first, process, deadline)
    process.send_signal(stop)
    process.wait(timeout=60)
    # Ctrl-C ends it at once, dying of the signal (status 130 in a shell),
    # with no result written and no temporary left.
    assert process.returncode == -stop
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data.csv", "run.ckpt"]

    resumed = select(cli, data, "--checkpoint", str(checkpoint), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert outcome(json.loads(resumed.stdout)) == outcome(json.loads(whole.stdout))


@requires_neural
def test_a_checkpoint_of_other_options_is_refused_naming_the_difference(cli, tmp_path):
    X, y = planted_classes(n=200, m=8, seed=2)
    data = write_csv(tmp_path / "data.csv", X, y)
    checkpoint = tmp_path / "run.ckpt"
    first = select(cli, data, "--checkpoint", str(checkpoint))
    assert first.returncode == 0, first.stderr
    other = select(cli, data, "--checkpoint", str(checkpoint), "--resume", "--lr", "0.05")
    assert other.returncode == 2
    assert "run.options.lr is 0.0003 in the checkpoint, 0.05 here" in other.stderr, other.stderr


@requires_neural
def test_checkpoints_need_a_method_that_can_resume(cli, tmp_path):
    X, y = planted_classes(n=200, m=8, seed=2)
    data = write_csv(tmp_path / "data.csv", X, y)
    done = subprocess.run(
        [str(cli), "select", str(data), "--method", "lasso-top", "--k", "2", "--checkpoint",
         str(tmp_path / "run.ckpt")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--checkpoint: lasso-top cannot write training checkpoints" in done.stderr


@requires_neural
def test_a_fit_stopped_by_ctrl_c_resumes_from_its_checkpoint(tmp_path, ctrl_c_raises):
    X, y = planted_classes(n=1500, m=30, informative=(3, 11), classes=3, seed=4)
    options = dict(hidden=[32], epochs=300, min_steps=0, validation=0.2, patience=0, threads=1,
                   seed=3)  # fmt: skip
    whole = topkfs.TopKSelector("dnn-top", k=3, **options).fit(X, y)
    checkpoint = tmp_path / "fit.ckpt"
    stopped = topkfs.TopKSelector("dnn-top", k=3, **options)

    with ctrl_c_once_written(checkpoint):
        stopped.fit(X, y, checkpoint=checkpoint)
    assert checkpoint.exists()
    resumed = topkfs.TopKSelector("dnn-top", k=3, **options).fit(
        X, y, checkpoint=checkpoint, resume=True
    )
    np.testing.assert_array_equal(resumed.selected_, whole.selected_)
    np.testing.assert_array_equal(resumed.scores_, whole.scores_)
    assert [e["loss"] for e in resumed.history_] == [e["loss"] for e in whole.history_]
