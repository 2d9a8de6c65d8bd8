"""Mixed-type tables from Python: DataFrames and object arrays with text,
category and missing cells; names out; random_state for every method."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier

import topkfs

from conftest import FAST_NEURAL, planted_classes, requires_neural

pandas = pytest.importorskip("pandas")


def planted_frame(n=300, seed=3):
    """The class follows `colour` (text) and `size` (numbers, 20% missing);
    `shade` (category), n1 and n2 (with missing cells) are noise."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], size=n)
    size = rng.normal(size=n)
    logit = np.where(np.isin(colour, ["red", "green"]), 2.5, -2.5) + 2.0 * size
    y = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    size[rng.uniform(size=n) < 0.2] = np.nan
    n2 = rng.normal(size=n)
    n2[rng.uniform(size=n) < 0.2] = np.nan
    colour = colour.astype(object)
    colour[rng.uniform(size=n) < 0.05] = None
    frame = pandas.DataFrame(
        {
            "colour": colour,
            "size": size,
            "shade": pandas.Categorical(rng.choice(["light", "dark"], size=n)),
            "n1": rng.normal(size=n),
            "n2": n2,
        }
    )
    return frame, y


def test_a_dataframe_with_text_category_and_missing_cells_selects_whole_columns():
    X, y = planted_frame()
    selector = topkfs.TopKSelector("random-forest", k=2, random_state=0).fit(X, y)
    assert set(selector.get_feature_names_out()) == {"colour", "size"}
    assert list(selector.feature_names_in_) == list(X.columns)
    assert selector.n_features_in_ == 5
    assert selector.scores_.shape == (5,)
    encoding = selector.result_["encoding"]
    assert encoding["columns"][0]["levels"] == ["blue", "green", "grey", "red"]
    assert encoding["columns"][0]["missing_level"]
    assert encoding["columns"][2]["kind"] == "categorical"
    assert encoding["columns"][4]["indicator"]


def test_set_output_pandas_gives_the_selected_original_columns_with_their_text():
    X, y = planted_frame()
    selector = topkfs.TopKSelector("random-forest", k=2).set_output(transform="pandas")
    reduced = selector.fit(X, y).transform(X)
    assert isinstance(reduced, pandas.DataFrame)
    assert list(reduced.columns) == ["colour", "size"]  # original order, as selectors keep
    assert reduced["colour"].iloc[0] == X["colour"].iloc[0]
    assert list(reduced.index) == list(X.index)


def test_an_object_array_reads_as_a_dataframe_does():
    X, y = planted_frame()
    from_frame = topkfs.TopKSelector("elastic-net-top", k=2).fit(X, y)
    from_array = topkfs.TopKSelector("elastic-net-top", k=2).fit(X.to_numpy(dtype=object), y)
    np.testing.assert_array_equal(from_frame.selected_, from_array.selected_)
    np.testing.assert_allclose(from_frame.scores_, from_array.scores_)
    assert set(from_array.selected_) == {0, 1}


def test_a_loaded_mixed_csv_gives_what_select_on_the_file_gives(tmp_path):
    X, y = planted_frame(n=200)
    frame = X.assign(label=y)
    path = tmp_path / "mixed.csv"
    frame.to_csv(path, index=False)
    data = topkfs.load(path)
    assert data.X.dtype == object
    assert data.X[0, 0] == frame["colour"].iloc[0] or data.X[0, 0] != data.X[0, 0]
    from_arrays = topkfs.TopKSelector("lasso-top", k=2).fit(data.X, data.y)
    from_file = topkfs.select(path, "lasso-top", 2, split="none")
    assert from_file["selected"] == list(from_arrays.selected_)
    assert from_file["selected_names"] == [data.feature_names[j] for j in from_arrays.selected_]
    # The same encoding; arrays carry no column names (x0, x1, ...).
    unnamed = [dict(c, name=None) for c in from_file["encoding"]["columns"]]
    assert unnamed == [dict(c, name=None) for c in from_arrays.result_["encoding"]["columns"]]


def test_nan_in_a_numeric_array_is_imputed():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = (X[:, 1] + X[:, 4] > 0).astype(int)
    X[rng.uniform(size=X.shape) < 0.1] = np.nan
    selector = topkfs.TopKSelector("random-forest", k=2).fit(X, y)
    assert set(selector.selected_) == {1, 4}
    assert selector.transform(X).shape == (200, 2)


def test_random_state_is_taken_by_every_method():
    X, y = planted_frame(n=150)
    for method in ["lasso", "ridge-top", "inffs", "random-forest"]:
        topkfs.TopKSelector(method, k=2, random_state=7).fit(X, y)
    with pytest.raises(ValueError, match="disagree"):
        topkfs.TopKSelector("random-forest", k=2, random_state=1, seed=2).fit(X, y)


@requires_neural
def test_random_state_is_the_seed_of_a_random_method():
    X, y = planted_frame(n=150)
    options = {k: v for k, v in FAST_NEURAL.items() if k != "seed"}
    by_seed = topkfs.TopKSelector("dnn-top", k=2, seed=5, **options).fit(X, y)
    by_state = topkfs.TopKSelector("dnn-top", k=2, random_state=5, **options).fit(X, y)
    np.testing.assert_array_equal(by_seed.scores_, by_state.scores_)


def test_a_grid_search_over_methods_sets_random_state_for_all():
    X, y = planted_classes(n=160, m=8, informative=(1, 5), classes=2, seed=2)
    pipeline = Pipeline(
        [
            ("select", topkfs.TopKSelector("lasso", k=2, random_state=0)),
            ("tree", DecisionTreeClassifier(random_state=0)),
        ]
    )
    grid = GridSearchCV(
        pipeline, {"select__method": ["lasso", "random-forest"], "select__k": [1, 2]}, cv=2
    )
    grid.fit(X, y)
    assert grid.best_params_["select__method"] in ("lasso", "random-forest")


def test_groups_are_selected_whole_and_k_counts_them():
    X, y = planted_classes(n=300, m=8, informative=(1, 5), classes=2, seed=3)
    groups = ["a", "b", "b", "c", "c", "d", "e", "e"]  # columns 1 and 5 in groups b and d
    selector = topkfs.TopKSelector("random-forest", k=2, groups=groups).fit(X, y)
    assert sorted(selector.selected_groups_) == ["b", "d"]
    assert sorted(selector.selected_) == [1, 2, 5]
    assert selector.get_support().sum() == 3
    assert selector.ranking_[1] == selector.ranking_[2]  # one group, one rank
    by_name = topkfs.TopKSelector("random-forest", k=2, groups={1: "b", 2: "b"}).fit(X, y)
    assert 1 in by_name.selected_ and 2 in by_name.selected_ or 1 not in by_name.selected_
    with pytest.raises(ValueError, match="groups has 3 labels for the 8 columns"):
        topkfs.TopKSelector("lasso", k=1, groups=["a", "b", "c"]).fit(X, y)
    with pytest.raises(ValueError, match=r"k=7 is out of range: X has 5 group\(s\)"):
        topkfs.TopKSelector("lasso", k=7, groups=groups).fit(X, y)


def test_k_as_a_fraction_keeps_that_share_of_the_columns_or_groups():
    X, y = planted_classes(n=200, m=20, informative=(1, 5), classes=2, seed=3)
    assert len(topkfs.TopKSelector("lasso", k=0.1).fit(X, y).selected_) == 2
    assert len(topkfs.TopKSelector("lasso", k=0.01).fit(X, y).selected_) == 1  # at least one
    grouped = topkfs.TopKSelector("lasso", k=0.5, groups=[str(j // 2) for j in range(20)])
    assert len(grouped.fit(X, y).selected_groups_) == 5  # half of 10 groups


def test_k_auto_and_method_auto_choose_on_the_rows_fitted():
    X, y = planted_classes(n=400, m=40, informative=(3, 11, 20, 31), classes=2, seed=5)
    selector = topkfs.TopKSelector(
        "auto", k="auto", k_max=12, random_state=0, min_steps=200, threads=1
    ).fit(X, y)
    assert selector.method_ in ("dnn-top", "elastic-net-top", "random-forest", "elastic-net")
    assert selector.k_ == len(selector.selected_)
    # The grid up to k_max, and perhaps points refined below the choice.
    assert {1, 2, 3, 5, 8, 11, 12} <= {point[0] for point in selector.k_curve_}
    candidates = {c["method"] for c in selector.result_["auto"]["candidates"]}
    assert candidates == {"dnn-top", "elastic-net-top", "random-forest", "elastic-net"}
    fixed = topkfs.TopKSelector("lasso", k="auto", k_folds=3, k_rule="best").fit(X, y)
    assert fixed.result_["auto"]["k_rule"] == "best"
    assert "3 stratified folds" in fixed.result_["auto"]["validation"]
    with pytest.raises(ValueError, match="k_rule|--k-rule"):
        topkfs.TopKSelector("lasso", k="auto", k_rule="median").fit(X, y)


def test_method_auto_chooses_between_the_candidates_given():
    X, y = planted_classes(n=300, m=30, informative=(2, 9, 17), classes=2, seed=6)
    selector = topkfs.TopKSelector(
        "auto", k=3, candidates=["lasso", "random-forest"], random_state=0
    ).fit(X, y)
    assert selector.method_ in ("lasso", "random-forest")
    reported = selector.result_["auto"]["candidates"]
    assert [c["method"] for c in reported] == ["lasso", "random-forest"]
    for candidate in reported:  # 5 folds below 500 rows, each fold's score kept
        assert len(candidate["parts"]) == 5
    with pytest.raises(ValueError, match="candidates"):
        topkfs.TopKSelector("auto", k=3, candidates=["lasso", "nope"]).fit(X, y)
    with pytest.raises(ValueError, match="candidates"):
        topkfs.TopKSelector("lasso", k=3, candidates=["ridge"]).fit(X, y)
    with pytest.raises(TypeError, match="candidates"):
        topkfs.TopKSelector("auto", k=3, candidates="lasso").fit(X, y)
