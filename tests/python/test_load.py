"""topkfs.load: every format the command reads, written here at test time."""

import os
import pathlib

import numpy as np
import pytest

import topkfs
from conftest import write_csv, write_mnist_folder


@pytest.fixture
def small():
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(12, 5)), 3).astype(np.float32)
    y = np.array([0, 1, 2] * 4)
    return X, y


def check_arrays(data, X, y):
    assert data.X.dtype == np.float32
    assert data.X.flags.c_contiguous
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)


def test_csv_with_header_and_named_target(tmp_path, small):
    X, y = small
    path = write_csv(tmp_path / "data.csv", X, y, fmt="%.3f")
    data = topkfs.load(path)
    check_arrays(data, X, y)
    assert data.y.dtype == np.int64
    assert data.feature_names == [f"f{j}" for j in range(5)]
    assert data.class_names == ["0", "1", "2"]
    assert data.target_names == ["label"]
    assert data.split is None and data.image_shape is None
    assert data.format == "csv" and data.source == str(path)
    X2, y2 = topkfs.load(str(path))  # unpacks as (X, y)
    np.testing.assert_array_equal(X2, X)
    # The target by name or index: here a feature column becomes the target.
    by_name = topkfs.load(path, target="f0")
    assert by_name.X.shape == (12, 5)
    np.testing.assert_array_equal(by_name.y, X[:, 0].astype(np.float64).round(3))
    assert by_name.feature_names[0] == "f1"
    by_index = topkfs.load(path, target=0)
    np.testing.assert_array_equal(by_index.y, by_name.y)
    two = topkfs.load(path, target=["f0", "f1"])
    assert two.y.shape == (12, 2) and two.X.shape == (12, 4)


def test_csv_without_a_target_column(tmp_path, small):
    # New data to reduce comes without its target: every column a feature.
    X, _ = small
    path = tmp_path / "new.csv"
    np.savetxt(path, X, fmt="%.3f", delimiter=",", header="a,b,c,d,e", comments="")
    data = topkfs.load(path, no_target=True)
    np.testing.assert_array_equal(data.X, X)
    assert data.y is None and data.target_names == []
    assert data.feature_names == ["a", "b", "c", "d", "e"]
    with pytest.raises(topkfs.OptionError, match="target and no_target exclude each other"):
        topkfs.load(path, no_target=True, target="a")
    with pytest.raises(topkfs.OptionError, match="no_target takes True or False"):
        topkfs.load(path, no_target="yes")


def test_mat_of_x_alone(tmp_path, small):
    # A .mat file of new data holds X alone: read with no_target, refused
    # without it (naming the flag), and a y_var beside it is a usage error.
    scipy_io = pytest.importorskip("scipy.io")
    X, _ = small
    path = tmp_path / "new.mat"
    scipy_io.savemat(path, {"X": X.astype(np.float64)})
    data = topkfs.load(path, no_target=True)
    np.testing.assert_array_equal(data.X, X)
    assert data.y is None
    missing_y = "no variable 'Y'.*choose with y_var .*read with no_target"
    with pytest.raises(topkfs.DataError, match=missing_y):
        topkfs.load(path)
    with pytest.raises(topkfs.OptionError, match="y_var and no_target exclude each other"):
        topkfs.load(path, no_target=True, y_var="labels")


def test_load_returns_the_readers_buffer_without_a_copy(tmp_path, small):
    X, y = small
    data = topkfs.load(write_csv(tmp_path / "data.csv", X, y))
    # A view of the library's matrix, kept alive by the array's base object.
    assert not data.X.flags.owndata
    assert data.X.base is not None
    assert data.X.flags.writeable


def test_csv_text_labels_task_and_no_header(tmp_path, small):
    X, _ = small
    labels = np.array(["spam", "ham", "eggs"] * 4)
    path = tmp_path / "text.csv"
    with open(path, "w") as out:
        for row, label in zip(X, labels):
            out.write(";".join(f"{v:.3f}" for v in row) + f";{label}\n")
    data = topkfs.load(path, header=False, delimiter=";")
    check_arrays(data, X, labels)
    assert data.class_names == ["eggs", "ham", "spam"]
    numbers = topkfs.load(write_csv(tmp_path / "n.csv", X, [0, 1, 2] * 4), task="regression")
    assert data.y.dtype.kind == "U"
    assert numbers.y.dtype == np.float64 and numbers.class_names is None


def test_tsv(tmp_path, small):
    X, y = small
    path = tmp_path / "data.tsv"
    with open(path, "w") as out:
        out.write("\t".join([f"c{j}" for j in range(5)] + ["y"]) + "\n")
        for row, target in zip(X, y):
            out.write("\t".join(f"{v:.3f}" for v in row) + f"\t{target}\n")
    check_arrays(topkfs.load(path), X, y)


def test_libsvm(tmp_path, small):
    X, y = small
    path = tmp_path / "data.svm"
    with open(path, "w") as out:
        for row, target in zip(X, y):
            pairs = " ".join(f"{j + 1}:{v:.3f}" for j, v in enumerate(row) if v != 0)
            out.write(f"{target} {pairs}\n")
    data = topkfs.load(path)
    check_arrays(data, X, y)
    assert data.format == "libsvm"


def test_npy_with_target_file_and_npz(tmp_path, small):
    X, y = small
    np.save(tmp_path / "X.npy", X.astype(np.float64))
    np.save(tmp_path / "y.npy", y)
    data = topkfs.load(tmp_path / "X.npy", y_file=tmp_path / "y.npy")
    check_arrays(data, X, y)
    np.savez_compressed(tmp_path / "d.npz", features=X, target=y.astype(np.int32))
    data = topkfs.load(tmp_path / "d.npz", x_var="features", y_var="target")
    check_arrays(data, X, y)
    assert data.format == "npz"


def test_matlab_v5(tmp_path, small):
    scipy_io = pytest.importorskip("scipy.io")
    X, y = small
    scipy_io.savemat(tmp_path / "d.mat", {"X": X.astype(np.float64), "Y": y.reshape(-1, 1)})
    data = topkfs.load(tmp_path / "d.mat")
    check_arrays(data, X, y)
    assert data.format == "mat"
    scipy_io.savemat(tmp_path / "e.mat", {"data": X, "gnd": y.reshape(-1, 1).astype(float)})
    check_arrays(topkfs.load(tmp_path / "e.mat", x_var="data", y_var="gnd"), X, y)


def test_hdf5_usps_layout_has_the_split_and_image_shape(tmp_path):
    h5py = pytest.importorskip("h5py")
    rng = np.random.default_rng(5)
    train = rng.random(size=(6, 16)).astype(np.float32)
    test = rng.random(size=(3, 16)).astype(np.float32)
    with h5py.File(tmp_path / "usps.h5", "w") as out:
        out["train/data"] = train
        out["train/target"] = np.array([1, 2, 3, 1, 2, 3], dtype=np.int32)
        out["test/data"] = test
        out["test/target"] = np.array([3, 2, 1], dtype=np.int32)
    data = topkfs.load(tmp_path / "usps.h5", image_shape=(4, 4))
    check_arrays(data, np.vstack([train, test]), [1, 2, 3, 1, 2, 3, 3, 2, 1])
    np.testing.assert_array_equal(data.split.train, np.arange(6))
    np.testing.assert_array_equal(data.split.test, np.arange(6, 9))
    assert data.split.train.dtype == np.int64
    assert data.image_shape == (4, 4)
    with h5py.File(tmp_path / "plain.h5", "w") as out:
        out["features"] = train
        out["label"] = np.arange(6, dtype=np.float64) / 2
    plain = topkfs.load(tmp_path / "plain.h5", x_path="features", y_path="label")
    check_arrays(plain, train, np.arange(6) / 2)
    assert plain.split is None


def test_idx_folder_has_the_predefined_split(tmp_path):
    rng = np.random.default_rng(6)
    train = rng.integers(0, 256, size=(5, 3, 4), dtype=np.uint8)
    test = rng.integers(0, 256, size=(2, 3, 4), dtype=np.uint8)
    write_mnist_folder(
        tmp_path, train, np.array([0, 1, 2, 1, 0], np.uint8), test, np.array([2, 0], np.uint8)
    )
    data = topkfs.load(tmp_path)
    pixels = np.vstack([train, test]).reshape(7, 12).astype(np.float32)
    check_arrays(data, pixels, [0, 1, 2, 1, 0, 2, 0])
    assert data.image_shape == (3, 4)
    assert list(data.split.train) == [0, 1, 2, 3, 4]
    assert list(data.split.test) == [5, 6]
    assert data.format == "idx"
    # A single images file with its labels file.
    single = topkfs.load(
        tmp_path / "t10k-images-idx3-ubyte", labels=tmp_path / "t10k-labels-idx1-ubyte"
    )
    check_arrays(single, test.reshape(2, 12).astype(np.float32), [2, 0])


def test_fashion_mnist_package_when_installed():
    folder = pathlib.Path("/usr/share/datasets/fashion-mnist")
    if not folder.is_dir():
        pytest.skip("dataset-fashion-mnist is not installed")
    data = topkfs.load(folder)
    assert data.X.shape == (70000, 784)
    assert len(data.split.train) == 60000 and len(data.split.test) == 10000
    assert data.image_shape == (28, 28)
    assert list(np.unique(data.y)) == list(range(10))


def test_nan_policies(tmp_path, small):
    X, y = small
    path = tmp_path / "nan.csv"
    write_csv(path, X, y, fmt="%.3f")
    lines = path.read_text().splitlines()
    lines[3] = "nan," + lines[3].split(",", 1)[1]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"nan\.csv: sample 3, feature 1"):
        topkfs.load(path, nan="error")
    imputed_later = topkfs.load(path)  # the default: kept for the selection to impute
    assert np.isnan(imputed_later.X[2, 0])
    dropped = topkfs.load(path, nan="drop")
    assert dropped.X.shape == (11, 5)
    assert dropped.notes
    kept = topkfs.load(path, nan="keep")
    assert np.isnan(kept.X[2, 0])


def test_reader_option_errors(tmp_path, small):
    X, y = small
    path = write_csv(tmp_path / "data.csv", X, y)
    with pytest.raises(TypeError, match="unexpected reader option 'targt'.*target"):
        topkfs.load(path, targt="label")
    with pytest.raises(ValueError, match="unknown nan policy 'ignore'"):
        topkfs.load(path, nan="ignore")
    with pytest.raises(ValueError, match="format"):
        topkfs.load(path, format="xlsx")
    with pytest.raises(ValueError, match="image_shape 3x3 has 9 pixels"):
        topkfs.load(path, image_shape="3x3")
    with pytest.raises(ValueError, match="header takes True, False or None"):
        topkfs.load(path, header="yes")


def test_missing_and_malformed_files(tmp_path):
    missing = tmp_path / "nowhere.csv"
    with pytest.raises(OSError, match="nowhere.csv") as caught:
        topkfs.load(missing)
    assert isinstance(caught.value, topkfs.FileError)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b,c\n1,2,0\n1,2,3,4\n")
    with pytest.raises(ValueError, match=r"ragged\.csv: line 3") as caught:
        topkfs.load(ragged)
    assert isinstance(caught.value, topkfs.DataError)
    assert isinstance(caught.value, topkfs.Error)
    assert not isinstance(caught.value, OSError)
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(OSError, match="not an MNIST-style folder"):
        topkfs.load(folder)
    assert isinstance(os.fspath(folder), str)


def test_deeply_nested_npy_header_is_a_value_error_not_a_crash(tmp_path):
    # A version 2.0 header whose shape nests 60,000 brackets: the parser
    # refuses it instead of recursing until the stack overflows.
    text = "{'descr': '<f4', 'fortran_order': False, 'shape': " + "[" * 60000 + "}"
    text += " " * ((64 - (12 + len(text) + 1) % 64) % 64) + "\n"
    header = b"\x93NUMPY\x02\x00" + len(text).to_bytes(4, "little") + text.encode()
    path = tmp_path / "deep.npy"
    path.write_bytes(header)
    with pytest.raises(ValueError, match=r"deep\.npy: .*nested brackets"):
        topkfs.load(str(path))


def test_fifo_is_an_os_error_not_a_hang(tmp_path):
    fifo = tmp_path / "data.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match=r"data\.fifo: is a FIFO"):
        topkfs.load(str(fifo))
