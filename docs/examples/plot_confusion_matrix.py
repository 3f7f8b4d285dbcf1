"""
Confusion matrix and reliability diagram
========================================

:func:`nbfast.evaluate` gives accuracy, per-class precision, recall and F1,
log-loss, the expected calibration error and the confusion matrix, equal to
``sklearn.metrics`` on the same predictions. ``Evaluation.plot`` draws the
confusion matrix, normalized per true class, beside the reliability diagram
(the accuracy of the rows in each bin of confidence). ``nbfast evaluate MODEL
FILE --plot matrix.png`` draws the same from the command line.
"""

import nbfast
from nbfast.datasets import make_text_documents
from nbfast.text import TfidfVectorizer

documents, labels = make_text_documents(n_samples=6_000, n_classes=8, random_state=0)
vectorizer = TfidfVectorizer(min_df=2)
X_train = vectorizer.fit_transform(documents[:5000])
model = nbfast.MultinomialNB(alpha=0.1).fit(X_train, labels[:5000])

evaluation = nbfast.evaluate(model, vectorizer.transform(documents[5000:]), labels[5000:])
print(evaluation.report())
evaluation.plot()
