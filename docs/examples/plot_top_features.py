"""
Most informative features per class
===================================

Naive Bayes log-odds are a sum of per-feature terms, so the features that
most raise a class against the others are read off the model exactly
(:func:`nbfast.top_features`); :func:`nbfast.explain` splits one document's
decision the same way.
"""

import matplotlib.pyplot as plt

import nbfast
from nbfast.datasets import make_text_documents
from nbfast.text import CountVectorizer

documents, labels = make_text_documents(n_samples=4_000, n_classes=4, random_state=1)
vectorizer = CountVectorizer(min_df=2)
model = nbfast.MultinomialNB().fit(vectorizer.fit_transform(documents), labels)
top = nbfast.top_features(model, n=8, feature_names=vectorizer.get_feature_names_out())

fig, axes = plt.subplots(1, len(top.classes), figsize=(11, 3.6), sharex=True)
for ax, label, names, scores in zip(axes, top.classes, top.names, top.scores):
    ax.barh(range(len(names))[::-1], scores, color="tab:blue")
    ax.set_yticks(range(len(names))[::-1], names, fontsize=8)
    ax.set_title(f"class {label}", fontsize=10)
    ax.set_xlabel("log-odds against the others", fontsize=8)
fig.tight_layout()

explanation = nbfast.explain(model, vectorizer.transform(documents[:1]), n=5,
                             feature_names=vectorizer.get_feature_names_out())
print(explanation.text(0))
