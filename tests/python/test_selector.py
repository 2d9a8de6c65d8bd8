"""TopKSelector: fitting, the fitted attributes, targets, input layouts and
the method options."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import topkfs
from conftest import FAST_NEURAL, planted_classes, planted_regression, requires_neural

LINEAR = ["elastic-net-top", "lasso-top", "ridge-top", "elastic-net", "lasso", "ridge"]
NEURAL = ["dnn-top", "dfs", "stg", "concrete", "fir"]


def test_methods_lists_every_method_with_options_and_defaults():
    methods = topkfs.methods()
    for name in LINEAR:
        assert name in methods
    for name, method in methods.items():
        assert method["summary"]
        assert method["options"], name
        for option, info in method["options"].items():
            assert "-" not in option  # Python spelling
            assert set(info) == {"default", "help", "is_flag", "choices"}
            if info["choices"]:  # a choice's default is one of its names, or a number beside them
                assert isinstance(info["default"], str)
    if "dnn-top" in methods:
        options = methods["dnn-top"]["options"]
        assert options["hidden"]["default"] == [256, 128]
        assert options["epochs"]["default"] == 20
        assert options["weight_decay"]["default"] == 0.0
        assert methods["dfs"]["options"]["lambda3"]["default"] == 0.0
        assert options["w_step"]["choices"] == ["adam", "shared"]
        assert options["screen"]["choices"] == ["auto", "off"]
        assert options["epochs"]["choices"] == []
    assert methods["lasso-top"]["options"]["max_iter"]["default"] == 10000


@requires_neural
def test_fit_sets_the_documented_attributes(classes_data):
    X, y = classes_data
    selector = topkfs.TopKSelector("dnn-top", k=3, options=FAST_NEURAL).fit(X, y)
    m = X.shape[1]
    assert selector.n_features_in_ == m
    assert selector.selected_.shape == (3,)
    assert len(set(selector.selected_)) == 3
    assert selector.scores_.shape == (m,)
    # ranking_ is RFE's: rank of each column, 1 = best; selected_ is best first.
    assert sorted(selector.ranking_) == list(range(1, m + 1))
    assert list(selector.ranking_[selector.selected_]) == [1, 2, 3]
    assert list(np.argsort(selector.ranking_)) == selector.result_["ranking"]
    # Scores are |w|: the selected columns score highest.
    assert selector.scores_[selector.selected_].min() >= np.delete(
        selector.scores_, selector.selected_
    ).max()
    assert len(selector.history_) >= 1
    assert {"epoch", "loss", "seconds"} <= set(selector.history_[0])
    assert selector.history_[0]["epoch"] == 1
    assert selector.fit_seconds_ > 0
    assert selector.result_["method"] == "dnn-top"
    assert selector.result_["k"] == 3
    assert selector.result_["data"]["target_kind"] == "classes"
    assert selector.result_["data"]["columns"] == m
    assert list(selector.classes_) == [0, 1, 2]
    mask = selector.get_support()
    assert mask.dtype == bool and mask.sum() == 3
    assert set(np.flatnonzero(mask)) == set(selector.selected_)
    assert list(selector.get_support(indices=True)) == sorted(selector.selected_)
    Xt = selector.transform(X)
    assert Xt.shape == (X.shape[0], 3)
    np.testing.assert_array_equal(Xt, X[:, np.sort(selector.selected_)])
    assert list(selector.get_feature_names_out()) == [f"x{j}" for j in sorted(selector.selected_)]


@requires_neural
def test_dnn_top_finds_the_planted_columns():
    X, y = planted_classes(n=600, m=15, informative=(2, 7), classes=2, seed=3)
    selector = topkfs.TopKSelector(
        "dnn-top", k=2, epochs=30, hidden=[16], lr=0.01, threads=1, seed=0
    ).fit(X, y)
    assert set(selector.selected_) == {2, 7}


@requires_neural
def test_restarts_vote_and_report_each_columns_frequency():
    X, y = planted_classes(n=600, m=15, informative=(2, 7), classes=2, seed=3)
    options = dict(k=2, epochs=20, hidden=[16], lr=0.01, threads=1, seed=0)
    stable = topkfs.TopKSelector("dnn-top", restarts=3, subsample=0.5, **options).fit(X, y)
    assert set(stable.selected_) == {2, 7}
    assert stable.frequency_.shape == (15,)
    assert stable.frequency_[[2, 7]].tolist() == [1.0, 1.0]
    assert stable.frequency_.sum() == pytest.approx(2.0)  # each fit votes for k columns
    assert topkfs.TopKSelector("dnn-top", **options).fit(X, y).frequency_ is None


@pytest.mark.parametrize("method", LINEAR)
def test_linear_methods_find_the_planted_columns(method, regression_data):
    X, y = regression_data
    selector = topkfs.TopKSelector(method, k=3, threads=1).fit(X, y)
    assert set(selector.selected_) == {1, 4, 8}
    assert selector.result_["data"]["target_kind"] == "real"
    assert not hasattr(selector, "classes_")


def test_every_registered_method_is_reachable_by_name_with_every_option():
    X, y_real = planted_regression(n=80, m=6, informative=(0, 3))
    _, y_classes = planted_classes(n=80, m=6, informative=(0, 3), classes=2)
    for name, method in topkfs.methods().items():
        neural = name in NEURAL
        options = {option: info["default"] for option, info in method["options"].items()}
        if name == "dfs":
            del options["lambda3"]  # fixed at 0 for dfs: setting it is refused
        if neural:
            options.update(FAST_NEURAL)
        if "threads" in options:
            options["threads"] = 1
        selector = topkfs.TopKSelector(name, k=2, **options)
        selector.fit(X, y_classes if neural else y_real)
        assert selector.result_["method"] == name
        assert len(selector.selected_) == 2
        reported = selector.result_["options"]
        for option, value in options.items():
            assert reported[option.replace("_", "-")] == value, (name, option)


@requires_neural
def test_option_values_reach_the_library_as_given(classes_data):
    X, y = classes_data
    selector = topkfs.TopKSelector(
        "dnn-top",
        k=2,
        options={"hidden": (7, 3), "weight-decay": 1e-5},
        epochs=2,
        min_steps=0,
        lambda3=2,
        lr=np.float64(0.002),
        validation=0,
        threads=1,
    ).fit(X, y)
    reported = selector.result_["options"]
    assert reported["hidden"] == [7, 3]
    assert reported["weight-decay"] == 1e-5
    assert reported["epochs"] == 2
    assert reported["lambda3"] == 2.0
    assert reported["lr"] == 0.002
    assert len(selector.history_) == 2
    assert "val_loss" not in selector.history_[0]


@requires_neural
def test_none_means_the_method_default(classes_data):
    X, y = classes_data
    selector = topkfs.TopKSelector("dnn-top", k=2, options=dict(FAST_NEURAL, lr=None))
    selector.fit(X, y)
    assert selector.result_["options"]["lr"] == 3e-4  # dnn-top's own default


def test_regression_float_target_and_multi_output():
    X, y = planted_regression(outputs=2)
    assert y.shape == (200, 2)
    if "dnn-top" in topkfs.methods():
        selector = topkfs.TopKSelector("dnn-top", k=3, options=FAST_NEURAL).fit(X, y)
        assert selector.result_["data"]["target_kind"] == "real"
        assert selector.result_["options"]["task"] == "regression"
    # A single column given as (n, 1) is one target.
    selector = topkfs.TopKSelector("lasso-top", k=3, threads=1).fit(X, y[:, :1])
    assert set(selector.selected_) == {1, 4, 8}


@requires_neural
def test_class_labels_keep_their_values():
    X, codes = planted_classes(classes=3)
    names = np.array(["cat", "dog", "eel"])[codes]
    fast = dict(FAST_NEURAL)
    by_name = topkfs.TopKSelector("dnn-top", k=3, options=fast).fit(X, names)
    by_code = topkfs.TopKSelector("dnn-top", k=3, options=fast).fit(X, codes)
    assert list(by_name.classes_) == ["cat", "dog", "eel"]
    # Lexicographic names in the same order as the codes: the same problem.
    np.testing.assert_array_equal(by_name.selected_, by_code.selected_)
    # Non-contiguous integer labels, and a float-coded label vector read as classes.
    sparse_codes = np.array([10, 20, 35])[codes]
    by_value = topkfs.TopKSelector("dnn-top", k=3, options=fast).fit(X, sparse_codes)
    assert list(by_value.classes_) == [10, 20, 35]
    np.testing.assert_array_equal(by_value.selected_, by_code.selected_)
    as_float = topkfs.TopKSelector("dnn-top", k=3, options=fast, task="classification")
    as_float.fit(X, codes.astype(float))
    assert as_float.result_["options"]["task"] == "multiclass"
    np.testing.assert_array_equal(as_float.selected_, by_code.selected_)
    # Two classes (bool) use the sigmoid loss.
    binary = topkfs.TopKSelector("dnn-top", k=2, options=fast).fit(X, codes > 0)
    assert binary.result_["options"]["task"] == "binary"
    assert list(binary.classes_) == [False, True]


def test_task_regression_reads_integer_labels_as_values(regression_data):
    X, y = regression_data
    y_int = np.round(y * 100).astype(np.int64)
    selector = topkfs.TopKSelector("lasso-top", k=3, task="regression", threads=1).fit(X, y_int)
    assert selector.result_["data"]["target_kind"] == "real"
    assert set(selector.selected_) == {1, 4, 8}


@requires_neural
def test_every_layout_and_dtype_gives_the_same_selection(classes_data):
    """X is converted into the library's float32 matrix in one copy whatever
    its layout; values that float32 holds exactly give identical fits."""
    X, y = classes_data
    reference = topkfs.TopKSelector("dnn-top", k=4, options=FAST_NEURAL).fit(X, y)
    wide = np.zeros((X.shape[0], 2 * X.shape[1]), dtype=np.float32)
    wide[:, ::2] = X
    variants = {
        "float64": X.astype(np.float64),
        "fortran": np.asfortranarray(X),
        "strided": wide[:, ::2],
        "list": X.tolist(),
    }
    for name, variant in variants.items():
        selector = topkfs.TopKSelector("dnn-top", k=4, options=FAST_NEURAL).fit(variant, y)
        np.testing.assert_array_equal(selector.selected_, reference.selected_, err_msg=name)
        np.testing.assert_array_equal(selector.scores_, reference.scores_, err_msg=name)
    X_int = np.round(X * 4).astype(np.int32)
    a = topkfs.TopKSelector("dnn-top", k=4, options=FAST_NEURAL).fit(X_int, y)
    b = topkfs.TopKSelector("dnn-top", k=4, options=FAST_NEURAL).fit(X_int.astype(np.float32), y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    # The caller's array is left alone.
    before = X.copy()
    topkfs.TopKSelector("dnn-top", k=4, options=FAST_NEURAL).fit(X, y)
    np.testing.assert_array_equal(X, before)


@requires_neural
def test_same_seed_same_result_other_seed_other_weights(classes_data):
    X, y = classes_data
    a = topkfs.TopKSelector("dnn-top", k=3, options=FAST_NEURAL).fit(X, y)
    b = topkfs.TopKSelector("dnn-top", k=3, options=FAST_NEURAL).fit(X, y)
    c = topkfs.TopKSelector("dnn-top", k=3, options=dict(FAST_NEURAL, seed=1)).fit(X, y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert not np.array_equal(a.scores_, c.scores_)


def test_keyword_options_are_parameters():
    selector = topkfs.TopKSelector(
        "elastic-net-top", k=5, max_iter=300, tol=1e-6, options={"lambda1": 0.5}
    )
    params = selector.get_params()
    assert params["method"] == "elastic-net-top"
    assert params["k"] == 5
    assert params["max_iter"] == 300
    assert params["tol"] == 1e-6
    assert params["options"] == {"lambda1": 0.5}
    twin = clone(selector)
    assert twin.get_params() == params and twin is not selector
    selector.set_params(max_iter=700, path_points=20, k=2)
    assert selector.max_iter == 700 and selector.path_points == 20 and selector.k == 2
    assert "path_points=20" in repr(selector) and "max_iter=700" in repr(selector)
    with pytest.raises(ValueError, match="Invalid parameter"):
        selector.set_params(max_iterations=1)
    with pytest.raises(TypeError, match="max_iterations"):
        topkfs.TopKSelector(max_iterations=3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        topkfs.TopKSelector(fit=3)
    X, y = planted_regression()
    selector.fit(X, y)
    assert selector.result_["options"]["max-iter"] == 700
    assert selector.result_["options"]["lambda1"] == 0.5


def test_option_given_twice_is_an_error(regression_data):
    X, y = regression_data
    selector = topkfs.TopKSelector("lasso-top", k=3, options={"max-iter": 10}, max_iter=20)
    with pytest.raises(ValueError, match="both in options= and as a keyword"):
        selector.fit(X, y)


def test_fitted_selector_pickles(regression_data):
    X, y = regression_data
    selector = topkfs.TopKSelector("lasso-top", k=3, threads=1).fit(X, y)
    again = pickle.loads(pickle.dumps(selector))
    np.testing.assert_array_equal(again.transform(X), selector.transform(X))
    assert again.result_ == selector.result_


def test_library_warnings_arrive_as_fit_warnings(regression_data):
    X, y = regression_data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        topkfs.TopKSelector("lasso-top", k=3, max_iter=1, path_points=2, threads=1).fit(X, y)
    fit_warnings = [w for w in caught if issubclass(w.category, topkfs.FitWarning)]
    assert fit_warnings, [str(w.message) for w in caught]
    assert issubclass(topkfs.FitWarning, UserWarning)


@requires_neural
def test_verbose_prints_epochs_on_stderr(classes_data, capfd):
    X, y = classes_data
    topkfs.TopKSelector("dnn-top", k=2, options=FAST_NEURAL, verbose=True).fit(X, y)
    err = capfd.readouterr().err
    assert "epoch 1/4" in err
    assert "loss" in err


@requires_neural
def test_verbose_does_not_print_every_quick_epoch(classes_data, capfd):
    # 300 epochs of milliseconds: the first, the last and at most one line
    # every 2 s between them.
    X, y = classes_data
    options = dict(FAST_NEURAL, epochs=300, patience=1000)
    topkfs.TopKSelector("dnn-top", k=2, options=options, verbose=True).fit(X, y)
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("epoch ")]
    assert lines[0].startswith("epoch 1/300 ")
    assert lines[-1].startswith("epoch 300/300 ")
    assert len(lines) < 30, lines
