"""Regenerate the committed model files and their expected predictions.

    PYTHONPATH=. python tests/data/make_models.py

Writes ``<Estimator>-<labels>.nbf`` for each entry of MODELS and ``expected.npz``
(the test matrix X as CSR buffers, and each model's ``predict`` and
``predict_proba`` on it).  tests/test_persist.py keeps loading these files: run
this only to add models, never to make a failing format test pass.
"""

from pathlib import Path

import numpy as np

import nbfast
from nbfast.datasets import make_documents

HERE = Path(__file__).parent
LABELS = {"int": lambda y: y, "str": lambda y: np.array(["ham", "spam", "eggs"])[y]}
# file stem -> (estimator factory, label kind)
MODELS = {
    "MultinomialNB-int": (lambda: nbfast.MultinomialNB(alpha=0.5), "int"),
    "MultinomialNB-str": (lambda: nbfast.MultinomialNB(class_prior=[0.2, 0.3, 0.5]), "str"),
    "BernoulliNB-int": (lambda: nbfast.BernoulliNB(binarize=1.0), "int"),
    "BernoulliNB-str": (lambda: nbfast.BernoulliNB(alpha=np.linspace(0.5, 1.5, 30)), "str"),
}


def main():
    X, y = make_documents(80, 30, 3, mean_length=15, random_state=5)
    X_train, y_train, X_test = X[:60], y[:60], X[60:]
    expected = {"X_data": X_test.data, "X_indices": X_test.indices, "X_indptr": X_test.indptr,
                "X_shape": np.array(X_test.shape)}
    for stem, (make, labels) in MODELS.items():
        model = make().fit(X_train, LABELS[labels](y_train))
        nbfast.save(model, HERE / f"{stem}.nbf")
        expected[f"{stem}/predict"] = model.predict(X_test)
        expected[f"{stem}/predict_proba"] = model.predict_proba(X_test)
    np.savez(HERE / "expected.npz", **expected)


if __name__ == "__main__":
    main()
