"""The CV estimators' search against GridSearchCV's over the base model (5 alphas x 5 folds), in pytest-benchmark.

    pytest benchmarks/test_cv_search.py                      # smoke: 2,000 documents, one round
    NBFAST_BENCH=full pytest benchmarks/test_cv_search.py    # 200,000 documents, by hand

``python benchmarks/cv_search.py`` alternates the searches round by round and prints their ratios.
"""

import pytest

from benchmarks import real_corpus
from benchmarks.conftest import FULL, ROUNDS
from benchmarks.cv_search import SIZES, measure, searches
from nbfast.datasets import make_documents

pytest.importorskip("pytest_benchmark")

SEARCHES = ["CV", "GridSearchCV n_jobs=1", "GridSearchCV n_jobs=2"]


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
@pytest.mark.parametrize("estimator", ["MultinomialNB", "ComplementNB", "BernoulliNB", "PoissonNB"])
@pytest.mark.parametrize("search", SEARCHES)
def test_search(benchmark, search, estimator, scoring):
    size = SIZES["full" if FULL else "smoke"]
    X, y = make_documents(*size, random_state=0)
    runs = searches(estimator, scoring)
    run = runs[f"{estimator}CV" if search == "CV" else search]
    benchmark.group = f"{estimator} search, {scoring}, {size[0]}x{size[1]}"
    benchmark.pedantic(run, args=(X, y), rounds=ROUNDS, iterations=1, warmup_rounds=1 if FULL else 0)


def test_a_large_vocabulary_search_agrees_with_grid_search_cv():
    """The compact statistics of text (more features than documents), checked as ``--corpus`` checks them."""
    data = make_documents(1_500, 2**15, 8, mean_length=20, random_state=0)
    times, largest = measure("MultinomialNB", "accuracy", repeats=1, data=data)
    assert largest <= 1e-12 and all(len(rounds) == 1 for rounds in times.values())


def test_the_real_corpus_is_written_once_then_read(tmp_path):
    index = tmp_path / "Packages"
    index.write_text("Package: a\nSection: admin\nDescription: tool one\n\n"
                     "Package: b\nSection: net/sub\nDescription: tool two\n more text\n")
    out = tmp_path / "corpus.tsv"
    assert real_corpus.cached(str(out), str(index), min_docs=1) == (["admin", "sub"], ["a tool one", "b tool two more text"])
    index.unlink()  # read back, not rebuilt
    assert real_corpus.cached(str(out), str(index), min_docs=1)[0] == ["admin", "sub"]
