"""
Refining Naive Bayes: accuracy and fit time against the number of documents
============================================================================

:class:`nbfast.DiscriminativeNB` starts from a Naive Bayes model and refines
its linear form by maximizing the conditional likelihood. The corpus here,
:func:`nbfast.datasets.make_phrase_documents`, is made of fixed multi-word
phrases, so the words of a document are not independent given its class:
Naive Bayes counts each phrase once per word and bigram. The refined model
labels about 2% more of the held-out documents right at every training size,
for a fit that costs one or two dozen passes over the data instead of one.
"""

import time

import matplotlib.pyplot as plt

import nbfast
from nbfast.datasets import make_phrase_documents
from nbfast.text import TfidfVectorizer

documents, y = make_phrase_documents(n_samples=14_000, n_classes=10, random_state=0)
test_documents, y_test = documents[10_000:], y[10_000:]
sizes = [250, 500, 1_000, 2_500, 5_000, 10_000]
models = {
    "MultinomialNB": lambda: nbfast.MultinomialNB(alpha=0.1),
    "DiscriminativeNB(C=3)": lambda: nbfast.DiscriminativeNB(C=3.0),
}
X_warm = TfidfVectorizer().fit_transform(documents[:100])
for make in models.values():  # the first fit loads modules (scipy.optimize): left out of the timings
    make().fit(X_warm, y[:100])
accuracy = {name: [] for name in models}
seconds = {name: [] for name in models}
for n in sizes:
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2)
    X = vectorizer.fit_transform(documents[:n])
    X_test = vectorizer.transform(test_documents)
    for name, make in models.items():
        start = time.perf_counter()
        model = make().fit(X, y[:n])
        seconds[name].append(time.perf_counter() - start)
        accuracy[name].append(model.score(X_test, y_test))
    print(f"{n:>6} documents: " + ", ".join(f"{name} {accuracy[name][-1]:.3f} ({seconds[name][-1]:.2f} s)"
                                           for name in models))

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
for name in models:
    left.plot(sizes, accuracy[name], marker="o", label=name)
    right.plot(sizes, seconds[name], marker="o", label=name)
left.set_xscale("log")
left.set_xlabel("training documents")
left.set_ylabel("accuracy on 4,000 held-out documents")
left.legend()
right.set_xscale("log")
right.set_yscale("log")
right.set_xlabel("training documents")
right.set_ylabel("fit time (s)")
fig.tight_layout()
