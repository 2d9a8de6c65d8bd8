"""TopKSelector: every method of the registry as a scikit-learn selector."""

import numbers
import os

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from . import _topkfs
from ._options import all_option_names, emit_log, method_has_option, option_texts, whole_number
from ._tables import encode_table, is_dataframe, table_columns

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # older: the estimator's own method

    def _validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)


_CLASS_KINDS = "biuUSO"  # bool, integers, text, objects: labels
_REAL_KINDS = "f"


def _allow_nan():
    """check_array's keyword that lets NaN through (renamed in scikit-learn 1.6)."""
    import inspect

    from sklearn.utils import check_array

    parameters = inspect.signature(check_array).parameters
    return {"ensure_all_finite" if "ensure_all_finite" in parameters else "force_all_finite":
            "allow-nan"}


# The methods in which a weight of 0 removes a row exactly (the linear
# models' weighted sums); the others draw minibatches, bootstrap samples or
# validation rows from every row, so removing one changes the draws.
_EXACT_WEIGHTS = {"lasso", "lasso-top", "ridge", "ridge-top", "elastic-net", "elastic-net-top"}
_INEXACT_WEIGHTS = (
    "a zero sample_weight leaves the row out of the loss, but the random draws (minibatches, "
    "bootstrap, validation rows) are of every row, so they differ from those without the row"
)
_INFFS_WEIGHTS = "inffs refuses sample weights (its graph has no weighted form)"
_WEIGHT_CHECKS = (
    "check_sample_weights_invariance",
    "check_sample_weights_not_an_array",
    "check_sample_weights_pandas_series",
    "check_sample_weights_list",
    "check_sample_weights_shape",
    "check_sample_weights_not_overwritten",
)



def _check_text(what, texts):
    """Refuses text that cannot be UTF-8 (a lone surrogate, as os.fsdecode
    makes of undecodable bytes): the library, its JSON and the command are
    UTF-8, where the command reads such names from a file as Latin-1."""
    for position, text in enumerate(texts):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(
                f"{what} {position} ({text!r}) is not valid Unicode text: it holds "
                f"{text[error.start]!r} (U+{ord(text[error.start]):04X}), a lone surrogate that "
                "UTF-8 cannot hold; decode the name's bytes with their real encoding"
            ) from None

class TopKSelector(SelectorMixin, BaseEstimator):
    """Selects the ``k`` features that best serve a learning model.

    Every method of the topkfs registry (``topkfs.methods()``) by name, with
    its options as keyword arguments or in a dict::

        TopKSelector("dnn-top", k=50, epochs=30, hidden=[256, 128], seed=7)
        TopKSelector("dnn-top", k=50, options={"epochs": 30, "hidden": [256, 128]})

    Both forms take the same names (``weight_decay`` or ``weight-decay``) and
    values (``[256, 128]``, ``True``, ``1e-4``) and are reported by
    ``get_params``, so ``clone``, ``set_params(epochs=5)``, ``Pipeline``
    (``select__epochs``) and ``GridSearchCV`` (``{"epochs": [5, 10]}`` or
    ``{"options": [{...}, {...}]}``) see them. An option left out, or set to
    ``None``, has the method's default. Names are checked when the selector is
    made (a typo is a ``TypeError``, as for any keyword argument); values when
    it is fitted (a bad one is a ``ValueError`` with the library's message).

    Parameters
    ----------
    method : str, default="dnn-top"
        A registered method (``topkfs.methods()`` lists them with their
        options): "dnn-top", "dfs", "elastic-net-top", "lasso-top",
        "ridge-top", "elastic-net", "lasso", "ridge", and the baselines
        "random-forest", "inffs", "stg", "concrete", "fir".
    k : int, float or "auto", default=10
        Number of features to select, 1..n_features (with ``groups``: of
        groups), a fraction of them in (0, 1) (``k=0.1`` keeps 10%, rounded,
        at least one), or "auto": chosen from a validation curve on the
        rows fitted (``k_max``, ``k_folds``, ``k_rule``; docs/algorithms.md,
        "Choosing k and the method"). ``method="auto"`` chooses between
        ``candidates`` the same way.
    candidates : sequence of str or None, default=None
        For method="auto": the methods to choose between (None: dnn-top,
        elastic-net-top, random-forest and elastic-net); the options apply to those that
        have them.
    k_max, k_folds, k_rule : int or None, int, {"1se", "best"}
        For k="auto": the grid's end (None: the smaller of the columns and
        100), the validation (0: 5 folds below 500 rows, else 2 folds for
        method="auto" and one part for one method; 1: one stratified 20%
        part; F: F folds) and
        the rule (the smallest k within one standard error of the best, or
        the best).
    options : dict, default=None
        Method options, name -> value (merged with the keyword options; an
        option given in both is an error).
    task : {"auto", "classification", "regression"}, default="auto"
        How to read y. "auto": integer, bool or text labels are classes
        (their original values are kept in ``classes_``); float y is real
        values (2-D float y: multi-output regression). Pass
        "classification" for float-coded labels.
    groups : sequence or dict, default=None
        Groups of columns selected whole (a pathway of genes, the channels of
        a sensor): one group label per column (None for a column of its own),
        or a dict of column (name or index) -> label. k then counts groups;
        ``selected_`` holds the columns of the selected groups and
        ``selected_groups_`` their labels. A DataFrame's text and category
        columns are groups of their one-hot columns anyway.
    random_state : int, default=None
        The seed of every random choice of the method (scikit-learn's name of
        the ``seed`` option, which stays as an alias); taken, and without
        effect, by the deterministic methods (lasso, ridge, elastic-net and
        their -top forms, inffs), so a ``GridSearchCV`` over methods can set
        it for all.
    verbose : bool, default=False
        Print the fit's progress (the first and last epoch, and at most one
        epoch's line every 2 s between them) and its notes on stderr.
    **method_options
        Method options as keyword arguments.

    Attributes
    ----------
    selected_ : ndarray of shape (k,)
        Column indices of the selected features, best first.
    scores_ : ndarray of shape (n_features,)
        The method's score per column (higher is better; |w| for the top-k
        methods).
    ranking_ : ndarray of shape (n_features,)
        Rank of each column, as scikit-learn's RFE: 1 is the best; the
        selected columns have ranks 1..k (with ``groups``: each column has
        its group's rank and score). ``np.argsort(ranking_)`` is the
        order best first (``result_["ranking"]``).
    frequency_ : ndarray of shape (n_features,) or None
        With ``restarts`` > 1 (dnn-top, dfs: stability selection), the
        fraction of the fits whose top k held each column; None otherwise.
    history_ : list of dict
        Per epoch (or sweep): ``epoch``, ``loss``, ``val_loss`` (when there is
        a validation split), ``seconds``.
    k_ : int
        The k of the fit (the chosen one for k="auto").
    k_curve_ : list of (k, mean, se)
        With k="auto" or method="auto": the chosen method's validation curve
        (accuracy %, or MAE for real targets).
    method_ : str
        The method fitted (the chosen one for method="auto").
    n_iter_ : int
        Entries in ``history_``: epochs run (neural methods; early stopping
        may end before ``epochs``), coordinate sweeps or path points (linear).
    fit_seconds_ : float
        Wall time of the fit in the library.
    result_ : dict
        The whole result, in the format ``topkfs select -o`` writes.
    classes_ : ndarray
        The class labels (classification only).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names (a DataFrame).

    Notes
    -----
    ``transform`` keeps the columns in their original order (scikit-learn's
    rule for selectors); ``X[:, selector.selected_]`` has them best first.
    X is copied once, into the library's float32 matrix; the GIL is released
    while the method trains.
    """

    def __init__(
        self,
        method="dnn-top",
        k=10,
        *,
        options=None,
        task="auto",
        groups=None,
        class_weight=None,
        random_state=None,
        candidates=None,
        k_max=None,
        k_folds=0,
        k_rule="1se",
        verbose=False,
        **method_options,
    ):
        self.method = method
        self.k = k
        self.options = options
        self.task = task
        self.groups = groups
        self.class_weight = class_weight
        self.random_state = random_state
        self.candidates = candidates
        self.k_max = k_max
        self.k_folds = k_folds
        self.k_rule = k_rule
        self.verbose = verbose
        for name, value in method_options.items():
            self._check_option_name(name, "__init__")
            setattr(self, name, value)

    # --- parameters: the explicit ones plus the method options given as keywords

    def get_params(self, deep=True):
        params = super().get_params(deep=deep)
        params.update(self._method_options())
        return params

    def set_params(self, **params):
        explicit = set(self._get_param_names())
        standard = {}
        for name, value in params.items():
            if name in explicit or "__" in name or name not in all_option_names():
                standard[name] = value  # BaseEstimator reports unknown names
            else:
                setattr(self, name, value)
        super().set_params(**standard)
        return self

    def _method_options(self):
        explicit = set(self._get_param_names())
        return {
            name: value
            for name, value in vars(self).items()
            if name not in explicit and not name.startswith("_") and not name.endswith("_")
        }

    @classmethod
    def _check_option_name(cls, name, where):
        if name.startswith("_") or name.endswith("_") or hasattr(cls, name):
            raise TypeError(f"TopKSelector.{where}() got an unexpected keyword argument {name!r}")
        if name not in all_option_names():
            known = ", ".join(sorted(all_option_names()))
            raise TypeError(
                f"TopKSelector.{where}() got an unexpected keyword argument {name!r}: no method "
                f"has an option of that name (the options: {known}; topkfs.methods() lists "
                "each method's)"
            )

    # --- fitting

    def fit(self, X, y=None, sample_weight=None, checkpoint=None, checkpoint_every=1,
            resume=False):
        """Runs the method on X, y and stores the selection.

        sample_weight: one weight >= 0 per row (scikit-learn's name; a
        Pipeline routes it as ``step__sample_weight``): a row of weight w
        counts as w copies in the method's loss, a tree's impurity and the
        downstream scores; 0 leaves the row out. ``class_weight`` (the
        constructor's) multiplies it per class.

        checkpoint: a file path (dnn-top and dfs): the training state is
        written there atomically every ``checkpoint_every`` epochs; with
        ``resume=True`` a fit whose checkpoint exists continues from it and
        ends with exactly the selection of an uninterrupted fit (the same X,
        y and options). Ctrl-C (KeyboardInterrupt) leaves the last
        checkpoint in place.

        Raises ValueError (topkfs.OptionError, DataError, TrainingError) with
        the library's message for a bad option, unusable data or a diverging
        fit, and KeyboardInterrupt on Ctrl-C.
        """
        # A fit that fails must not leave the selection of an earlier fit
        # beside this fit's n_features_in_: transform would then pick the old
        # columns out of new data without a word.
        self._forget_fit()
        # Text and category columns (a DataFrame's, an object array's) go to
        # the library as level codes with their names; NaN is a missing value,
        # imputed from the rows the method learns from.
        column_levels = []
        if table_columns(X):
            matrix, column_levels = encode_table(X)
            if is_dataframe(X):
                import pandas

                matrix = pandas.DataFrame(matrix, columns=X.columns, index=X.index)
            X = matrix
        X, y = _validate_data(
            self,
            X,
            y,
            accept_sparse=False,
            dtype="numeric",
            ensure_min_samples=2,
            multi_output=True,
            **_allow_nan(),
        )
        if not isinstance(self.method, str):
            raise ValueError(f"method must be a method name (a str), got {self.method!r}")
        n_features = X.shape[1]
        group_labels = self._group_labels(n_features)
        units = n_features  # what k counts: columns, or groups
        if group_labels:
            units = len(set(group_labels) - {None}) + group_labels.count(None)
        k = self._resolved_k(units, "group(s)" if group_labels else "feature(s)")
        checkpoint_every = whole_number("checkpoint_every", checkpoint_every, 1, 2**31 - 1)
        if not isinstance(resume, (bool, np.bool_)):
            raise TypeError(f"resume takes True or False, not {resume!r}")
        if resume and checkpoint is None:
            raise ValueError("resume=True continues from a checkpoint: give checkpoint=PATH")
        labels, class_names, targets = self._encode_target(y)
        weights = self._sample_weights(sample_weight, X.shape[0])
        class_weight = self._class_weights(class_names if labels is not None else None)
        feature_names = [str(name) for name in getattr(self, "feature_names_in_", [])]
        _check_text("method", [self.method])
        options = self._option_texts()
        _check_text("option", [f"{key}={value}" for key, value in options.items()])
        _check_text("feature name", feature_names)
        _check_text("class", class_names)
        _check_text("group", [label for label in group_labels if label is not None])
        for column, levels in enumerate(column_levels):
            _check_text(f"column {column}'s level", levels)
        result = _topkfs.fit_arrays(
            X,
            self.method,
            k,
            options,
            labels,
            class_names,
            targets,
            feature_names,
            column_levels if any(column_levels) else [],
            group_labels,
            bool(self.verbose),
            "" if checkpoint is None else os.fspath(checkpoint),
            int(checkpoint_every),
            bool(resume),
            self._choosing(),
            weights,
            class_weight,
        )
        emit_log(result, self.verbose)
        self._store(result, n_features)
        return self

    def _resolved_k(self, units, what):
        """k as a count: an integer in 1..units, or a fraction in (0, 1) of the
        units (scikit-learn's SelectPercentile keeps a share the same way);
        0 for "auto", which the library chooses."""
        k = self.k
        if isinstance(k, str) and k == "auto":
            return 0
        if isinstance(k, numbers.Real) and not isinstance(k, (bool, numbers.Integral)):
            if not 0 < k < 1:
                raise ValueError(
                    f"k={k!r}: a fraction of the features is above 0 and below 1 (k=0.1 keeps "
                    "10%); a count is an integer"
                )
            return max(1, int(round(k * units)))
        if isinstance(k, numbers.Integral) and not isinstance(k, bool) and 1 <= k <= units:
            return int(k)
        raise ValueError(
            f"k={k!r} is out of range: X has {units} {what}; choose an integer in 1..{units} or "
            "a fraction in (0, 1)"
        )

    def _choosing(self):
        """k="auto" and method="auto": the grid, the validation and the rule."""
        choosing = {
            "k_folds": whole_number("k_folds", self.k_folds, 0, 1000),
            "k_rule": str(self.k_rule),
        }
        if self.k_max is not None:
            choosing["k_max"] = whole_number("k_max", self.k_max, 1, 2**31 - 1)
        if self.random_state is not None:
            choosing["seed"] = whole_number("random_state", self.random_state, 0, 2**64 - 1)
        if self.candidates is not None:
            if isinstance(self.candidates, str) or not all(
                isinstance(name, str) for name in self.candidates
            ):
                raise TypeError(
                    f"candidates={self.candidates!r}: give a sequence of method names, e.g. "
                    '["dnn-top", "elastic-net"]'
                )
            choosing["candidates"] = list(self.candidates)
        return choosing

    def _group_labels(self, n_features):
        """One label (str) or None per column from ``groups``; [] without groups."""
        if self.groups is None:
            return []
        names = [str(n) for n in getattr(self, "feature_names_in_", [])]
        labels = [None] * n_features
        if hasattr(self.groups, "items"):
            for column, label in self.groups.items():
                if isinstance(column, str):
                    if column not in names:
                        raise ValueError(f"groups: no column named {column!r} in X")
                    index = names.index(column)
                elif isinstance(column, numbers.Integral) and 0 <= column < n_features:
                    index = int(column)
                else:
                    raise ValueError(f"groups: {column!r} is not a column of X (0..{n_features - 1})")
                labels[index] = str(label)
            return labels
        given = list(self.groups)
        if len(given) != n_features:
            raise ValueError(f"groups has {len(given)} labels for the {n_features} columns of X")
        return [None if label is None else str(label) for label in given]

    def _option_texts(self):
        """The method's options as text, random_state as its seed; a seed
        is left out for a method without one (a deterministic method)."""
        texts = option_texts(self.options, self._method_options())
        if self.random_state is not None:
            seed = option_texts(None, {"seed": self.random_state})["seed"]
            if texts.get("seed", seed) != seed:
                raise ValueError(
                    f"random_state={self.random_state!r} and seed={texts['seed']} disagree; "
                    "give one of them"
                )
            texts["seed"] = seed
        if "seed" in texts and self.method != "auto" and not method_has_option(self.method, "seed"):
            del texts["seed"]
        return texts

    @staticmethod
    def _sample_weights(sample_weight, n_rows):
        """sample_weight as float64, one per row; None when not given."""
        if sample_weight is None:
            return None
        try:
            weights = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"sample_weight: weights are numbers: {error}") from None
        if weights.ndim == 0:
            weights = np.full(n_rows, float(weights))
        if weights.shape != (n_rows,):
            raise ValueError(
                f"sample_weight has shape {weights.shape}; X has {n_rows} rows: give one weight "
                "per row"
            )
        return np.ascontiguousarray(weights)

    def _class_weights(self, class_names):
        """class_weight as the library takes it: "balanced", {class name: weight}
        (a class left out weighs 1), or None."""
        weight = self.class_weight
        if weight is None:
            return None
        if class_names is None:
            raise ValueError("class_weight needs class labels in y; this y is a real target")
        if isinstance(weight, str):
            if weight != "balanced":
                raise ValueError(
                    f"class_weight takes 'balanced', a dict of class: weight or None, not "
                    f"{weight!r}"
                )
            return weight
        if not isinstance(weight, dict):
            raise ValueError(
                f"class_weight takes 'balanced', a dict of class: weight or None, not {weight!r}"
            )
        named = {}
        for label, value in weight.items():
            name = str(label.item() if isinstance(label, np.generic) else label)
            if name not in class_names:
                raise ValueError(
                    f"class_weight names class {label!r}, which y does not hold (its classes: "
                    f"{', '.join(class_names)})"
                )
            named[name] = float(value)
        return named

    def _encode_target(self, y):
        """Class codes and names, or real targets (n x q), from y."""
        if hasattr(y, "toarray"):
            raise ValueError("y is a sparse matrix; pass a dense array")
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if self.task == "auto":
            if y.dtype.kind in _CLASS_KINDS:
                as_classes = True
            elif y.dtype.kind in _REAL_KINDS:
                as_classes = False
            else:
                raise ValueError(f"y has dtype {y.dtype}: give class labels or real values")
        elif self.task in ("classification", "regression"):
            as_classes = self.task == "classification"
        else:
            raise ValueError(
                f"task takes 'auto', 'classification' or 'regression', not {self.task!r}"
            )
        if not as_classes:
            try:
                targets = np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError) as error:
                raise ValueError(f"y: regression needs real values: {error}") from None
            self.__dict__.pop("classes_", None)
            return None, [], targets.reshape(targets.shape[0], -1)
        if y.ndim != 1:
            raise ValueError(
                f"y has {y.shape[1]} columns of class labels; classification takes one column "
                "(several columns of float values are multi-output regression)"
            )
        try:
            classes, codes = np.unique(y, return_inverse=True)
        except TypeError as error:
            raise ValueError(
                f"y: class labels must be all numbers or all strings: {error}"
            ) from None
        self.classes_ = classes
        return codes.astype(np.int32), [str(c) for c in classes], None

    _FITTED = (
        "result_",
        "selected_",
        "selected_groups_",
        "k_",
        "k_curve_",
        "method_",
        "scores_",
        "ranking_",
        "frequency_",
        "history_",
        "n_iter_",
        "fit_seconds_",
        "classes_",
        "n_features_in_",
        "feature_names_in_",
    )

    def _forget_fit(self):
        for name in self._FITTED:
            self.__dict__.pop(name, None)

    def _store(self, result, n_features):
        self.result_ = result
        scores = np.asarray([np.nan if s is None else s for s in result["scores"]], dtype=np.float64)
        order = np.asarray(result["ranking"], dtype=np.intp)
        ranking = np.empty(len(order), dtype=np.intp)
        ranking[order] = np.arange(1, len(order) + 1)
        frequency = (
            np.asarray(result["frequency"], dtype=np.float64) if "frequency" in result else None
        )
        if "groups" in result:
            # Per column, its group's: scikit-learn's attributes are per feature.
            group_of = np.empty(n_features, dtype=np.intp)
            for g, columns in enumerate(result["groups"]["columns"]):
                group_of[columns] = g
            self.selected_ = np.asarray(result["selected_columns"], dtype=np.intp)
            self.selected_groups_ = [result["groups"]["names"][g] for g in result["selected"]]
            scores, ranking = scores[group_of], ranking[group_of]
            frequency = None if frequency is None else frequency[group_of]
        else:
            self.selected_ = np.asarray(result["selected"], dtype=np.intp)
        self.scores_ = scores
        self.ranking_ = ranking
        self.frequency_ = frequency
        self.k_ = int(result["k"])
        self.method_ = result["method"]
        if "auto" in result:
            chosen = [c for c in result["auto"]["candidates"] if c["method"] == self.method_]
            self.k_curve_ = [(p["k"], p["mean"], p["se"]) for p in chosen[0]["curve"]]
        self.history_ = list(result["history"])
        self.n_iter_ = len(self.history_)
        self.fit_seconds_ = float(result["fit_seconds"])

    # --- selection

    def _get_support_mask(self):
        check_is_fitted(self, "selected_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask

    def _more_tags(self):
        # Text columns are categorical features (python/topkfs/_tables.py).
        tags = {"requires_y": True, "allow_nan": True, "X_types": ["2darray", "string"]}
        method = self.method if isinstance(self.method, str) else ""
        if method == "inffs":
            tags["_xfail_checks"] = {name: _INFFS_WEIGHTS for name in _WEIGHT_CHECKS}
        elif method not in _EXACT_WEIGHTS or self.k == "auto":
            tags["_xfail_checks"] = {"check_sample_weights_invariance": _INEXACT_WEIGHTS}
        return tags

    def __sklearn_tags__(self):  # scikit-learn >= 1.6
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        return tags
