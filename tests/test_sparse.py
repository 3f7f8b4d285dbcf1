"""scipy.sparse imported when first used, and nbfast's own CSR rows (``Rows``): checked as any CSR input, learnt
from and scored as they are by the models that say so, turned into a scipy matrix for the others."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast
from nbfast import _sparse
from nbfast.datasets import make_documents
from nbfast.naive_bayes import ESTIMATORS
from nbfast.naive_bayes._base import _BaseNB, _LinearNB, _StatisticsNB
from nbfast.naive_bayes._count import _CountNB


def _rows(X, index_dtype=np.int32, dtype=np.float64):
    X = sp.csr_array(X)
    return _sparse.Rows(X.data.astype(dtype), X.indices.astype(index_dtype), X.indptr.astype(index_dtype), X.shape)


def test_scipy_sparse_is_imported_only_when_a_name_of_it_is_used():
    code = """
        import sys
        import numpy as np
        from nbfast import _sparse as sp
        import nbfast.naive_bayes, nbfast.text, nbfast.readers, nbfast.persist
        print(sp.issparse(np.zeros((2, 2))), "scipy.sparse" in sys.modules)
        print(sp.issparse(sp.csr_array(np.eye(2))), "scipy.sparse" in sys.modules)
    """
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["False False", "True True"]


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize(
    "make,compact",
    [
        (nbfast.MultinomialNB, False),
        (nbfast.ComplementNB, False),
        (lambda: nbfast.MultinomialNB(alpha=0.1, fit_prior=False), False),
        (lambda: nbfast.ComplementNB(norm=True), False),
        (nbfast.MultinomialNB, True),
        (nbfast.ComplementNB, True),
    ],
)
def test_models_reading_rows_give_what_they_give_on_a_scipy_matrix(make, compact, dtype, index_dtype):
    # a large vocabulary with few counts makes a compact model
    X, y = make_documents(200, 2**14, 4, mean_length=10, random_state=3) if compact else make_documents(
        300, 40, 3, random_state=0)
    model = make().fit(X, y)
    assert model._reads_rows and model._is_compact() == compact
    rows = _rows(X, index_dtype, dtype)
    expected_X = sp.csr_array(X.astype(dtype))
    # learnt from in blocks, as the command line trains
    learnt, expected = make(), make()
    for part in (slice(0, 70), slice(70, None)):
        learnt.partial_fit(_rows(X[part], index_dtype, dtype), y[part], classes=np.unique(y))
        expected.partial_fit(expected_X[part], y[part], classes=np.unique(y))
    assert learnt._is_compact() == expected._is_compact()
    for name in ("class_count_", "feature_count_", "feature_log_prob_"):
        np.testing.assert_array_equal(getattr(learnt, name), getattr(expected, name), err_msg=name)
    np.testing.assert_array_equal(model.predict(rows), model.predict(expected_X))
    np.testing.assert_array_equal(model.predict_proba(rows), model.predict_proba(expected_X))
    np.testing.assert_array_equal(model.predict_joint_log_proba(rows), model.predict_joint_log_proba(expected_X))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_model_reads_rows_only_through_the_checks_and_the_kernels_that_read_buffers_alone(name):
    """``_reads_rows`` is a promise: X checked by ``_BaseNB._check_X`` only, counted by the count kernels (partial_fit
    and ``_CountNB._accumulate``), scored by the linear kernel alone."""
    cls = ESTIMATORS[name]
    if not cls._reads_rows:
        return
    assert issubclass(cls, _LinearNB) and issubclass(cls, _CountNB)
    assert cls._check_X is _BaseNB._check_X
    assert cls.partial_fit is _StatisticsNB.partial_fit
    assert cls._accumulate is _CountNB._accumulate
    assert cls._score is _LinearNB._score
    assert cls._score_outside_the_linear_form is _LinearNB._score_outside_the_linear_form
    assert cls._predict_input is _BaseNB._predict_input


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda r: r._replace(indices=np.where(r.indices == 3, 1000, r.indices)), r"column index 1000 is outside"),
        (lambda r: r._replace(data=np.where(r.data > 1, -1.0, r.data)), "Negative values"),
        (lambda r: r._replace(data=np.where(r.data > 1, np.nan, r.data)), "NaN"),
        (lambda r: r._replace(indptr=r.indptr[:-1]), "indptr has length"),
    ],
)
def test_rows_are_checked_as_any_csr_input(change, match):
    X, y = make_documents(100, 20, 2, random_state=1)
    model = nbfast.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match=match):
        model.predict(change(_rows(X)))


def test_rows_with_a_column_stored_twice_are_scored_as_its_sum():
    X, y = make_documents(100, 20, 2, random_state=2)
    model = nbfast.MultinomialNB().fit(X, y)
    twice = _sparse.Rows(np.array([1.0, 2.0, 4.0]), np.array([3, 3, 5], np.int32), np.array([0, 3], np.int32),
                         (1, 20))
    dense = np.zeros((1, 20))
    dense[0, 3], dense[0, 5] = 3.0, 4.0
    np.testing.assert_array_equal(model.predict_proba(twice), model.predict_proba(dense))
