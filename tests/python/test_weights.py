"""Sample and class weights from Python: fit(X, y, sample_weight=...) and
class_weight= as scikit-learn has them, routed through a Pipeline; a weight
of 0 removes a row and 2 duplicates it."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.class_weight import compute_sample_weight

import topkfs

from conftest import FAST_NEURAL, planted_classes, requires_neural


def weighted_regression(n=200, m=10, seed=4):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, m)) * 256) / 256
    y = 2 * X[:, 1] - X[:, 4] + 0.3 * rng.normal(size=n)
    weights = rng.choice([0.0, 1.0, 2.0], size=n, p=[0.2, 0.5, 0.3])
    expanded = np.repeat(np.arange(n), weights.astype(int))
    return X.astype(np.float32), y, weights, expanded


def tight(method, k):
    return topkfs.TopKSelector(method, k=k, tol=1e-14, max_iter=100000)


@pytest.mark.parametrize("method", ["lasso-top", "ridge", "elastic-net-top"])
def test_zero_removes_and_two_duplicates_in_the_linear_models(method):
    X, y, weights, expanded = weighted_regression()
    weighted = tight(method, 3).fit(X, y, sample_weight=weights)
    copies = tight(method, 3).fit(X[expanded], y[expanded])
    np.testing.assert_allclose(weighted.scores_, copies.scores_, rtol=0, atol=1e-9)
    assert list(weighted.selected_) == list(copies.selected_)


def test_balanced_class_weight_is_scikit_learns_balanced_sample_weight():
    X, y = planted_classes(n=300, classes=3, seed=2)
    keep = np.concatenate([np.flatnonzero(y != 2), np.flatnonzero(y == 2)[:20]])
    X, y = X[keep], y[keep]  # class 2 is rare
    balanced = topkfs.TopKSelector("lasso-top", k=2, class_weight="balanced", tol=1e-12)
    balanced.fit(X, y)
    by_rows = topkfs.TopKSelector("lasso-top", k=2, tol=1e-12)
    by_rows.fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_allclose(balanced.scores_, by_rows.scores_, rtol=0, atol=1e-9)
    plain = topkfs.TopKSelector("lasso-top", k=2, tol=1e-12).fit(X, y)
    assert not np.allclose(plain.scores_, balanced.scores_)
    # A dict names classes as y holds them; a class left out weighs 1.
    as_dict = topkfs.TopKSelector("lasso-top", k=2, class_weight={2: 3.0}, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(
        as_dict.scores_,
        by_rows.set_params().fit(X, y, sample_weight=np.where(y == 2, 3.0, 1.0)).scores_,
        atol=1e-9,
    )


def test_a_pipeline_routes_sample_weight_to_the_selector():
    X, y, weights, expanded = weighted_regression(seed=6)
    pipe = Pipeline([("select", tight("lasso-top", 2)), ("model", LinearRegression())])
    pipe.fit(X, y, select__sample_weight=weights, model__sample_weight=weights)
    direct = tight("lasso-top", 2).fit(X, y, sample_weight=weights)
    assert list(pipe.named_steps["select"].selected_) == list(direct.selected_)
    assert set(direct.selected_) == {1, 4}


def test_the_trees_and_the_networks_take_weights():
    X, y, weights, expanded = weighted_regression(n=300, seed=8)
    forest = topkfs.TopKSelector("random-forest", k=2, random_state=0)
    assert set(forest.fit(X, y, sample_weight=weights).selected_) == {1, 4}
    # Rows of weight 0 leave the forest: the same trees as without them
    # (extra-trees draw no bootstrap, so the rows that remain decide alone).
    alone = topkfs.TopKSelector("random-forest", k=2, random_state=0, kind="extra-trees")
    kept = weights > 0
    zero_or_one = np.where(kept, 1.0, 0.0)
    np.testing.assert_allclose(
        alone.fit(X, y, sample_weight=zero_or_one).scores_,
        topkfs.TopKSelector("random-forest", k=2, random_state=0, kind="extra-trees")
        .fit(X[kept], y[kept])
        .scores_,
        atol=1e-12,
    )


@requires_neural
def test_dnn_top_learns_from_the_weighted_rows():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 8)).astype(np.float32)
    good = np.arange(400) < 300
    y = np.where(good, X[:, 0] - X[:, 2], 3 * X[:, 5])
    options = dict(FAST_NEURAL, epochs=60)
    selector = topkfs.TopKSelector("dnn-top", k=2, **options)
    selector.fit(X, y, sample_weight=good.astype(float))
    assert set(selector.selected_) == {0, 2}
    # Unweighted, the last hundred rows pull column 5 in.
    assert 5 in topkfs.TopKSelector("dnn-top", k=2, **options).fit(X, y).selected_


@pytest.mark.parametrize(
    "weights, message",
    [
        (np.array([1.0, -1.0] + [1.0] * 58), "row 2 is -1"),
        (np.array([1.0, np.nan] + [1.0] * 58), "row 2 is nan"),
        (np.zeros(60), "every sample weight is 0"),
        (np.ones(59), "give one weight per row"),
    ],
)
def test_bad_sample_weights_are_refused(weights, message):
    X, y = planted_classes(n=60, classes=2)
    with pytest.raises(ValueError, match=message):
        topkfs.TopKSelector("lasso", k=2).fit(X, y, sample_weight=weights)


def test_bad_class_weights_are_refused():
    X, y = planted_classes(n=60, classes=2)
    with pytest.raises(ValueError, match="does not hold"):
        topkfs.TopKSelector("lasso", k=2, class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="'balanced', a dict"):
        topkfs.TopKSelector("lasso", k=2, class_weight="even").fit(X, y)
    with pytest.raises(ValueError, match="real target"):
        topkfs.TopKSelector("lasso", k=2, class_weight="balanced").fit(X, y + 0.5)
