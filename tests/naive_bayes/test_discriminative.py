"""DiscriminativeNB against its Naive Bayes start, scikit-learn's LogisticRegression and a numpy float64 reference."""

import warnings

import numpy as np
import pytest
from support.helpers import CONTAINERS, FLOAT_DTYPES, INDEX_DTYPES, as_container, logsumexp_reference, read_only

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes._discriminative import _Objective

sk_linear = pytest.importorskip("sklearn.linear_model")


def small_data(n_classes=3, seed=0):
    X, y = make_documents(n_samples=300, n_features=40, n_classes=n_classes, mean_length=12, random_state=seed)
    return X, y


def objective_reference(X, y_index, sample_weight, weights, intercept, anchor_weights, anchor_intercept, C,
                        penalize_intercept):
    """The objective and its gradient written out densely in float64."""
    X = np.asarray(X.toarray(), dtype=np.float64)
    z = X @ weights + intercept
    log_proba = z - logsumexp_reference(z)
    rows = np.arange(len(y_index))
    loss = -(sample_weight * log_proba[rows, y_index]).sum() + ((weights - anchor_weights) ** 2).sum() / (2 * C)
    residual = sample_weight[:, None] * (np.exp(log_proba) - np.eye(weights.shape[1])[y_index])
    grad_weights = X.T @ residual + (weights - anchor_weights) / C
    grad_intercept = residual.sum(axis=0)
    if penalize_intercept:
        loss += ((intercept - anchor_intercept) ** 2).sum() / (2 * C)
        grad_intercept += (intercept - anchor_intercept) / C
    scale = sample_weight.sum()
    return loss / scale, np.concatenate([grad_weights.ravel(), grad_intercept]) / scale


@pytest.mark.parametrize("penalize_intercept", [True, False])
def test_objective_and_gradient_match_a_dense_reference(penalize_intercept):
    X, y = small_data()
    rng = np.random.default_rng(0)
    n_classes, n_features = 3, X.shape[1]
    sample_weight = rng.uniform(0, 2, X.shape[0])
    x, anchor = rng.normal(size=(2, n_features * n_classes + n_classes))
    objective = _Objective(X, y.astype(np.int64), sample_weight, n_classes, 0.7, anchor, penalize_intercept)
    loss, gradient = objective.loss_and_gradient(x)
    weights, intercept = x[:-n_classes].reshape(n_features, n_classes), x[-n_classes:]
    expected_loss, expected_gradient = objective_reference(
        X, y, sample_weight, weights, intercept, anchor[:-n_classes].reshape(n_features, n_classes),
        anchor[-n_classes:], 0.7, penalize_intercept)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-12)
    np.testing.assert_allclose(gradient, expected_gradient, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("nb", ["multinomial", "complement"])
def test_strong_regularization_gives_back_naive_bayes(nb):
    X, y = small_data()
    start = nbfast.MultinomialNB() if nb == "multinomial" else nbfast.ComplementNB()
    start.fit(X, y)
    model = nbfast.DiscriminativeNB(nb=nb, C=1e-10).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), start.predict_proba(X), rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), start.predict(X))
    # the linear scores are Naive Bayes's joint log-likelihood up to a per-row constant
    shift = model.decision_function(X) - start.predict_joint_log_proba(X)
    np.testing.assert_allclose(shift - shift[:, :1], 0, atol=1e-6)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_without_the_pull_toward_naive_bayes_it_is_logistic_regression(n_classes, weighted):
    X, y = small_data(n_classes)
    sample_weight = np.random.default_rng(1).uniform(0, 3, X.shape[0]) if weighted else None
    ours = nbfast.DiscriminativeNB(anchor="zero", C=0.5, solver="lbfgs", tol=1e-14, max_iter=10_000).fit(
        X, y, sample_weight)
    # with two classes scikit-learn fits one weight vector w = w_1 - w_0, whose penalty ||w||^2 / (2 C') is
    # ||w_0||^2 + ||w_1||^2 over 2 C when C' = 2 C (the weights sum to zero over the classes at the optimum)
    C = 1.0 if n_classes == 2 else 0.5
    theirs = sk_linear.LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(X, y, sample_weight)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-4)


def test_refinement_improves_the_training_likelihood_and_reports_its_iterations():
    X, y = small_data()
    start = nbfast.MultinomialNB().fit(X, y)
    model = nbfast.DiscriminativeNB(C=10.0).fit(X, y)
    assert 0 < model.n_iter_ <= 100

    def log_loss(m):
        return -m.predict_log_proba(X)[np.arange(len(y)), y].mean()

    assert log_loss(model) < log_loss(start) - 0.01


def test_not_converged_warns():
    X, y = small_data()
    with pytest.warns(nbfast._compat.ConvergenceWarning, match="did not converge"):
        model = nbfast.DiscriminativeNB(C=100.0, solver="lbfgs", max_iter=1).fit(X, y)
    assert model.n_iter_ == 1


@pytest.mark.parametrize("solver", ["lbfgs", "sgd"])
def test_bit_identical_for_any_number_of_threads(n_threads_limit, solver):
    X, y = make_documents(n_samples=3000, n_features=300, n_classes=4, mean_length=20, random_state=2)
    results = []
    for n in (1, 2, 4):
        with n_threads_limit(n):
            model = nbfast.DiscriminativeNB(C=5.0, solver=solver, max_iter=8, tol=0.0)
            with warnings.catch_warnings():  # L-BFGS: 8 iterations, each one compared, then a warning
                warnings.simplefilter("ignore", nbfast._compat.ConvergenceWarning)
                model.fit(X, y)
            results.append((model.coef_.copy(), model.intercept_.copy(), model.n_iter_, model.predict_proba(X)))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("readonly", [False, True])
def test_every_input_type_gives_the_float64_model(dtype, index_dtype, container, readonly):
    X, y = small_data()
    X = X.astype(np.float32).astype(np.float64)  # values every dtype holds exactly
    sample_weight = np.random.default_rng(3).uniform(0, 2, X.shape[0])
    expected = nbfast.DiscriminativeNB(C=3.0).fit(X, y, sample_weight=sample_weight)
    X_in = as_container(X, container, dtype, index_dtype)
    if readonly:
        X_in = read_only(X_in)
    model = nbfast.DiscriminativeNB(C=3.0).fit(X_in, y, sample_weight=sample_weight)
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    np.testing.assert_array_equal(model.intercept_, expected.intercept_)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(model.predict_proba(X_in), expected.predict_proba(X), rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(model.predict(X_in), expected.predict(X))


def test_sample_weight_is_row_repetition():
    X, y = small_data()
    repeats = np.random.default_rng(4).integers(0, 3, X.shape[0])
    weighted = nbfast.DiscriminativeNB(C=2.0, solver="lbfgs", tol=1e-10, max_iter=1000).fit(
        X, y, sample_weight=repeats)
    keep = np.repeat(np.arange(X.shape[0]), repeats)
    repeated = nbfast.DiscriminativeNB(C=2.0, solver="lbfgs", tol=1e-10, max_iter=1000).fit(X[keep], y[keep])
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-6)


def test_predictions_are_the_linear_form():
    X, y = small_data()
    model = nbfast.DiscriminativeNB(nb="complement", C=4.0).fit(X, y)
    coef, intercept = nbfast.to_linear(model)
    scores = X.toarray() @ coef.T + intercept
    np.testing.assert_allclose(model.predict_joint_log_proba(X), scores, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.predict_log_proba(X), scores - logsumexp_reference(scores), atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[scores.argmax(axis=1)])
    top = nbfast.top_features(model, n=3)
    contrast = coef - (coef.sum(axis=0) - coef) / (len(coef) - 1)  # each class against the mean of the others
    np.testing.assert_array_equal(top.features, np.argsort(-contrast, axis=1, kind="stable")[:, :3])
    explanation = nbfast.explain(model, X[:5], n=3)
    np.testing.assert_array_equal(explanation.predicted, model.predict(X[:5]))


def test_save_and_load(tmp_path):
    X, y = small_data()
    model = nbfast.DiscriminativeNB(C=2.0).fit(X, np.array(["a", "b", "c"])[y])
    nbfast.save(model, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    assert isinstance(loaded, nbfast.DiscriminativeNB) and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_what_does_not_apply_says_so():
    X, y = small_data()
    model = nbfast.DiscriminativeNB().fit(X, y)
    assert not hasattr(model, "partial_fit")
    with pytest.raises(AttributeError, match="not sums of per-batch statistics"):
        model.partial_fit(X, y)
    with pytest.raises(TypeError, match=r"merge\(\) needs .*DiscriminativeNB does not"):
        nbfast.merge([model, model])
    with pytest.raises(ValueError, match="does not add its class prior"):
        nbfast.with_prior(model, [0.2, 0.3, 0.5])
    with pytest.raises(TypeError, match="no scikit-learn Naive Bayes equivalent"):
        model.to_sklearn()


@pytest.mark.parametrize("params", [{"nb": "bernoulli"}, {"alpha": 0.0}, {"C": 0.0}, {"anchor": "none"},
                                    {"max_iter": 0}, {"max_iter": 2.5}, {"tol": -1.0}, {"solver": "adam"},
                                    {"learning_rate": 0.0}, {"learning_rate": np.inf}])
def test_invalid_parameters_are_refused(params):
    X, y = small_data()
    with pytest.raises(ValueError, match=next(iter(params))):
        nbfast.DiscriminativeNB(**params).fit(X, y)


def test_negative_input_is_refused_by_fit_only():
    X, y = small_data()
    with pytest.raises(ValueError, match="[Nn]egative"):
        nbfast.DiscriminativeNB().fit(-X.toarray(), y)
    model = nbfast.DiscriminativeNB().fit(X, y)
    coef, intercept = model.to_linear()
    np.testing.assert_allclose(model.decision_function(-X), -X.toarray() @ coef.T + intercept, rtol=1e-12)


@pytest.mark.parametrize("anchor", ["nb", "zero"])
def test_a_single_class_is_predicted_with_certainty(anchor):
    X, _ = small_data()
    model = nbfast.DiscriminativeNB("complement", anchor=anchor).fit(X, np.full(X.shape[0], "only"))
    assert model.n_iter_ == 0
    np.testing.assert_array_equal(model.predict_proba(X), 1.0)
    np.testing.assert_array_equal(model.predict(X), "only")


def test_a_class_without_weight_is_refused():
    X, y = small_data()
    with pytest.raises(ValueError, match=r"class\(es\) \[2\] have none"):
        nbfast.DiscriminativeNB().fit(X, y, sample_weight=(y != 2).astype(float))


def test_command_line_trains_on_every_block_at_once(tmp_path, capsys):
    from nbfast.cli import main

    lines = [f"{i % 3} {1 + i % 7}:1 {8 + i % 5}:2 {13 + (i * 7) % 11}:1\n" for i in range(90)]
    (tmp_path / "d.svm").write_text("".join(lines))
    model_path = tmp_path / "m.nbf"
    assert main(["train", str(tmp_path / "d.svm"), "-o", str(model_path), "--model", "discriminative",
                 "--chunk-size", "20"]) == 0
    model = nbfast.load(model_path)
    X = np.zeros((len(lines), model.n_features_in_))
    for i, line in enumerate(lines):
        for pair in line.split()[1:]:
            index, value = pair.split(":")
            X[i, int(index) - 1] = float(value)
    y = np.arange(len(lines)) % 3
    expected = nbfast.DiscriminativeNB().fit(X, y)
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    capsys.readouterr()
    assert main(["train", str(tmp_path / "d.svm"), "-o", str(model_path), "--model", "discriminative",
                 "--calibrate-cv", "3"]) != 0
    assert "--calibrate-cv does not apply to --model discriminative" in capsys.readouterr().err


def test_tol_also_stops_on_the_relative_decrease_of_the_objective():
    # with tol=1e-3 a fit stops on the objective's decrease while its scaled gradient is still above tol
    X, y = small_data(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", nbfast._compat.ConvergenceWarning)
        model = nbfast.DiscriminativeNB(anchor="zero", C=10.0, solver="lbfgs", tol=1e-3).fit(X, y)
    n_classes = len(model.classes_)
    objective = _Objective(X, y.astype(np.int64), np.ones(X.shape[0]), n_classes, 10.0,
                           np.zeros(model.coef_.size + n_classes), penalize_intercept=False)
    _, gradient = objective(np.concatenate([model.coef_.T.ravel(), model.intercept_]) * objective.root_curvature)
    assert np.abs(gradient).max() > 1e-3
