"""Regenerate the committed model files and their expected predictions.

    PYTHONPATH=. python tests/data/make_models.py

Writes ``<Estimator>-<labels>.nbf`` for each entry of MODELS and ``expected.npz``
holding, for each file, the test rows (``<stem>/X``, dense) and the model's
``predict`` and ``predict_proba`` on them.  tests/test_persist.py keeps loading
these files: run this to add models, never to make a failing format test pass.
"""

from pathlib import Path

import numpy as np

import nbfast
from nbfast.datasets import make_documents

HERE = Path(__file__).parent
LABELS = {"int": lambda y: y, "str": lambda y: np.array(["ham", "spam", "eggs"])[y]}
# data kind -> (X_train, y_train, X_test), X dense; add kinds for other estimators here
DATA = {
    "counts": lambda: (lambda X, y: (X[:60].toarray(), y[:60], X[60:].toarray()))(
        *make_documents(80, 30, 3, mean_length=15, random_state=5)
    ),
    "real": lambda: (lambda X: (X[:60], np.arange(60) % 3, X[60:]))(
        np.random.default_rng(7).normal(size=(80, 6)) + np.arange(80)[:, None] % 3
    ),
    "categories": lambda: (lambda X: (X[:60], np.arange(60) % 3, X[60:]))(
        np.random.default_rng(6).integers(0, 4, size=(80, 8)).astype(np.float64)
    ),
}
# file stem -> (estimator factory, label kind, data kind)
MODELS = {
    "MultinomialNB-int": (lambda: nbfast.MultinomialNB(alpha=0.5), "int", "counts"),
    "MultinomialNB-str": (lambda: nbfast.MultinomialNB(class_prior=[0.2, 0.3, 0.5]), "str", "counts"),
    "BernoulliNB-int": (lambda: nbfast.BernoulliNB(binarize=1.0), "int", "counts"),
    "BernoulliNB-str": (lambda: nbfast.BernoulliNB(alpha=np.linspace(0.5, 1.5, 30)), "str", "counts"),
    "ComplementNB-str": (lambda: nbfast.ComplementNB(norm=True), "str", "counts"),
    "PoissonNB-int": (lambda: nbfast.PoissonNB(alpha=0.5, beta=2.0), "int", "counts"),
    "CategoricalNB-str": (lambda: nbfast.CategoricalNB(max_categories=3), "str", "categories"),
    "GaussianNB-int": (lambda: nbfast.GaussianNB(var_smoothing=1e-6), "int", "real"),
    "GaussianNB-str": (lambda: nbfast.GaussianNB(variance="feature", ddof=1), "str", "real"),
    "DiscriminativeNB-str": (lambda: nbfast.DiscriminativeNB("complement", C=2.0), "str", "counts"),
    "MixedNB-str": (
        lambda: nbfast.MixedNB(
            [("words", nbfast.MultinomialNB(alpha=0.5), slice(0, 20)), ("flags", nbfast.BernoulliNB(), np.arange(20, 30))]
        ),
        "str",
        "counts",
    ),
}


def main():
    expected = {}
    for stem, (make, labels, data) in MODELS.items():
        X_train, y_train, X_test = DATA[data]()
        model = make().fit(X_train, LABELS[labels](y_train))
        nbfast.save(model, HERE / f"{stem}.nbf")
        expected[f"{stem}/X"] = X_test
        expected[f"{stem}/predict"] = model.predict(X_test)
        expected[f"{stem}/predict_proba"] = model.predict_proba(X_test)
    np.savez(HERE / "expected.npz", **expected)


if __name__ == "__main__":
    main()
