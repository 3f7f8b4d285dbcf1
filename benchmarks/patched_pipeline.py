"""An unchanged scikit-learn script, patched and not: ``python benchmarks/patched_pipeline.py [--busy]``.

The script is what users already have: ``make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2,
sublinear_tf=True), MultinomialNB())`` in a ``GridSearchCV`` over five alphas and five folds, then ``predict``
on every document, all imported from scikit-learn.  Each run is a fresh process, without and with
``nbfast.patch_sklearn()`` before the imports, alternating; the medians, their ratio, and whether the two
chose the same alpha, with the same cross-validation scores and predictions, are printed.
"""

import argparse
import json
import statistics
import subprocess
import sys

from nbfast.cli.bench._harness import busy_core

SCRIPT = """
import hashlib, json, sys, time
import numpy as np
from nbfast.datasets import make_text_documents
documents, y = make_text_documents(n_samples={n_samples}, n_classes=40, random_state=0)
start = time.perf_counter()
if {patched}:
    import nbfast
    nbfast.patch_sklearn()
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
pipeline = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True), MultinomialNB())
search = GridSearchCV(pipeline, {{"multinomialnb__alpha": [0.01, 0.03, 0.1, 0.3, 1.0]}}, cv=5).fit(documents, y)
predicted = search.predict(documents)
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "alpha": search.best_params_["multinomialnb__alpha"],
                  "scores": search.cv_results_["mean_test_score"].tolist(),
                  "labels": hashlib.sha256(np.asarray(predicted).tobytes()).hexdigest()}}))
"""


def run(n_samples, patched):
    result = subprocess.run([sys.executable, "-c", SCRIPT.format(n_samples=n_samples, patched=patched)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", action="store_true", help="run a CPU-bound process beside the measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-samples", type=int, default=20_000)
    args = parser.parse_args()
    runs = {"scikit-learn": [], "patched": []}
    with busy_core(args.busy):
        for _ in range(args.repeats):
            for name in runs:
                runs[name].append(run(args.n_samples, name == "patched"))
    theirs, ours = ([r["seconds"] for r in runs[name]] for name in ("scikit-learn", "patched"))
    first, patched = runs["scikit-learn"][0], runs["patched"][0]
    same_scores = max(abs(a - b) for a, b in zip(first["scores"], patched["scores"]))
    print(f"{args.n_samples:,} documents, 40 classes, GridSearchCV 5 alphas x 5 folds + predict "
          f"({'busy' if args.busy else 'idle'}), medians of {args.repeats} fresh processes: "
          f"scikit-learn {statistics.median(theirs):.2f} s, patched {statistics.median(ours):.2f} s, "
          f"{statistics.median(theirs) / statistics.median(ours):.1f}x")
    print(f"same alpha: {first['alpha'] == patched['alpha']} ({patched['alpha']}), largest difference of the "
          f"mean CV scores: {same_scores:.1e}, same predictions: {first['labels'] == patched['labels']}")


if __name__ == "__main__":
    main()
