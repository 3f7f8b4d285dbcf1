"""
The reject option: accuracy against coverage
============================================

:func:`nbfast.decide` with ``reject_cost=r`` keeps a row only when its best
posterior is at least ``1 - r``, so the kept rows should be at least
``1 - r`` accurate. That promise holds only for calibrated posteriors: Naive
Bayes counts correlated evidence many times and is overconfident.
:func:`nbfast.calibrate` fits a temperature out of fold (``cv=5``, no rows held
out) and the promise holds again. The curves show the accuracy of the kept
rows against their share, for reject costs from 0.5 down to 0.01.
"""

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

import nbfast
from nbfast.datasets import make_documents

# Every word written in four columns: evidence counted four times, as correlated words (phrases, synonyms) are.
X, y = make_documents(12_000, 1500, 6, mean_length=50, random_state=0)
X = sp.hstack([X] * 4, format="csr")
train, test = slice(0, 9000), slice(9000, None)
models = {
    "MultinomialNB": nbfast.MultinomialNB().fit(X[train], y[train]),
    "calibrated (cv=5)": nbfast.calibrate(nbfast.MultinomialNB(), X[train], y[train], cv=5),
}

costs = np.geomspace(0.5, 0.01, 12)
fig, ax = plt.subplots(figsize=(6, 4.2))
for name, model in models.items():
    proba = model.predict_proba(X[test])
    coverage, accuracy = [], []
    for cost in costs:
        action = nbfast.decide(proba, reject_cost=cost)
        kept = action >= 0
        coverage.append(kept.mean())
        accuracy.append(np.mean(model.classes_[action[kept]] == y[test][kept]) if kept.any() else np.nan)
    ax.plot(coverage, accuracy, marker="o", label=name)
    print(f"{name}: reject_cost 0.05 keeps {coverage[np.argmin(abs(costs - 0.05))]:.0%} of the rows "
          f"at {accuracy[np.argmin(abs(costs - 0.05))]:.1%} accuracy (promised: 95%)")
ax.set_xlabel("share of rows kept (coverage)")
ax.set_ylabel("accuracy of the kept rows")
ax.set_title("Reject option, reject costs 0.5 to 0.01")
ax.legend()
fig.tight_layout()
