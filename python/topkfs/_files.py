"""Data files: :func:`load` reads every format the command line reads, and
:func:`select` runs a selection on a file exactly as ``topkfs select`` does."""

import dataclasses
import numbers
import os
import typing

import numpy as np

from . import _topkfs
from ._options import emit_log, option_texts, whole_number


class Split(typing.NamedTuple):
    """Row indices of a split that came with the data (int64 arrays)."""

    train: np.ndarray
    test: np.ndarray


@dataclasses.dataclass(frozen=True, eq=False)
class Data:
    """A data file as arrays. Unpacks as ``X, y = topkfs.load(path)``.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features), float32 or object
        The features, C-contiguous (the reader's own buffer: no copy was
        made); missing cells are NaN. A table with categorical columns (text
        in a CSV column, ``categorical=``) is an object array instead: those
        columns hold their levels as text (NaN where missing), the others
        floats, as :class:`TopKSelector` takes it.
    y : ndarray or None
        Class labels as in the file (int64 for integer labels, str otherwise),
        real targets as float64 (shape (n,) or (n, n_outputs)), or None when
        the file has no target.
    feature_names, target_names : list of str
    class_names : list of str or None
        The classes in label order (``np.unique(y)`` order), as text.
    split : Split or None
        The predefined train/test split (MNIST's 60000/10000, USPS's files).
    image_shape : tuple or None
        (height, width) or (height, width, channels) when rows are images.
    format, source : str
        The reader used and the path read.
    notes : list of str
        What the reader wants the user to know (e.g. dropped samples).
    """

    X: np.ndarray
    y: typing.Optional[np.ndarray]
    feature_names: typing.List[str]
    class_names: typing.Optional[typing.List[str]]
    target_names: typing.List[str]
    split: typing.Optional[Split]
    image_shape: typing.Optional[typing.Tuple[int, ...]]
    format: str
    source: str
    notes: typing.List[str]

    def __iter__(self):
        return iter((self.X, self.y))


def _labels_from_names(codes, names):
    """Class codes back to the labels as they were in the file: numbers when
    the names read as distinct numbers (int() also reads "1_0", "010" and
    other scripts' digits, and would merge "1_0" with "10"), else the names."""
    for kind in (int, float):
        try:
            values = [kind(name) for name in names]
        except ValueError:
            continue
        if len(set(values)) == len(names):
            return np.array(values)[codes]
    return np.asarray(names)[codes]


def load(path, **reader_options):
    """Reads a data file the way the ``topkfs`` command does.

    Parameters
    ----------
    path : str or os.PathLike
        CSV, TSV, LIBSVM, IDX (``.gz`` too), MATLAB ``.mat`` (v5, v7.3),
        HDF5, NPY, NPZ, or a folder holding the four MNIST-style IDX files.
    **reader_options
        The command's reader flags with underscores: ``format`` ("auto",
        "csv", ...), ``target`` (column name or index, or a list of them for
        multi-output), ``no_target`` (True: no target is read and ``y`` is
        None: every column of a CSV/TSV is a feature; X alone of a .mat,
        HDF5 or NPZ file; IDX images without labels), ``header`` (True/False/None = detect),
        ``delimiter`` (one character, "tab" or "space"), ``nan`` ("impute",
        the default: missing cells stay NaN for the selection to impute, a
        sample with a missing target is dropped; "error", "drop" or "keep":
        loaded as they are; :func:`select` and :func:`convert` refuse it),
        ``categorical``/``numeric`` (columns read as categorical or as
        numbers), ``max_levels``, ``na_values`` (more missing markers), ``task`` ("auto", "classification", "regression"),
        ``max_auto_classes``, ``x_var``/``y_var`` (.mat, .npz), ``x_path``/
        ``y_path`` (HDF5), ``labels`` (IDX labels file), ``y_file`` (NPY
        target file), ``image_shape`` ("28x28" or (28, 28)), ``in_memory``
        (True reads a float32 ``.npy``/``.npz`` into memory instead of
        mapping it).

    Returns
    -------
    Data
        ``X, y = load(path)`` unpacks the arrays; the other fields (split,
        names, image shape) are attributes. From a little-endian float32
        C-order ``.npy`` (or such an ``.npz`` member stored uncompressed), ``X``
        is a read-only view of the file mapped into memory, not a copy.

    Raises
    ------
    topkfs.FileError (OSError)
        The file cannot be opened or read.
    topkfs.DataError, topkfs.OptionError (ValueError)
        Malformed content, or options that do not fit the file.
    TypeError
        An unknown reader option.
    """
    raw = _topkfs.load(os.fspath(path), _fspath_values(reader_options))
    kind = raw["kind"]
    y = None
    class_names = None
    if kind == "classes":
        codes, class_names = raw["labels"]
        y = _labels_from_names(codes, class_names)
    elif kind == "real":
        y = raw["targets"]
        if y.shape[1] == 1:
            y = y[:, 0]
    split = Split(*raw["split"]) if raw["split"] is not None else None
    X = raw["X"]
    if any(raw["column_levels"]):
        X = _with_levels(X, raw["column_levels"])
    shape = raw["image_shape"]
    if shape is not None and shape[2] == 1:
        shape = shape[:2]
    return Data(
        X=X,
        y=y,
        feature_names=list(raw["feature_names"]),
        class_names=class_names,
        target_names=list(raw["target_names"]),
        split=split,
        image_shape=tuple(shape) if shape is not None else None,
        format=raw["format"],
        source=raw["source"],
        notes=list(raw["notes"]),
    )


def _with_levels(X, column_levels):
    """The float32 codes of categorical columns as their level texts."""
    out = X.astype(object)
    for j, levels in enumerate(column_levels):
        if not levels:
            continue
        names = np.array(list(levels) + [np.nan], dtype=object)
        codes = X[:, j]
        out[:, j] = names[np.where(np.isnan(codes), len(levels), codes).astype(np.intp)]
    return out


def convert(path, output, y_output=None, **reader_options):
    """Writes the data at ``path`` as ``topkfs convert`` does: the features as
    a little-endian float32 C-order ``.npy`` (``output``, with the target in
    ``y_output``), or one ``.npz`` holding ``X`` and ``Y``; the form that
    :func:`select` and :func:`load` map from disk instead of reading.

    The features are written in row blocks (HDF5 and .mat v7.3 above half
    the memory budget are mapped from a temporary file of
    ``tempfile.gettempdir()``), and both files atomically (on an error neither is
    left behind).
    ``reader_options`` are those of :func:`load` (but ``nan="keep"``, as
    ``topkfs convert`` refuses ``--nan keep``).

    Returns a dict: ``rows``, ``columns``, ``written`` (the paths), ``notes``
    (class codes, a predefined split that was not kept) and ``storage`` (how
    the source was read: "in memory", "mapped" or "row blocks").

    Raises
    ------
    topkfs.OptionError (ValueError)
        An output that is not ``.npy``/``.npz``, a target without
        ``y_output`` for an ``.npy`` output, an output naming the input.
    topkfs.FileError, topkfs.DataError
        As :func:`load`, and when an output cannot be written.
    """
    return _topkfs.convert(
        os.fspath(path),
        os.fspath(output),
        os.fspath(y_output) if y_output is not None else "",
        _fspath_values(reader_options),
    )


def select(
    path,
    method="dnn-top",
    k=10,
    *,
    options=None,
    split="auto",
    test_size=0.2,
    split_seed=0,
    verbose=False,
    checkpoint=None,
    checkpoint_every=1,
    resume=False,
    **reader_options,
):
    """Runs ``topkfs select PATH --method METHOD --k K ...`` in process.

    The library's pipeline from a file to a result, the one the command
    runs: HDF5 is read by row blocks for the methods that read by rows (the
    neural ones), and the rows a method learns from follow the command's
    rules: ``split="auto"`` uses the predefined training split where the
    data has one (MNIST, USPS) and every row otherwise; "predefined",
    "random" (stratified, ``test_size`` held out, seeded by ``split_seed``)
    and "none" (every row) as on the command line.

    ``k`` is a count (``12``), a percentage of the columns (``"10%"``, as
    ``--k 10%``) or a fraction of them in (0, 1) (``0.1``, as
    :class:`TopKSelector` takes it).

    ``checkpoint`` (a path) writes the training state there every
    ``checkpoint_every`` epochs, as ``--checkpoint``; with ``resume=True``
    the fit continues from it and gives the uninterrupted run's result
    (dnn-top and dfs).

    ``options`` holds the method's options (a dict, Python or command-line
    spelling); ``reader_options`` are those of :func:`load` (but
    ``nan="keep"``: a selection cannot take missing values left in).

    Returns the result as a dict in the format ``topkfs select -o`` writes
    (docs/result-format.md): ``selected``, ``ranking``, ``scores``,
    ``history``, ``options``, ``data``, ``notes``...
    """
    if not isinstance(split, str):
        raise TypeError(f"split takes 'auto', 'predefined', 'random' or 'none', not {split!r}")
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(test_size, numbers.Real):
        raise TypeError(f"test_size takes a fraction between 0 and 1, not {test_size!r}")
    result = _topkfs.select_file(
        os.fspath(path),
        str(method),
        _k_text(k),
        option_texts(options, {}),
        _fspath_values(reader_options),
        split,
        float(test_size),
        whole_number("split_seed", split_seed, 0, 2**64 - 1),
        bool(verbose),
        "" if checkpoint is None else os.fspath(checkpoint),
        whole_number("checkpoint_every", checkpoint_every, -(2**31), 2**31 - 1),
        bool(resume),
    )
    emit_log(result, verbose)
    return result


def _k_text(k):
    """k as the command reads it: "12", "10%"; a fraction in (0, 1) as its
    percentage."""
    if isinstance(k, str):
        return k
    if isinstance(k, (bool, np.bool_)):
        raise TypeError(f"k takes a count, a percentage such as '10%' or a fraction, not {k!r}")
    if isinstance(k, numbers.Integral):
        return str(int(k))
    if isinstance(k, numbers.Real) and 0 < k < 1:
        return format(float(k) * 100, ".15g") + "%"
    raise ValueError(
        f"k={k!r}: give a count (12), a percentage of the columns ('10%') or a fraction in (0, 1)"
    )


def _fspath_values(options):
    """Reader options for the library: None (the default) left out, the
    others as _library_value gives them."""
    return {name: _library_value(value) for name, value in options.items() if value is not None}


def _library_value(value):
    """A path-like value as its string, a NumPy scalar as its Python value."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, np.generic):
        return value.item()
    return value
