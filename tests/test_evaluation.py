"""nbfast.evaluate: the figures of sklearn.metrics (classification_report, confusion_matrix, log_loss) on the
model's predictions, for several models and label types, counted chunk by chunk."""

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import NB_FAMILY, assert_same_figures, data_for, labels_of_kind, nb_estimator

import nbfast
from nbfast.calibration import expected_calibration_error
from nbfast.evaluation import EvaluationCounts

metrics = pytest.importorskip("sklearn.metrics")


def assert_equal_to_sklearn(evaluation, y, predicted, proba, classes, zero_division=0.0):
    """Every figure of ``evaluation`` against scikit-learn on the same labels, predictions and probabilities."""
    expected = metrics.classification_report(y, predicted, output_dict=True, zero_division=zero_division)
    report = evaluation.classification_report()
    assert list(report) == list(expected)
    for key, value in expected.items():
        if key == "accuracy":
            assert report[key] == pytest.approx(value, rel=1e-12)
        else:
            assert report[key] == pytest.approx(value, rel=1e-12, nan_ok=True), key
    np.testing.assert_array_equal(evaluation.confusion_matrix, metrics.confusion_matrix(y, predicted))
    assert evaluation.accuracy == pytest.approx(metrics.accuracy_score(y, predicted), rel=1e-12)
    # labels the model never saw have probability 0 (scikit-learn needs them among the labels)
    unseen = [label for label in np.unique(y) if label not in set(np.asarray(classes).tolist())]
    if unseen:
        proba = np.hstack([proba, np.zeros((len(proba), len(unseen)))])
    labels = list(classes) + unseen
    if len(labels) > 1:
        assert evaluation.log_loss == pytest.approx(metrics.log_loss(y, proba, labels=labels), rel=1e-12)


@pytest.mark.parametrize("name", NB_FAMILY + ["MixedNB"])
@pytest.mark.parametrize("kind", ["int", "str", "float"])
def test_figures_equal_scikit_learn_for_every_estimator_and_label_type(name, kind):
    X, y = data_for(name, n_samples=150, n_classes=4, seed=1)
    y = labels_of_kind(y, kind)
    model = nb_estimator(name).fit(X[:100], y[:100])
    evaluation = nbfast.evaluate(model, X[100:], y[100:])
    predicted = model.predict(X[100:])
    assert_equal_to_sklearn(evaluation, y[100:], predicted, model.predict_proba(X[100:]), model.classes_)
    assert evaluation.n_samples == 50 and evaluation.n_errors == int(np.sum(predicted != y[100:]))
    assert evaluation.unseen_labels == {}


def test_object_and_bool_labels():
    X, y = data_for("MultinomialNB", n_samples=90, n_classes=2)
    for kind in ("object", "bool"):
        labels = labels_of_kind(y, kind)
        model = nbfast.MultinomialNB().fit(X, labels)
        evaluation = nbfast.evaluate(model, X, labels)
        assert_equal_to_sklearn(evaluation, labels, model.predict(X), model.predict_proba(X), model.classes_)


def test_classes_missing_from_the_test_file():
    X, y = data_for("MultinomialNB", n_samples=200, n_classes=5, seed=2)
    model = nbfast.MultinomialNB().fit(X, y)
    keep = y < 3  # classes 3 and 4 never true; they may still be predicted
    evaluation = nbfast.evaluate(model, X[keep], y[keep])
    predicted = model.predict(X[keep])
    assert_equal_to_sklearn(evaluation, y[keep], predicted, model.predict_proba(X[keep]), model.classes_)
    assert evaluation.labels == sorted(set(y[keep]) | set(predicted))


def test_a_class_predicted_but_never_true_has_precision_zero_division():
    X = np.array([[5, 0], [0, 5], [4, 1], [1, 4]])
    model = nbfast.MultinomialNB().fit(X, ["a", "b", "a", "b"])
    y = np.array(["a", "a", "a", "a"])  # "b" is predicted twice, never true: its recall is ill-defined
    for zero_division in (0.0, 1.0, np.nan):
        evaluation = nbfast.evaluate(model, X, y, zero_division=zero_division)
        assert_equal_to_sklearn(evaluation, y, model.predict(X), model.predict_proba(X), model.classes_, zero_division)
    with pytest.raises(ValueError, match="zero_division"):
        nbfast.evaluate(model, X, y, zero_division="warn")


def test_a_single_class_in_the_test_file():
    X, y = data_for("BernoulliNB", n_samples=120, n_classes=3, seed=4)
    model = nbfast.BernoulliNB().fit(X, y)
    one = y == 1
    evaluation = nbfast.evaluate(model, X[one], y[one])
    assert_equal_to_sklearn(evaluation, y[one], model.predict(X[one]), model.predict_proba(X[one]), model.classes_)


def test_a_single_class_model():
    X, _ = data_for("MultinomialNB", n_samples=30)
    y = np.full(30, "only")
    evaluation = nbfast.evaluate(nbfast.MultinomialNB().fit(X, y), X, y)
    assert evaluation.accuracy == 1.0 and evaluation.labels == ["only"]
    assert evaluation.confusion_matrix.tolist() == [[30]]
    # probability 1 clipped to 1 - eps (scikit-learn's log_loss refuses a single label)
    assert evaluation.log_loss == pytest.approx(-np.log1p(-np.finfo(np.float64).eps))


def test_labels_the_model_never_saw_are_errors_and_named():
    X, y = data_for("MultinomialNB", n_samples=120, n_classes=3, seed=5)
    y = labels_of_kind(y, "str").astype(object)
    model = nbfast.MultinomialNB().fit(X, y)
    y_test = y.copy()
    y_test[:7], y_test[7:9] = "class 9", "zebra"
    with pytest.warns(UserWarning, match=r"2 label\(s\) in y the model never saw, counted as errors: \['class 9', "
                                         r"'zebra'\]"):
        evaluation = nbfast.evaluate(model, X, y_test)
    assert evaluation.unseen_labels == {"class 9": 7, "zebra": 2}
    assert_equal_to_sklearn(evaluation, y_test, model.predict(X), model.predict_proba(X), model.classes_)
    assert evaluation.n_errors >= 9
    assert evaluation.to_dict()["unseen_labels"] == {"class 9": 7, "zebra": 2}


def test_whole_float_labels_match_integer_classes():
    """svmlight stores labels as floats: 2.0 is class 2, 2.5 a label the model never saw."""
    X, y = data_for("MultinomialNB", n_samples=60, n_classes=3)
    model = nbfast.MultinomialNB().fit(X, y)
    y_float = y.astype(np.float64)
    assert nbfast.evaluate(model, X, y_float).to_dict() == nbfast.evaluate(model, X, y).to_dict()
    y_float[0] = 2.5
    with pytest.warns(UserWarning, match="never saw"):
        assert nbfast.evaluate(model, X, y_float).unseen_labels == {2.5: 1}


@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_counted_in_chunks_equals_counted_at_once(chunk):
    X, y = data_for("ComplementNB", n_samples=150, n_classes=4, seed=6)
    y = labels_of_kind(y, "str")
    model = nbfast.ComplementNB().fit(X, y)
    y_test = y.astype(object)
    y_test[100] = "unseen"
    counts = EvaluationCounts(model)
    for start in range(0, 150, chunk):
        counts.update(X[start:start + chunk], y_test[start:start + chunk])
    chunked = counts.result().to_dict()
    with pytest.warns(UserWarning, match="never saw"):
        whole = nbfast.evaluate(model, X, y_test).to_dict()
    assert_same_figures(chunked, whole)


def test_large_inputs_are_scored_in_chunks(monkeypatch):
    import nbfast.evaluation as evaluation_module

    X, y = data_for("MultinomialNB", n_samples=100, n_classes=3)
    model = nbfast.MultinomialNB().fit(X, y)
    seen = []
    original = EvaluationCounts.update
    monkeypatch.setattr(evaluation_module, "CHUNK_SIZE", 30)
    monkeypatch.setattr(EvaluationCounts, "update", lambda self, X, y: seen.append(X.shape[0]) or original(self, X, y))
    nbfast.evaluate(model, sp.csr_array(X), y)
    assert seen == [30, 30, 30, 10]


def test_many_classes_are_summarized():
    rng = np.random.default_rng(0)
    n_classes = 80
    y = np.arange(2000) % n_classes
    X = sp.csr_array(rng.poisson(0.3, size=(2000, 50)) + np.eye(n_classes, 50, dtype=int)[y] * 3)
    model = nbfast.MultinomialNB().fit(X, y)
    evaluation = nbfast.evaluate(model, X, y)
    assert_equal_to_sklearn(evaluation, y, model.predict(X), model.predict_proba(X), model.classes_)
    text = evaluation.report()
    assert "80 labels: the 30 of lowest F1 are listed (to_dict() lists them all)" in text
    assert "--json" not in text  # the command line's option, named by the command line only
    assert "most frequent confusions (80 labels" in text
    assert len(text.splitlines()) < 60


def test_result_object():
    X, y = data_for("MultinomialNB", n_samples=60, n_classes=3)
    evaluation = nbfast.evaluate(nbfast.MultinomialNB().fit(X, y), X, y)
    assert repr(evaluation).startswith("Evaluation(n_samples=60, accuracy=")
    as_dict = evaluation.to_dict()
    assert set(as_dict) == {"n_samples", "accuracy", "log_loss", "expected_calibration_error", "reliability", "labels",
                            "classification_report", "confusion_matrix", "confusion_cells", "unseen_labels",
                            "model_classes"}
    assert as_dict["reliability"]["count"][-1] > 0 and None in as_dict["reliability"]["accuracy"]  # an empty bin
    assert as_dict["labels"] == [0, 1, 2] and all(type(label) is int for label in as_dict["labels"])
    import json

    assert json.loads(json.dumps(as_dict)) == as_dict
    text = evaluation.report()
    assert "precision" in text and "weighted avg" in text and "log-loss:" in text and "confusion matrix" in text
    assert f"expected calibration error: {evaluation.expected_calibration_error:.4f}" in text


def reference_reliability(proba, y, classes, n_bins=15):
    """Per bin of confidence [k / n_bins, (k + 1) / n_bins) (the last bin closed): rows, accuracy, mean confidence,
    and the expected calibration error, with a loop over the bins."""
    confidence = proba.max(axis=1)
    correct = np.asarray(classes)[proba.argmax(axis=1)] == y
    counts, accuracy, mean_confidence, ece = [], [], [], 0.0
    for k in range(n_bins):
        low, high = k / n_bins, (k + 1) / n_bins
        rows = (confidence >= low) & ((confidence < high) if k < n_bins - 1 else (confidence <= high))
        counts.append(int(rows.sum()))
        accuracy.append(correct[rows].mean() if rows.any() else np.nan)
        mean_confidence.append(confidence[rows].mean() if rows.any() else np.nan)
        if rows.any():
            ece += rows.sum() / len(y) * abs(accuracy[-1] - mean_confidence[-1])
    return np.array(counts), np.array(accuracy), np.array(mean_confidence), ece


@pytest.mark.parametrize("chunk_size", [7, 10_000])
def test_calibration_error_and_reliability_equal_a_reference(monkeypatch, chunk_size):
    monkeypatch.setattr(nbfast.evaluation, "CHUNK_SIZE", chunk_size)
    X, y = data_for("MultinomialNB", n_samples=400, n_classes=4, seed=3)
    model = nbfast.MultinomialNB().fit(X[:200], y[:200])
    evaluation = nbfast.evaluate(model, X[200:], y[200:])
    counts, accuracy, confidence, ece = reference_reliability(model.predict_proba(X[200:]), y[200:], model.classes_)
    assert counts.sum() == 200 and (counts > 0).sum() > 2
    np.testing.assert_array_equal(evaluation.reliability["count"], counts)
    np.testing.assert_allclose(evaluation.reliability["accuracy"], accuracy, rtol=1e-12)
    np.testing.assert_allclose(evaluation.reliability["confidence"], confidence, rtol=1e-12)
    np.testing.assert_allclose(evaluation.reliability["bin_edges"], np.arange(16) / 15, rtol=1e-15)
    assert evaluation.expected_calibration_error == pytest.approx(ece, rel=1e-12) and ece > 0.01
    assert expected_calibration_error(
        model.predict_proba(X[200:]), y[200:], model.classes_) == pytest.approx(ece, rel=1e-12)


def test_many_labels_give_the_nonzero_cells():
    y = np.arange(1200)
    X = sp.csr_array((np.ones(1200), (np.arange(1200), np.arange(1200))), shape=(1200, 1200))
    model = nbfast.MultinomialNB().fit(X, y)
    as_dict = nbfast.evaluate(model, X, y).to_dict()
    assert as_dict["confusion_matrix"] is None
    assert as_dict["confusion_cells"][:2] == [[0, 0, 1], [1, 1, 1]] and len(as_dict["confusion_cells"]) == 1200


def test_bad_calls():
    X, y = data_for("MultinomialNB", n_samples=30)
    model = nbfast.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="y must be a 1-D array of 30 labels"):
        nbfast.evaluate(model, X, y[:10])
    with pytest.raises(Exception, match="not fitted"):
        nbfast.evaluate(nbfast.MultinomialNB(), X, y)
    with pytest.raises(ValueError, match="no labelled rows"):
        EvaluationCounts(model).result()


@pytest.mark.parametrize("n_classes", [2, 5, 24])
def test_plot_is_drawn_and_not_empty(tmp_path, n_classes):
    pytest.importorskip("matplotlib")
    image = pytest.importorskip("matplotlib.image")
    rng = np.random.default_rng(n_classes)
    y = np.array([f"topic {i}" for i in range(n_classes)])[np.arange(600) % n_classes]
    X = sp.csr_array(rng.poisson(1.0, size=(600, 80)))
    model = nbfast.MultinomialNB().fit(X, y)
    path = tmp_path / "confusion.png"
    nbfast.evaluate(model, X, y).plot(path)
    pixels = image.imread(path)
    assert pixels.shape[0] > 200 and pixels.shape[1] > 200
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 10  # more than a blank canvas



def test_plot_without_a_path_returns_the_open_figure():
    plt = pytest.importorskip("matplotlib.pyplot")
    X, y = data_for("MultinomialNB", n_samples=60, n_classes=3)
    figure = nbfast.evaluate(nbfast.MultinomialNB().fit(X, y), X, y).plot()
    try:
        assert plt.fignum_exists(figure.number) and len(figure.axes) == 3  # matrix, its colour bar, reliability
    finally:
        plt.close(figure)


def test_rows_without_a_posterior_are_refused_by_name():
    """Values beyond what float64 scores give every class probability 0: NaN posteriors are an error naming the
    first such row, not a NaN log-loss (nor a crash binning NaN confidences)."""
    model = nbfast.GaussianNB().fit(np.array([[1.0], [2.0], [3.0], [1.0]]), [0, 1, 0, 1])
    counts = EvaluationCounts(model)
    X = np.array([[1.0], [1e200], [2.0]])
    with pytest.raises(ValueError, match=r"1 row\(s\) have no posterior, the first row 2 of these 3"):
        counts.update(X, [0, 1, 0])
    assert counts.n_samples == 0
