"""
Semi-supervised learning: accuracy against the share of labels
===============================================================

:class:`nbfast.SemiSupervisedNB` fits a count model on labelled and
unlabelled documents together by Expectation-Maximization (Nigam et al.,
2000). With few labels it recovers much of the accuracy of a fully labelled
model; the curve shows accuracy on held-out documents against the share of
training documents that are labelled (``y == -1`` marks the others).
"""

import matplotlib.pyplot as plt
import numpy as np

import nbfast
from nbfast.datasets import make_documents

X, y = make_documents(n_samples=12_000, n_features=5_000, n_classes=5, mean_length=60, random_state=2)
train, test = slice(0, 10_000), slice(10_000, None)
rng = np.random.default_rng(0)
shares = [0.002, 0.005, 0.01, 0.03, 0.1]
supervised, semi = [], []
for share in shares:
    y_partial = y[train].copy()
    y_partial[rng.random(len(y_partial)) >= share] = -1
    labelled = y_partial != -1
    supervised.append(nbfast.MultinomialNB(alpha=0.1).fit(X[train][labelled], y_partial[labelled])
                      .score(X[test], y[test]))
    model = nbfast.SemiSupervisedNB(nbfast.MultinomialNB(alpha=0.1), max_iter=10).fit(X[train], y_partial)
    semi.append(model.score(X[test], y[test]))
    print(f"{share:.1%} labelled: labelled rows only {supervised[-1]:.3f}, with EM {semi[-1]:.3f}")
fully = nbfast.MultinomialNB(alpha=0.1).fit(X[train], y[train]).score(X[test], y[test])

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(shares, supervised, marker="o", label="labelled rows only")
ax.plot(shares, semi, marker="o", label="SemiSupervisedNB (EM)")
ax.axhline(fully, color="gray", linestyle="--", label="every row labelled")
ax.set_xscale("log")
ax.set_xlabel("share of training rows labelled")
ax.set_ylabel("accuracy on held-out rows")
ax.legend()
fig.tight_layout()
