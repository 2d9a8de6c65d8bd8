"""Text as the hostile inputs of 2026-12-02 (cae50c1) met it from Python: names that are not
UTF-8 read as Latin-1 as the command reads them, names UTF-8 cannot hold
refused by name, and one list of missing markers for both faces."""

import numpy as np
import pytest

import topkfs
from topkfs import _topkfs
from topkfs._tables import encode_table

from conftest import planted_classes

pandas = pytest.importorskip("pandas")


def test_latin1_names_read_as_the_command_reads_them(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"caf\xe9,na\xefve,y\n1,2,0\n2,1,1\n3,5,0\n4,3,1\n")
    data = topkfs.load(path)
    assert data.feature_names == ["café", "naïve"]
    assert any("read as Latin-1" in note for note in data.notes)


def test_a_name_with_a_lone_surrogate_is_refused_by_name():
    X, y = planted_classes()
    columns = [f"c{j}" for j in range(X.shape[1])]
    columns[2] = "bad\udcff"
    frame = pandas.DataFrame(X, columns=columns)
    with pytest.raises(ValueError, match=r"feature name 2 .* lone surrogate"):
        topkfs.TopKSelector("lasso-top", k=2).fit(frame, y)


def test_the_missing_markers_are_the_commands():
    markers = set(_topkfs.missing_markers())
    assert {"", "NA", "None", "#N/A", "<NA>", "nan", "?"} <= markers
    frame = pandas.DataFrame({"size": ["big", "None", "small", "#N/A"], "x": [1.0, 2, 3, 4]})
    matrix, levels = encode_table(frame)
    assert list(levels[0]) == ["big", "small"]
    assert np.isnan(matrix[1, 0]) and np.isnan(matrix[3, 0])
