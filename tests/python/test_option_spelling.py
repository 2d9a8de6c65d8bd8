"""The library names options by a marked reference that each face spells its
own way: the command as flags (--w-step, --screen-level 0), Python as
keywords (w_step, screen_level=0). No marker reaches a Python user: not in
an exception, a note, a warning, a loaded file's notes or an option's help."""

import subprocess
import warnings

import numpy as np
import pytest

import topkfs
from conftest import planted_regression, requires_neural, write_csv

# The private-use characters that mark a reference inside the library
# (src/core/option_ref.cpp); none may be left in anything Python shows.
MARKERS = ("\ue000", "\ue001", "\ue002")


def unmarked(text):
    return not any(marker in text for marker in MARKERS)


@pytest.fixture
def regression_csv(tmp_path):
    X, y = planted_regression(n=120)
    path = tmp_path / "planted.csv"
    write_csv(path, X, y, target_name="y")
    return path


def test_a_bad_choice_names_the_keyword(regression_csv):
    with pytest.raises(topkfs.OptionError) as raised:
        topkfs.select(str(regression_csv), method="lasso", k=2, options={"path_stop": "never"})
    message = str(raised.value)
    assert "path_stop takes k or end, not 'never'" in message
    assert "--" not in message and unmarked(message)


def test_a_bad_number_names_the_keyword_in_a_fit(regression_data):
    X, y = regression_data
    with pytest.raises(topkfs.OptionError) as raised:
        topkfs.TopKSelector("lasso", k=2, tol=2.0).fit(X, y)
    message = str(raised.value)
    assert message.startswith("tol must be in (0, 1)"), message
    assert unmarked(message)


@requires_neural
def test_the_same_bad_value_reads_as_a_flag_and_as_a_keyword(regression_csv, cli):
    command = subprocess.run(
        [cli, "select", str(regression_csv), "--method", "dnn-top", "--k", "2", "--w-step", "odd"],
        capture_output=True,
        text=True,
    )
    assert command.returncode == 2
    assert "--w-step takes adam or shared, not 'odd'" in command.stderr
    with pytest.raises(topkfs.OptionError) as raised:
        topkfs.select(str(regression_csv), method="dnn-top", k=2, options={"w_step": "odd"})
    assert str(raised.value) == "w_step takes adam or shared, not 'odd'"


def test_notes_and_warnings_name_keywords_with_their_values(regression_csv):
    # The linear models' screen note suggests screen_level=0, and a path cut
    # short at one sweep warns with max_iter=1.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = topkfs.select(str(regression_csv), method="lasso", k=2, options={"max_iter": 1})
    notes = result["notes"]
    assert any("(screen_level=0 ranks by weight alone)" in note for note in notes), notes
    assert all(unmarked(note) for note in notes)
    messages = [str(w.message) for w in caught if issubclass(w.category, topkfs.FitWarning)]
    cut_short = [m for m in messages if "max_iter=1 sweeps" in m and "raise max_iter or tol" in m]
    assert cut_short, messages
    assert all(unmarked(m) for m in messages)
    assert all(unmarked(w) for w in result["warnings"])


def test_help_texts_and_loaded_notes_are_spelled_for_python(tmp_path):
    for method in topkfs.methods().values():
        for option in method["options"].values():
            assert unmarked(option["help"])
    lambda2 = topkfs.methods()["lasso-top"]["options"]["lambda2"]["help"]
    assert "path_points" in lambda2 and "--path-points" not in lambda2
    # An .npy without a target loads with a note naming y_file.
    path = tmp_path / "x.npy"
    np.save(path, np.ones((4, 3), dtype=np.float32))
    loaded = topkfs.load(str(path))
    assert any("y_file='FILE.npy'" in note for note in loaded.notes), loaded.notes
    assert all(unmarked(note) for note in loaded.notes)
