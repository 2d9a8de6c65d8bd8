"""Mixed-type tables from Python: the text and category columns of a pandas
DataFrame or a NumPy object array as level codes, missing values as NaN.

The library encodes them as the command does for a CSV (docs/data-
preparation.md, "Mixed-type tables"): levels and imputation are learned from
the rows a fit learns from, and every original column is selected whole.
pandas is optional: it is imported only when X is a DataFrame.
"""

import math
import numbers

import numpy as np

from . import _topkfs

# The command's missing markers (one list, in the library): a text cell that
# reads as one of these is a missing value here too.
MISSING_TEXTS = frozenset(_topkfs.missing_markers())


def is_dataframe(X):
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc")


def _is_missing(value):
    if value is None:
        return True
    if isinstance(value, str):
        return value in MISSING_TEXTS
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return math.isnan(value)
    try:  # pandas.NA, pandas.NaT
        import pandas

        return value is pandas.NA or value is pandas.NaT
    except ImportError:
        return False


def _is_number(value):
    return isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_))


def level_name(value):
    """A cell's level as the command names it: integers plainly ("3", not
    "3.0"), other numbers as Python prints them, text as it is."""
    if _is_number(value):
        number = float(value)
        if number.is_integer() and abs(number) < 1e15:
            return str(int(number))
        return repr(number)
    return str(value)


def _natural_key(name):
    """Numbers by value, before text in byte order (the command's order)."""
    try:
        number = float(name)
        if math.isfinite(number):
            return (0, number, "")
    except ValueError:
        pass
    return (1, 0.0, name)


def _categorical(values):
    """Float codes (NaN where missing) and the sorted level names of a column."""
    names = [None if _is_missing(v) else level_name(v) for v in values]
    levels = sorted({n for n in names if n is not None}, key=_natural_key)
    index = {name: i for i, name in enumerate(levels)}
    codes = np.array([np.nan if n is None else index[n] for n in names], dtype=np.float32)
    return codes, levels


def _numeric(values):
    """The column as float32 (missing cells NaN), or None when a cell is text."""
    out = np.empty(len(values), dtype=np.float32)
    for i, v in enumerate(values):
        if _is_missing(v):
            out[i] = np.nan
        elif _is_number(v):
            out[i] = float(v)
        else:
            return None
    return out


def _column_kind(column):
    """'number', 'category' or 'object' for a DataFrame column's dtype."""
    dtype = column.dtype
    if getattr(dtype, "name", "") == "category":
        return "category"
    if getattr(dtype, "kind", "O") in "biuf":
        return "number"
    return "object"


def table_columns(X):
    """Whether X holds text or category columns: then the library must be
    given level codes and names (encode_table)."""
    if is_dataframe(X):
        return any(_column_kind(X.iloc[:, j]) != "number" for j in range(X.shape[1]))
    return isinstance(X, np.ndarray) and X.dtype.kind == "O"


def encode_table(X):
    """(float32 matrix, column_levels) of a DataFrame or object array: a text
    or category column as codes into its levels, a column of numbers as
    numbers; column_levels[j] is empty for a numeric column. Missing cells
    (None, NaN, pandas.NA, the command's missing texts) are NaN."""
    if is_dataframe(X):
        columns = [(X.iloc[:, j], _column_kind(X.iloc[:, j])) for j in range(X.shape[1])]
        rows = len(X)
    else:
        X = np.asarray(X, dtype=object)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (samples x features), got {X.ndim} dimension(s)")
        columns = [(list(X[:, j]), "object") for j in range(X.shape[1])]
        rows = X.shape[0]
    matrix = np.empty((rows, len(columns)), dtype=np.float32)
    levels = []
    for j, (values, kind) in enumerate(columns):
        if kind == "number":  # a pandas column of numbers, nullable ones too
            matrix[:, j] = values.to_numpy(dtype=np.float32, na_value=np.nan)
            levels.append([])
            continue
        values = list(values)
        numbers_only = None if kind == "category" else _numeric(values)
        if numbers_only is not None:
            matrix[:, j] = numbers_only
            levels.append([])
        else:
            matrix[:, j], names = _categorical(values)
            levels.append(names)
    return matrix, levels
