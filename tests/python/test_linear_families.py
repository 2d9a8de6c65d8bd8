"""The linear methods on class targets from Python: the family follows y
(two classes: binomial, more: multinomial), the planted columns are found,
and the choices that do not fit the target are refused with the reason."""

import numpy as np
import pytest

import topkfs
from conftest import planted_classes, planted_regression


@pytest.mark.parametrize("classes,family", [(2, "binomial"), (4, "multinomial")])
def test_class_targets_get_their_family_and_find_the_planted_columns(classes, family):
    X, y = planted_classes(n=400, m=20, informative=(3, 11), classes=classes, seed=4)
    selector = topkfs.TopKSelector("elastic-net-top", k=2, threads=1).fit(X, y)
    assert sorted(selector.selected_) == [3, 11]
    assert selector.result_["options"]["family_used"] == family
    model = selector.result_["options"]["model"]
    assert len(model["coefficients"]) == 20
    if family == "multinomial":
        assert len(model["intercept"]) == classes


def test_text_labels_and_the_gaussian_family_on_two_classes():
    X, y = planted_classes(n=300, m=10, informative=(1, 6), classes=2, seed=5)
    labels = np.array(["no", "yes"])[y]
    fitted = topkfs.TopKSelector("lasso", k=2, threads=1).fit(X, labels)
    assert fitted.result_["options"]["model"]["log_odds_of"] == "yes"
    regression = topkfs.TopKSelector("lasso", k=2, threads=1, family="gaussian").fit(X, labels)
    assert regression.result_["options"]["task"] == "binary-as-regression"
    assert sorted(regression.selected_) == [1, 6]


def test_families_that_do_not_fit_the_target_are_refused():
    X, y = planted_regression(n=100, m=10, seed=2)
    with pytest.raises(ValueError, match="needs a class target"):
        topkfs.TopKSelector("ridge-top", k=2, family="multinomial").fit(X, y)
    X, y = planted_classes(n=120, m=10, classes=3, seed=2)
    with pytest.raises(ValueError, match="use family='multinomial'"):
        topkfs.TopKSelector("ridge-top", k=2, family="binomial").fit(X, y)
    with pytest.raises(ValueError, match="scaling"):
        topkfs.TopKSelector("ridge-top", k=2, scaling="minmax").fit(X, y)


def test_unscaled_fits_rank_by_the_raw_coefficients():
    X, y = planted_regression(n=300, m=8, informative=(1, 4, 6), seed=3)
    # Column 1 in tiny units: standardising makes up for it, `none` does not.
    X = X.copy()
    X[:, 1] *= 1e-3
    standard = topkfs.TopKSelector("elastic-net-top", k=3, threads=1).fit(X, y)
    raw = topkfs.TopKSelector("elastic-net-top", k=3, threads=1, scaling="none",
                              screen_level=0).fit(X, y)
    assert sorted(standard.selected_) == [1, 4, 6]
    assert 1 not in raw.selected_
    # The marginal screen (the default) is free of units: it puts column 1,
    # which correlates with y, ahead of the columns that do not.
    screened = topkfs.TopKSelector("elastic-net-top", k=3, threads=1, scaling="none").fit(X, y)
    assert sorted(screened.selected_) == [1, 4, 6]
