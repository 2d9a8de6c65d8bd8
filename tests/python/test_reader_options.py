"""The reader options are parsed once, by the library, for the command and
for Python: the same bad value is refused with the same message, the option
spelled as each face spells it (``--max-levels`` there, ``max_levels`` here),
and nan="keep" is taken for looking at the data and refused for a selection
in both."""

import subprocess

import numpy as np
import pytest

import topkfs
from conftest import write_csv


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    y = np.arange(20) % 2
    path = write_csv(tmp_path / "data.csv", X, y)
    lines = path.read_text().splitlines()
    lines[2] = "," + lines[2].split(",", 1)[1]  # one missing cell
    path.write_text("\n".join(lines) + "\n")
    return path


def command_refusal(cli, *args):
    """The message `topkfs ARGS` gives on stderr for a usage error."""
    completed = subprocess.run(
        [str(cli), *args], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 2, completed.stderr
    first = completed.stderr.splitlines()[0]
    assert first.startswith("topkfs: error: "), completed.stderr
    return first[len("topkfs: error: "):]


@pytest.mark.parametrize(
    "flag, value, keyword",
    [
        ("--delimiter", "ab", "ab"),
        ("--max-levels", "0", 0),
        ("--task", "ranking", "ranking"),
        ("--nan", "sometimes", "sometimes"),
        ("--nan", "keep", "keep"),
        ("--x-var", "F", "F"),
    ],
)
def test_the_same_bad_value_gets_the_same_message(table, cli, flag, value, keyword):
    name = flag[2:].replace("-", "_")
    from_command = command_refusal(cli, "select", str(table), flag, value, "--k", "1", "-q")
    with pytest.raises(topkfs.OptionError) as raised:
        topkfs.select(table, k=1, **{name: keyword})
    assert flag in from_command
    assert str(raised.value) == from_command.replace(flag, name, 1)


def test_nan_keep_loads_the_data_and_is_refused_for_a_selection(table, cli, tmp_path):
    kept = topkfs.load(table, nan="keep")
    assert np.isnan(kept.X[1, 0])
    info = subprocess.run(
        [str(cli), "info", str(table), "--nan", "keep"], capture_output=True, text=True
    )
    assert info.returncode == 0, info.stderr
    with pytest.raises(topkfs.OptionError, match=r"^nan takes impute, error or drop \('keep'"):
        topkfs.select(table, k=1, nan="keep")
    with pytest.raises(topkfs.OptionError, match=r"^nan takes impute, error or drop"):
        topkfs.convert(table, tmp_path / "out.npy", nan="keep")
    message = command_refusal(cli, "select", str(table), "--nan", "keep", "--k", "1", "-q")
    assert message.startswith("--nan takes impute, error or drop ('keep'")
