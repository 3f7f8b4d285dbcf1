"""nbfast.explain and nbfast.top_features: per-feature terms of Naive Bayes log-odds.

Explanations: the prior, baseline and per-feature terms of every row sum to the difference of the joint
log-likelihoods (predict_joint_log_proba) of the predicted class and the runner-up, for every estimator, on CSR
rows, without densifying.  Top features: correct on a corpus built so that the answer is known.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import FLOAT_DTYPES, INDEX_DTYPES, NB_FAMILY, as_container, data_for, nb_estimator, read_only

import nbfast

#: Estimators (and configurations) whose explanations must add up.
CONFIGURATIONS = [(name, {}) for name in NB_FAMILY] + [
    ("BernoulliNB", {"binarize": None}),
    ("BernoulliNB", {"binarize": 1.5}),
    ("ComplementNB", {"norm": True}),
    ("PoissonNB", {"alpha": 0.3, "beta": 2.0}),
    ("CategoricalNB", {"max_categories": 3}),
    ("GaussianNB", {"variance": "feature"}),
    ("GaussianNB", {"variance": "global", "ddof": 1}),
]


def with_peak_memory(call):
    """``(call(), the peak of the memory Python allocated during it)``, by tracemalloc."""
    tracemalloc.start()
    try:
        return call(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def check_sums(model, X, explanation):
    """The explanation's terms add up to jll(predicted) - jll(runner-up), to 1e-9."""
    jll = model.predict_joint_log_proba(X)
    order = np.argsort(-jll, axis=1, kind="stable")
    rows = np.arange(jll.shape[0])
    np.testing.assert_array_equal(explanation.predicted, model.predict(X))
    np.testing.assert_array_equal(explanation.runner_up, model.classes_[order[:, 1]])
    expected = jll[rows, order[:, 0]] - jll[rows, order[:, 1]]
    np.testing.assert_allclose(explanation.difference, expected, rtol=0, atol=1e-9)
    terms = np.asarray(explanation.terms.sum(axis=1)).reshape(-1)
    np.testing.assert_allclose(explanation.prior + explanation.baseline + terms, expected, rtol=0, atol=1e-9)
    listed = explanation.contributions.sum(axis=1) + explanation.rest
    np.testing.assert_allclose(explanation.prior + explanation.baseline + listed, expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name, params", CONFIGURATIONS, ids=lambda v: str(v) if isinstance(v, str) else
                         "-".join(f"{k}={p}" for k, p in v.items()) or "default")
@pytest.mark.parametrize("n_classes", [2, 4])
def test_terms_sum_to_the_joint_log_likelihood_difference(name, params, n_classes):
    X, y = data_for(name, n_samples=160, n_features=15, n_classes=n_classes, seed=n_classes)
    if name == "GaussianNB":
        X = np.where(np.random.default_rng(0).random(X.shape) < 0.4, 0.0, X)  # zeros: left out of the terms
    if params.get("binarize", 0.0) is None:
        X = (X > 0).astype(np.float64)  # binary already
    model = nb_estimator(name, **params).fit(X[:100], y[:100])
    explanation = nbfast.explain(model, X[100:], n=4)
    check_sums(model, X[100:], explanation)
    assert explanation.features.shape == (60, 4)


@pytest.mark.parametrize("container", ["csr_matrix", "csr_array", "dense"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "CategoricalNB", "GaussianNB"])
def test_every_input_layout(name, container, dtype, index_dtype):
    X, y = data_for(name, n_samples=80, n_classes=3, seed=7)
    model = nb_estimator(name).fit(X, y)
    X_test = read_only(as_container(sp.csr_array(X), container, dtype, index_dtype))
    check_sums(model, X_test, nbfast.explain(model, X_test))


def test_one_and_two_threads_agree(n_threads_limit):
    X, y = data_for("PoissonNB", n_samples=300, n_classes=3)
    model = nbfast.PoissonNB().fit(X, y)
    with n_threads_limit(1):
        one = nbfast.explain(model, X)
    with n_threads_limit(2):
        two = nbfast.explain(model, X)
    np.testing.assert_array_equal(one.terms.toarray(), two.terms.toarray())
    np.testing.assert_array_equal(one.features, two.features)


def test_mixed_model_with_overlapping_parts():
    rng = np.random.default_rng(3)
    counts, y = data_for("MultinomialNB", n_samples=150, n_features=10, n_classes=3, seed=3)
    real = rng.normal(size=(150, 3)) + y[:, None]
    codes = rng.integers(0, 3, size=(150, 2)).astype(float)
    X = np.hstack([counts.toarray() if sp.issparse(counts) else counts, real, codes])
    model = nbfast.MixedNB([
        ("words", nbfast.MultinomialNB(), slice(0, 10)),
        ("flags", nbfast.BernoulliNB(), [0, 1, 2]),  # columns also in "words": their terms add up
        ("real", nbfast.GaussianNB(), slice(10, 13)),
        ("codes", nbfast.CategoricalNB(), [13, 14]),
    ], class_prior=[0.2, 0.3, 0.5]).fit(X[:100], y[:100])
    explanation = nbfast.explain(model, X[100:])
    check_sums(model, X[100:], explanation)
    assert explanation.terms.shape == (50, 15)
    assert np.all(explanation.prior != 0)  # the shared prior, not the parts'


def test_mixed_model_with_a_scikit_learn_part_is_refused():
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    X, y = data_for("MultinomialNB", n_samples=40)
    model = nbfast.MixedNB([("sk", sk_nb.MultinomialNB(), slice(None))]).fit(X, y)
    with pytest.raises(TypeError, match="'sk' .* is not an nbfast estimator"):
        nbfast.explain(model, X)
    with pytest.raises(TypeError, match="'sk' .* is not an nbfast estimator"):
        nbfast.top_features(model)


def test_the_listed_terms_are_the_largest_of_the_row():
    X, y = data_for("MultinomialNB", n_samples=120, n_features=40, n_classes=3, seed=9)
    model = nbfast.MultinomialNB().fit(X, y)
    explanation = nbfast.explain(model, X, n=5)
    terms = explanation.terms.toarray()
    for i in range(X.shape[0]):
        nonzero = np.flatnonzero(terms[i])
        expected = nonzero[np.lexsort((nonzero, -np.abs(terms[i, nonzero])))][:5]
        shown = explanation.features[i][explanation.features[i] >= 0]
        np.testing.assert_array_equal(shown, expected)
        np.testing.assert_array_equal(explanation.contributions[i, :len(shown)], terms[i, shown])
        assert explanation.n_rest[i] == max(len(nonzero) - 5, 0)


def test_rows_with_few_features_are_padded_and_columns_stored_twice_are_summed():
    X = np.array([[3, 0, 0, 1], [0, 2, 0, 0], [1, 1, 1, 1]])
    model = nbfast.MultinomialNB().fit(X, ["a", "b", "a"])
    X_test = sp.csr_array((np.array([1.0, 2.0, 1.0]), np.array([0, 0, 1]), np.array([0, 2, 3, 3])), shape=(3, 4))
    explanation = nbfast.explain(model, X_test, n=3)
    check_sums(model, X_test, explanation)
    assert explanation.features[0].tolist() == [0, -1, -1]  # column 0 stored twice: one term
    assert explanation.features[2].tolist() == [-1, -1, -1]  # an empty row: prior and baseline only
    assert explanation.names[2].tolist() == ["", "", ""]
    assert X_test.indices.tolist() == [0, 0, 1]  # the input is left as it was


def test_explanations_do_not_densify():
    n_features = 1 << 20
    rng = np.random.default_rng(0)
    rows, columns = rng.integers(60, size=6_000), rng.integers(n_features, size=6_000)  # density about 1e-4
    X = sp.csr_matrix((np.ones(rows.size), (rows, columns)), shape=(60, n_features))
    X.sum_duplicates()
    X.data[:] = 1.0
    y = np.arange(60) % 2
    model = nbfast.BernoulliNB().fit(X, y)
    explanation, peak = with_peak_memory(lambda: nbfast.explain(model, X))
    check_sums(model, X, explanation)
    assert peak < 60 * n_features  # a dense copy of X would need 8 bytes per cell


def test_names_and_result_object():
    X = np.array([[3, 0, 1], [0, 3, 1], [2, 0, 1], [0, 2, 1]])
    model = nbfast.MultinomialNB().fit(X, ["cats", "dogs", "cats", "dogs"])
    explanation = nbfast.explain(model, [[2, 1, 1]], n=2, feature_names=["meow", "woof", "the"])
    row = explanation.row(0)
    assert row["predicted"] == "cats" and row["runner_up"] == "dogs"
    assert [f["name"] for f in row["features"]] == ["meow", "woof"]
    assert row["n_rest"] == 0 and explanation.named  # "the" has the same weight in both classes: term 0
    text = explanation.text(0)
    assert "predicted 'cats' over 'dogs'" in text and "meow" in text and "prior" in text and "baseline" in text
    assert "Explanation(n_samples=1, n=2)" in repr(explanation)
    assert explanation.to_dict()["rows"][0] == row
    unnamed = nbfast.explain(model, [[2, 1, 1]])
    assert not unnamed.named and unnamed.row(0)["features"][0]["name"] == "feature 0"
    assert "no names" in repr(unnamed)


def test_names_from_a_dataframe():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"meow": [3, 0, 2, 0], "woof": [0, 3, 0, 2]})
    model = nbfast.MultinomialNB().fit(X, ["cats", "dogs", "cats", "dogs"])
    assert nbfast.explain(model, X).row(1)["features"][0]["name"] == "woof"
    assert nbfast.top_features(model, n=1)["cats"] == [("meow", pytest.approx(np.log(6 / 8) - np.log(1 / 8)))]


def test_bad_calls():
    X, y = data_for("MultinomialNB", n_samples=30)
    with pytest.raises(ValueError, match="single class"):
        nbfast.explain(nbfast.MultinomialNB().fit(X, np.zeros(30)), X)
    with pytest.raises(ValueError, match="single class"):
        nbfast.top_features(nbfast.MultinomialNB().fit(X, np.zeros(30)))
    model = nbfast.MultinomialNB().fit(X, y)
    with pytest.raises(TypeError, match="nbfast Naive Bayes estimator"):
        nbfast.explain(object(), X)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        nbfast.explain(model, X, n=0)
    with pytest.raises(ValueError, match="one name per feature"):
        nbfast.top_features(model, feature_names=["a", "b"])
    with pytest.raises(Exception, match="not fitted"):
        nbfast.top_features(nbfast.MultinomialNB())


# ------------------------------------------------------------- top features
def word_rates():
    """Rates of 30 words in 3 classes: words 0-4 belong to class 0, 5-9 to class 1, 10-14 to class 2 (mostly in
    their class, most distinctive first, a little elsewhere), words 15-29 are common to all at the same rate."""
    rate = np.full((3, 30), 0.05)
    for c in range(3):
        rate[c, 5 * c:5 * c + 5] = [3.0, 2.5, 2.0, 1.5, 1.0]
    rate[:, 15:] = 2.0
    return rate


RATE = word_rates()


def known_corpus(n_per_class=60, seed=0):
    """Word counts drawn at :data:`RATE`."""
    y = np.repeat(np.arange(3), n_per_class)
    X = np.random.default_rng(seed).poisson(RATE[y])
    return sp.csr_array(X.astype(float)), y


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "CategoricalNB",
                                  "GaussianNB"])
def test_top_features_find_each_class_words(name):
    X, y = known_corpus(seed=1)
    n = 5
    if name == "CategoricalNB":
        X = sp.csr_array(np.minimum(X.toarray(), 2))
    if name == "GaussianNB":
        # real values, the rates as means: a divergence is symmetric in the means, so a feature that sets
        # another class apart scores about half as much (averaged over two other classes): its best one leads
        X, n = np.random.default_rng(1).normal(size=X.shape) + RATE[y], 1
    model = nb_estimator(name).fit(X, y)
    names = [f"w{j}" for j in range(30)]
    top = nbfast.top_features(model, n=n, feature_names=names)
    for c in range(3):
        found = {name.split("=")[0] for name, _ in top[c]}
        assert found <= {f"w{j}" for j in range(5 * c, 5 * c + 5)}, (c, top[c])
        scores = [score for _, score in top[c]]
        assert scores == sorted(scores, reverse=True) and scores[0] > 0
    if name in ("MultinomialNB", "PoissonNB", "GaussianNB"):  # the strongest word leads
        assert [top[c][0][0] for c in range(3)] == ["w0", "w5", "w10"]


def test_two_classes_score_the_exact_per_feature_term_of_to_linear():
    X, y = data_for("BernoulliNB", n_samples=100, n_classes=2, seed=3)
    model = nbfast.BernoulliNB().fit(X, y)
    coef = nbfast.to_linear(model)[0]
    top = nbfast.top_features(model, n=X.shape[1])
    for c in (0, 1):
        np.testing.assert_array_equal(top.scores[c], (coef[c] - coef[1 - c])[top.features[c]])
        assert sorted(top.features[c]) == list(range(X.shape[1]))


def test_several_classes_score_against_the_mean_of_the_others():
    X, y = data_for("MultinomialNB", n_samples=100, n_classes=4, seed=3)
    model = nbfast.MultinomialNB().fit(X, y)
    coef = nbfast.to_linear(model)[0]
    top = nbfast.top_features(model, n=3)
    for c in range(4):
        expected = coef[c] - np.delete(coef, c, axis=0).mean(axis=0)
        np.testing.assert_allclose(top.scores[c], np.sort(expected)[::-1][:3], rtol=1e-12)
        np.testing.assert_array_equal(top.features[c], np.argsort(-expected, kind="stable")[:3])


def test_gaussian_scores_are_kullback_leibler_divergences():
    rng = np.random.default_rng(0)
    y = np.arange(400) % 2
    X = rng.normal(size=(400, 3)) * [1.0, 1.0, 2.0]
    X[:, 0] += 3 * y  # feature 0 separates the classes, feature 2 has a larger but shared spread
    model = nbfast.GaussianNB().fit(X, y)
    top = nbfast.top_features(model, n=3)
    m, v = model.theta_, model.var_
    kl = 0.5 * (np.log(v[1] / v[0]) + (v[0] + (m[0] - m[1]) ** 2) / v[1] - 1)
    np.testing.assert_allclose(top.scores[0], np.sort(kl)[::-1], rtol=1e-12)
    assert top.features[0][0] == 0 and top.features[1][0] == 0


def test_categorical_terms_are_feature_categories():
    # colour=1 is seen in class b alone, size=0 in b and once in a: no tie for the first place
    X = np.array([[0, 1], [0, 2], [1, 0], [1, 0], [2, 0]])
    model = nbfast.CategoricalNB().fit(X, ["a", "a", "b", "b", "a"])
    top = nbfast.top_features(model, n=2, feature_names=["colour", "size"])
    assert top["b"][0][0] == "colour=1" and top.categories is not None
    assert top.to_dict()["classes"]["b"][0] == {"feature": 0, "category": 1, "name": "colour=1",
                                                "score": pytest.approx(top["b"][0][1])}


def test_mixed_model_features_are_columns_of_x():
    X, y = known_corpus(seed=2)
    model = nbfast.MixedNB([("a", nbfast.MultinomialNB(), slice(0, 15)),
                            ("b", nbfast.MultinomialNB(), slice(15, 30))]).fit(X, y)
    top = nbfast.top_features(model, n=5)
    assert top.categories is None
    for c in range(3):
        assert set(top.features[c]) <= set(range(5 * c, 5 * c + 5))
    coded = nbfast.MixedNB([("a", nbfast.MultinomialNB(), slice(0, 15)),
                            ("b", nbfast.CategoricalNB(), slice(15, 30))]).fit(X, y)
    names = nbfast.top_features(coded, n=40).to_dict()["classes"]["0"]
    assert {n["category"] for n in names if n["feature"] < 15} == {None}
    assert all("=" in n["name"] for n in names if n["feature"] >= 15)


def test_top_features_result_object():
    X, y = known_corpus()
    model = nbfast.MultinomialNB().fit(X, y)
    top = nbfast.top_features(model, n=100)  # more than the features: all of them
    assert top.features.shape == (3, 30) and not top.named
    assert top[0][0][0] == "feature 0"
    text = repr(top)
    assert text.startswith("TopFeatures(n_classes=3, n=30)") and "no names" in text and "  1." in text
    with pytest.raises(KeyError):
        top["no such class"]
    as_dict = top.to_dict()
    assert list(as_dict["classes"]) == ["0", "1", "2"] and len(as_dict["classes"]["0"]) == 30


def _compact_corpus(n_classes, n_features, per_class=3, words=8, seed=0):
    """A few short documents per class over a wide (hashed) feature space: a compact model."""
    rng = np.random.default_rng(seed)
    n_rows = n_classes * per_class
    indices = rng.integers(0, n_features, size=(n_rows, words))
    X = sp.csr_matrix((np.ones(n_rows * words), indices.ravel(), np.arange(0, n_rows * words + 1, words)),
                      shape=(n_rows, n_features))
    X.sum_duplicates()
    return X, np.arange(n_rows) % n_classes


@pytest.mark.parametrize("name, params", [("MultinomialNB", {}), ("BernoulliNB", {}), ("PoissonNB", {}),
                                          ("ComplementNB", {}), ("ComplementNB", {"norm": True}),
                                          ("MultinomialNB", {"alpha": np.linspace(0.1, 1.0, 3_000)})],
                         ids=["multinomial", "bernoulli", "poisson", "complement", "complement-norm",
                              "per-feature-alpha"])
@pytest.mark.parametrize("n_classes", [2, 5])
def test_top_features_of_a_compact_model_equal_the_dense_computation(name, params, n_classes):
    X, y = _compact_corpus(n_classes, 3_000, per_class=4)
    model = nb_estimator(name, **params).fit(X, y)
    assert model._compact_feature_table() is not None
    top = nbfast.top_features(model, n=7)
    scores = nbfast.naive_bayes._base._BaseNB._feature_scores(model)[0]  # the dense scores
    order = np.lexsort((np.broadcast_to(np.arange(scores.shape[1]), scores.shape), -scores), axis=1)[:, :7]
    np.testing.assert_array_equal(top.features, order)
    np.testing.assert_allclose(top.scores, np.take_along_axis(scores, order, axis=1), rtol=1e-12, atol=1e-12)


def test_top_features_of_a_wide_compact_model_stay_within_what_it_holds():
    # 500 classes x 2**20 features: the dense scores would take 4 GiB
    X, y = _compact_corpus(500, 2**20)
    model = nbfast.MultinomialNB().fit(X, y)
    assert model._compact_feature_table() is not None
    top, peak = with_peak_memory(lambda: nbfast.top_features(model, n=3))
    assert peak < 100 * 2**20, peak
    assert top.features.shape == (500, 3)
    for c in (0, 499):  # each class's top features are words of its own documents
        assert set(top.features[c]) <= set(X[y == c].indices)


@pytest.mark.parametrize("wrapper", [
    lambda: nbfast.MultinomialNBCV(alphas=[0.5, 1.0], cv=2),
    lambda: nbfast.CalibratedNB(nbfast.MultinomialNB(), cv=2),
    lambda: nbfast.SemiSupervisedNB(nbfast.MultinomialNB()),
], ids=["cv", "calibrated", "semi-supervised"])
def test_top_features_of_a_wrapper_are_its_fitted_models_and_stay_compact(wrapper):
    X, y = _compact_corpus(40, 2**20, per_class=2)  # dense scores: 40 x 2**20 float64, 320 MiB
    model = wrapper().fit(X, y)
    assert model.estimator_._compact_feature_table() is not None
    top, peak = with_peak_memory(lambda: nbfast.top_features(model, n=3))
    assert peak < 100 * 2**20, peak
    expected = nbfast.top_features(model.estimator_, n=3)
    np.testing.assert_array_equal(top.features, expected.features)
    np.testing.assert_array_equal(top.scores, expected.scores)


@pytest.mark.parametrize("name, params", [("MultinomialNB", {}), ("BernoulliNB", {}), ("ComplementNB", {"norm": True}),
                                          ("MultinomialNB", {"alpha": np.linspace(0.1, 1.0, 3_000)})],
                         ids=["multinomial", "bernoulli", "complement-norm", "per-feature-alpha"])
def test_explanations_of_a_compact_model_equal_those_of_its_dense_table(name, params):
    X, y = _compact_corpus(5, 3_000, per_class=4)
    model = nb_estimator(name, **params).fit(X, y)
    table = model._compact_feature_table()
    assert table is not None
    explanation = nbfast.explain(model, X[:12], n=4)
    check_sums(model, X[:12], explanation)
    # the same kernel on the whole dense table
    from nbfast.naive_bayes._terms import pair_terms

    X_checked = model._predict_input(X[:12])
    dense_terms, _ = pair_terms(X_checked, table.toarray(), model._linear_terms()[1],
                                *(np.searchsorted(model.classes_, c) for c in (explanation.predicted,
                                                                                explanation.runner_up)),
                                binarize=model._linear_terms()[2], threshold=model._linear_terms()[3])
    np.testing.assert_array_equal(explanation.terms.data, dense_terms)


def test_explanations_of_a_wide_compact_model_stay_within_what_it_holds():
    X, y = _compact_corpus(500, 2**20)
    model = nbfast.MultinomialNB().fit(X, y)
    model.predict(X[:1])  # the scoring table, as loading and predicting build it
    explanation, peak = with_peak_memory(lambda: nbfast.explain(model, X[:5], n=3))
    assert peak < 100 * 2**20, peak
    check_sums(model, X[:5], explanation)
