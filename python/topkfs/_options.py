"""Method options between Python and the registry.

The registry names options as the command line does (``weight-decay``);
Python spells them with underscores (``weight_decay``). Values go to the
library as text, as a command-line flag would: ``[256, 128]`` becomes
``"256,128"``, ``True`` becomes ``"true"``, floats keep every digit, an image
shape ``(28, 28)`` becomes ``"28x28"``.
"""

import functools
import numbers
import sys
import warnings

import numpy as np

from . import _topkfs
from ._errors import FitWarning


def python_name(name):
    """``weight-decay`` -> ``weight_decay``."""
    return name.replace("-", "_")


def registry_name(name):
    """``weight_decay`` -> ``weight-decay``."""
    return name.replace("_", "-")


def option_text(name, value):
    """The text the library parses for option ``name`` set to ``value``."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        # Image shapes read "28x28", as topkfs.load's Data.image_shape gives them.
        separator = "x" if name in ("image_shape", "image-shape") else ","
        return separator.join(option_text(name, item) for item in value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    raise TypeError(
        f"option {name!r}: cannot pass a {type(value).__name__} ({value!r}); "
        "give a number, a string, a bool or a list of numbers"
    )


def whole_number(name, value, low, high):
    """``value`` as an int in ``low..high``: TypeError for anything but an
    integer (a bool included), ValueError outside the range. The library's
    arguments are 32- or 64-bit; pybind11 alone would answer a wrong type or
    an overflow with its own conversion message."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} takes a whole number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value!r} is out of range: choose from {low} to {high}")
    return int(value)


def methods():
    """Every selection method, with its options and their defaults.

    Returns a dict ``{method name: {"summary": str, "options": {option name:
    {"default": value, "help": str, "is_flag": bool, "choices": [str]}}}}``
    in registry order. Option names are the Python spelling (``weight_decay``),
    the keyword arguments :class:`topkfs.TopKSelector` takes. ``choices``
    lists the named values of a choice option (``["adam", "shared"]``), empty
    for the others; a choice that may also be a number (``screen``,
    ``max_features``) says so in its help.
    """
    out = {}
    for method in _topkfs.methods():
        options = {}
        for option in method["options"]:
            options[python_name(option["name"])] = {
                "default": option["default"],
                "help": option["help"],
                "is_flag": option["is_flag"],
                "choices": list(option["choices"]),
            }
        out[method["name"]] = {"summary": method["summary"], "options": options}
    return out


@functools.lru_cache(maxsize=None)
def method_has_option(method, name):
    """Whether registered method ``method`` takes option ``name`` (either
    spelling); False for a method that is not registered (the library then
    names it)."""
    for entry in _topkfs.methods():
        if entry["name"] == method:
            return any(python_name(o["name"]) == python_name(name) for o in entry["options"])
    return False


@functools.lru_cache(maxsize=None)
def all_option_names():
    """Every option name of every method (Python spelling)."""
    return frozenset(
        python_name(option["name"]) for method in _topkfs.methods() for option in method["options"]
    )


def option_texts(options, keywords):
    """Merges ``options`` (a dict) and keyword options into registry names -> text.

    ``None`` means the method's default and is left out. An option given in
    both places is an error rather than a silent precedence rule.
    """
    if options is None:
        options = {}
    if not hasattr(options, "items"):
        raise ValueError(
            f"options must be a dict of option name -> value, got {type(options).__name__}"
        )
    merged = {}
    for name, value in options.items():
        if not isinstance(name, str):
            raise ValueError(f"options: option names are strings, got {name!r}")
        merged[python_name(name)] = value
    for name, value in keywords.items():
        if name in merged:
            raise ValueError(
                f"option {name!r} is given both in options= and as a keyword argument; "
                "give it once"
            )
        merged[name] = value
    return {
        registry_name(name): option_text(name, value)
        for name, value in merged.items()
        if value is not None
    }


def emit_log(result, verbose):
    """Reports what the library logged during a fit: warnings as
    :class:`topkfs.FitWarning`, other messages on stderr when ``verbose``."""
    warned = set()
    for level, message in result.pop("log", []):
        if level == "warning":
            warned.add(message)
            warnings.warn(message, FitWarning, stacklevel=3)
        elif verbose:
            print(f"topkfs: {message}", file=sys.stderr)
    for message in result.get("warnings", []):
        if message not in warned:
            warnings.warn(message, FitWarning, stacklevel=3)
    if verbose:
        for note in result.get("notes", []):
            print(f"topkfs: note: {note}", file=sys.stderr)
