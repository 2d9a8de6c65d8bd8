"""topkfs: supervised feature selection with top-k regularization.

The C++ library behind the ``topkfs`` command, for Python and scikit-learn:

* :class:`TopKSelector` -- every selection method of the library as a
  scikit-learn selector (``fit``, ``transform``, ``get_support``; works in
  ``Pipeline`` and ``GridSearchCV``).
* :func:`load` -- every data format the command reads, as NumPy arrays.
* :func:`select` -- ``topkfs select`` on a file, in process.
* :func:`convert` -- ``topkfs convert``: any data file to the float32 ``.npy``
  that is mapped from disk instead of loaded.
* :func:`methods` -- the methods with their options and defaults.

Errors carry the library's messages: ``FileError`` is an ``OSError``;
``DataError``, ``OptionError`` and ``TrainingError`` are ``ValueError``\\ s.
See docs/python.md.
"""

from ._errors import DataError, Error, FileError, FitWarning, OptionError, TrainingError
from ._files import Data, Split, convert, load, select
from ._options import methods
from ._selector import TopKSelector
from ._topkfs import __version__

__all__ = [
    "TopKSelector",
    "load",
    "select",
    "convert",
    "methods",
    "Data",
    "Split",
    "Error",
    "FileError",
    "DataError",
    "OptionError",
    "TrainingError",
    "FitWarning",
    "__version__",
]
