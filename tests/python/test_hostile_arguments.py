"""Arguments a hostile user passes to the Python face: each is refused with a
message that names the argument (never pybind11's conversion messages), an
output never replaces an input, and a failed fit leaves no earlier selection
behind to transform new data with."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import topkfs
from conftest import requires_neural


@pytest.fixture
def npy_pair(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randn(60, 8).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    return tmp_path / "X.npy", tmp_path / "y.npy"


def test_convert_never_writes_over_its_target_file(npy_pair, tmp_path):
    X_path, y_path = npy_pair
    before = y_path.read_bytes()
    with pytest.raises(topkfs.OptionError, match="would replace the data it is read from"):
        topkfs.convert(X_path, tmp_path / "o.npy", y_output=y_path, y_file=y_path)
    with pytest.raises(topkfs.OptionError, match="would replace the data it is read from"):
        topkfs.convert(X_path, y_path, y_output=tmp_path / "o_y.npy", y_file=y_path)
    assert y_path.read_bytes() == before


def test_a_failed_refit_leaves_the_selector_unfitted():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 8)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    selector = topkfs.TopKSelector("lasso-top", k=3).fit(X, y)
    wide = rng.randn(60, 20)
    with pytest.raises(topkfs.DataError, match="one class"):
        selector.fit(wide, np.zeros(60, dtype=int))
    # Before, n_features_in_ was 20 and selected_ the old fit's: transform
    # returned three columns of the new data that no fit had chosen.
    with pytest.raises(NotFittedError):
        selector.transform(wide)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"max_auto_classes": "abc"}, "max_auto_classes takes a whole number from 1 to"),
        ({"max_auto_classes": 2**40}, "max_auto_classes takes a whole number from 1 to"),
        ({"max_auto_classes": True}, "max_auto_classes takes a whole number from 1 to"),
        ({"in_memory": "false"}, "in_memory takes True or False, not 'false'"),
    ],
)
def test_reader_options_of_the_wrong_type_name_the_option(npy_pair, options, message):
    X_path, y_path = npy_pair
    with pytest.raises(topkfs.OptionError, match=message):
        topkfs.load(X_path, y_file=y_path, **options)


def test_none_and_numpy_values_of_reader_options_mean_what_python_means(npy_pair):
    X_path, y_path = npy_pair
    # None is the option's default (was the text 'None': "no array 'None'").
    assert topkfs.load(X_path, y_file=y_path, x_var=None, nan=None).X.shape == (60, 8)
    copied = topkfs.load(X_path, y_file=y_path, in_memory=np.bool_(True))
    assert copied.X.flags.writeable


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        ({"split": None}, TypeError, "split takes 'auto'"),
        ({"test_size": "0.2"}, TypeError, "test_size takes a fraction"),
        ({"split_seed": -1}, ValueError, "split_seed=-1 is out of range"),
        ({"split_seed": 2**64}, ValueError, "split_seed=.* is out of range"),
        ({"split_seed": 1.5}, TypeError, "split_seed takes a whole number"),
    ],
)
def test_select_arguments_of_the_wrong_type_name_the_argument(npy_pair, arguments, error, message):
    X_path, y_path = npy_pair
    with pytest.raises(error, match=message):
        topkfs.select(X_path, "lasso-top", 2, y_file=y_path, **arguments)


def test_fit_checkpoint_arguments_are_checked_before_the_fit():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 4)
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="checkpoint_every=2147483648 is out of range"):
        topkfs.TopKSelector("lasso-top", k=2).fit(X, y, checkpoint_every=2**31)
    with pytest.raises(TypeError, match="resume takes True or False"):
        topkfs.TopKSelector("lasso-top", k=2).fit(X, y, resume="yes")
    with pytest.raises(ValueError, match="give checkpoint=PATH"):
        topkfs.TopKSelector("lasso-top", k=2).fit(X, y, resume=True)


def test_distinct_class_names_stay_distinct_labels(tmp_path):
    # int() reads "1_0" as 10: the two classes became one label.
    rows = "".join(f"{i},{i % 3},{'1_0' if i % 2 else '10'}\n" for i in range(20))
    (tmp_path / "labels.csv").write_text("a,b,y\n" + rows)
    data = topkfs.load(tmp_path / "labels.csv")
    assert sorted(np.unique(data.y)) == ["10", "1_0"]
    rows = "".join(f"{i},{i % 3},{'3' if i % 2 else '10'}\n" for i in range(20))
    (tmp_path / "numbers.csv").write_text("a,b,y\n" + rows)
    numbers = topkfs.load(tmp_path / "numbers.csv")
    assert numbers.y.dtype.kind == "i" and sorted(np.unique(numbers.y)) == [3, 10]


@requires_neural
def test_fit_checkpoint_never_replaces_a_file_that_is_no_checkpoint(tmp_path):
    # fit(checkpoint=P) wrote its checkpoint over whatever P was.
    rng = np.random.RandomState(0)
    X = rng.randn(40, 4)
    y = (X[:, 0] > 0).astype(int)
    data = tmp_path / "data.csv"
    data.write_text("a,b\n1,2\n")
    selector = topkfs.TopKSelector("dnn-top", k=2, epochs=2, hidden=[4], threads=1)
    with pytest.raises(topkfs.FileError, match="is not a topkfs training checkpoint"):
        selector.fit(X, y, checkpoint=str(data))
    assert data.read_text() == "a,b\n1,2\n"


def test_a_reader_option_of_another_format_is_refused(tmp_path, npy_pair):
    # x_var for a CSV read the CSV's own columns, silently.
    path = tmp_path / "other-format.csv"
    path.write_text("a,b,y\n1,2,0\n3,4,1\n5,6,0\n7,8,1\n")
    for options, name in [
        ({"x_var": "A"}, "x_var is for MATLAB .mat and NPZ files"),
        ({"in_memory": True}, "in_memory is for .npy and NPZ files"),
        ({"y_path": "/y"}, "y_path is for HDF5 files"),
    ]:
        with pytest.raises(topkfs.OptionError, match=name + ".*other-format.csv is read as csv"):
            topkfs.load(path, **options)
    X_path, y_path = npy_pair
    with pytest.raises(topkfs.OptionError, match="header=False is for CSV and TSV files"):
        topkfs.load(X_path, y_file=y_path, header=False)
    with pytest.raises(topkfs.OptionError, match="target is for CSV and TSV files"):
        topkfs.load(X_path, y_file=y_path, target="y")
    with pytest.raises(topkfs.OptionError, match="y_file and no_target exclude each other"):
        topkfs.load(X_path, y_file=y_path, no_target=True)
    assert topkfs.load(path, header=True, delimiter=",").X.shape == (4, 2)
