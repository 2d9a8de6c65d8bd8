"""The exceptions and warnings of topkfs.

The library's errors arrive with its messages (which name the input, the
place and the fix) as these classes:

* ``FileError`` (an ``OSError``): a file that cannot be opened or read.
* ``DataError``, ``OptionError``, ``TrainingError`` (``ValueError``\\ s):
  malformed data, a bad option value, a diverging fit.

``Error`` (a ``ValueError``) is the base of the last three; catching
``ValueError`` and ``OSError`` covers everything.
"""

from ._topkfs import DataError, Error, FileError, OptionError, TrainingError


class FitWarning(UserWarning):
    """A warning the library raised during a fit (e.g. a solver that ran out of
    iterations before the selection was stable)."""


# Shown and pickled as topkfs.DataError, ..., where users import them from.
for _type in (Error, FileError, DataError, OptionError, TrainingError):
    _type.__module__ = "topkfs"

__all__ = ["Error", "FileError", "DataError", "OptionError", "TrainingError", "FitWarning"]
