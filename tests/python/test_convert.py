"""topkfs.convert, and float32 .npy/.npz files mapped instead of read."""

import numpy as np
import pytest

import topkfs
from conftest import write_csv


@pytest.fixture
def small():
    rng = np.random.default_rng(9)
    X = np.round(rng.normal(size=(40, 6)), 3).astype(np.float32)
    y = np.array([3, 5] * 20)
    return X, y


def test_csv_to_npy_pair_and_back_mapped(tmp_path, small):
    X, y = small
    source = write_csv(tmp_path / "data.csv", X, y, fmt="%.3f")
    summary = topkfs.convert(source, tmp_path / "X.npy", y_output=tmp_path / "y.npy")
    assert summary["rows"] == 40 and summary["columns"] == 6
    assert summary["written"] == [str(tmp_path / "X.npy"), str(tmp_path / "y.npy")]
    # numpy reads what convert wrote, and topkfs maps it.
    np.testing.assert_array_equal(np.load(tmp_path / "X.npy"), X)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), y)
    data = topkfs.load(tmp_path / "X.npy", y_file=tmp_path / "y.npy")
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    assert not data.X.flags.writeable  # a view of the read-only mapping
    copy = topkfs.load(tmp_path / "X.npy", y_file=tmp_path / "y.npy", in_memory=True)
    assert copy.X.flags.writeable


def test_npz_output_is_an_ordinary_npz_whose_x_maps(tmp_path, small):
    X, y = small
    source = write_csv(tmp_path / "data.csv", X, y, fmt="%.3f")
    topkfs.convert(source, tmp_path / "data.npz")
    with np.load(tmp_path / "data.npz") as archive:
        np.testing.assert_array_equal(archive["X"], X)
        np.testing.assert_array_equal(archive["Y"], y)
    data = topkfs.load(tmp_path / "data.npz")
    assert not data.X.flags.writeable
    np.testing.assert_array_equal(data.X, X)


def test_select_on_mapped_data_equals_select_in_memory(tmp_path, small):
    X, y = small
    source = write_csv(tmp_path / "data.csv", X, y, fmt="%.3f")
    topkfs.convert(source, tmp_path / "data.npz")
    options = {"epochs": 3, "hidden": [16], "seed": 2, "threads": 1}
    mapped = topkfs.select(tmp_path / "data.npz", "dnn-top", 2, options=options)
    loaded = topkfs.select(tmp_path / "data.npz", "dnn-top", 2, options=options, in_memory=True)
    assert mapped["scores"] == loaded["scores"]


def test_bad_outputs_write_nothing(tmp_path, small):
    X, y = small
    source = write_csv(tmp_path / "data.csv", X, y, fmt="%.3f")
    with pytest.raises(topkfs.OptionError, match="give y_output=.y.npy. to keep it"):
        topkfs.convert(source, tmp_path / "X.npy")
    with pytest.raises(topkfs.OptionError, match=".npy"):
        topkfs.convert(source, tmp_path / "X.bin")
    (tmp_path / "taken.npy").mkdir()
    with pytest.raises(topkfs.FileError):
        topkfs.convert(source, tmp_path / "X.npy", y_output=tmp_path / "taken.npy")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "taken.npy"]
