"""
Speed against corpus size
=========================

Documents per second of ``fit`` and ``predict_proba``, nbfast against
scikit-learn, on synthetic word counts of growing size (the same corpus for
both, in one process). The sizes are small so that the documentation builds
quickly; ``nbfast bench --plot throughput.png`` draws the same figure at full
size, and the :doc:`performance page <../performance>` reports the measured
tables.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn import naive_bayes as sk

import nbfast
from nbfast.datasets import make_documents


def documents_per_second(call, n_documents, repeats=3):
    """Median over ``repeats`` runs, after one warm-up run."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return n_documents / np.median(times)


def fit_and_predict_rates(estimator, X, y):
    """Documents per second of ``fit`` (a new model each run) and of ``predict_proba``."""
    model = estimator().fit(X, y)
    return (documents_per_second(lambda: estimator().fit(X, y), len(y)),
            documents_per_second(lambda: model.predict_proba(X), len(y)))


sizes = [5_000, 20_000, 80_000]
rates = {}
for n in sizes:
    X, y = make_documents(n_samples=n, n_features=2**16, n_classes=20, random_state=0)
    for library, estimator in (("nbfast", nbfast.MultinomialNB), ("scikit-learn", sk.MultinomialNB)):
        fit, predict_proba = fit_and_predict_rates(estimator, X, y)
        rates.setdefault((library, "fit"), []).append(fit)
        rates.setdefault((library, "predict_proba"), []).append(predict_proba)

fig, ax = plt.subplots(figsize=(6.5, 4))
for (library, operation), values in rates.items():
    ax.plot(sizes, values, marker="o", linestyle="-" if library == "nbfast" else "--",
            color="tab:blue" if operation == "fit" else "tab:orange", label=f"{library} {operation}")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("documents in the corpus")
ax.set_ylabel("documents per second")
ax.set_title("MultinomialNB, 2^16 features, 20 classes")
ax.legend(fontsize=8)
fig.tight_layout()

for operation in ("fit", "predict_proba"):
    ratio = np.array(rates[("nbfast", operation)]) / np.array(rates[("scikit-learn", operation)])
    print(f"{operation}: nbfast is {', '.join(f'{r:.1f}x' for r in ratio)} scikit-learn's speed")
