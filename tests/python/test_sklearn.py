"""TopKSelector inside scikit-learn: check_estimator, Pipeline, GridSearchCV."""

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.estimator_checks import check_estimator

import topkfs
from conftest import FAST_NEURAL, planted_classes, requires_neural

# check_estimator's data: a few dozen rows and features. Small options keep
# each fit at a few milliseconds; the defaults are the real ones (20 epochs,
# 256-128 hidden units, and at least 2000 steps for dnn-top, 500 for the
# other networks: `min_steps`), which only make the checks slower (28 s
# instead of 1 s for dnn-top).
CHECKED = [
    ("dnn-top", {"epochs": 2, "min_steps": 0, "hidden": [4], "batch": 16, "threads": 1}, "auto"),
    ("dfs", {"epochs": 2, "min_steps": 0, "hidden": [4], "batch": 16, "threads": 1}, "auto"),
    # The linear models refuse more than two classes; the checks' integer
    # targets are read as values instead.
    ("elastic-net-top", {"threads": 1}, "regression"),
    ("lasso-top", {"threads": 1}, "regression"),
    ("ridge-top", {"threads": 1}, "regression"),
    ("elastic-net", {"threads": 1}, "regression"),
    ("lasso", {"threads": 1}, "regression"),
    ("ridge", {"threads": 1}, "regression"),
    ("random-forest", {"n_estimators": 10, "threads": 1}, "auto"),
    ("inffs", {}, "auto"),
    ("stg", {"epochs": 2, "min_steps": 0, "hidden": [4], "batch": 16, "threads": 1}, "auto"),
    ("concrete", {"epochs": 2, "min_steps": 0, "hidden": [4], "batch": 16, "threads": 1}, "auto"),
    ("fir", {"epochs": 2, "min_steps": 0, "hidden": [4], "batch": 16, "threads": 1}, "auto"),
]


@pytest.mark.parametrize("method,options,task", CHECKED, ids=[c[0] for c in CHECKED])
def test_check_estimator(method, options, task):
    if method not in topkfs.methods():
        pytest.skip(f"{method} is not built")
    # Every check runs; none is skipped (no _xfail_checks tag).
    check_estimator(topkfs.TopKSelector(method, k=1, options=options, task=task))


def test_check_estimator_with_keyword_options():
    # The **kwargs form is a parameter too: clone, set_params and
    # check_parameters_default_constructible work with it.
    selector = topkfs.TopKSelector("lasso-top", k=1, task="regression", threads=1, max_iter=500)
    for estimator, check in check_estimator(selector, generate_only=True):
        if "no_attributes_set_in_init" in getattr(check, "func", check).__name__:
            continue  # that check allows only the explicit __init__ arguments as attributes
        check(estimator)


@requires_neural
def test_pipeline_selects_then_classifies():
    X, y = planted_classes(n=400, m=20, informative=(3, 11), classes=2, seed=1)
    pipe = make_pipeline(
        topkfs.TopKSelector("dnn-top", k=2, epochs=25, hidden=[16], lr=0.01, threads=1),
        LogisticRegression(),
    )
    pipe.fit(X[:300], y[:300])
    selector = pipe[0]
    assert set(selector.selected_) == {3, 11}
    assert pipe.score(X[300:], y[300:]) > 0.85
    pipe.set_params(topkselector__epochs=3)
    assert pipe[0].epochs == 3


@requires_neural
def test_grid_search_over_k_and_options():
    X, y = planted_classes(n=240, m=10, informative=(1, 5), classes=2, seed=2)
    pipe = Pipeline(
        [
            ("select", topkfs.TopKSelector("dnn-top", k=1, options=FAST_NEURAL)),
            ("model", ExtraTreesClassifier(n_estimators=10, random_state=0)),
        ]
    )
    search = GridSearchCV(
        pipe,
        {
            "select__k": [1, 3],
            "select__options": [FAST_NEURAL, dict(FAST_NEURAL, hidden=[4])],
            "select__lambda3": [0.5, 1.0],
        },
        cv=3,
    )
    search.fit(X, y)
    assert set(search.best_params_) == {"select__k", "select__options", "select__lambda3"}
    assert search.best_params_["select__k"] in (1, 3)
    assert len(search.cv_results_["params"]) == 8
    best = search.best_estimator_.named_steps["select"]
    assert best.result_["options"]["lambda3"] == search.best_params_["select__lambda3"]


def test_grid_search_regression_with_a_linear_method():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 8))
    y = 2 * X[:, 0] - X[:, 6] + 0.1 * rng.normal(size=150)
    pipe = make_pipeline(topkfs.TopKSelector("lasso-top", threads=1), LinearRegression())
    search = GridSearchCV(pipe, {"topkselector__k": [1, 2, 4]}, cv=3).fit(X, y)
    assert search.best_params_["topkselector__k"] in (2, 4)
    assert set(search.best_estimator_[0].selected_[:2]) == {0, 6}
