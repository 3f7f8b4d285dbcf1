"""nbfast.dask on a real distributed.LocalCluster with two worker processes."""

import importlib

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import exported

import nbfast
from nbfast.datasets import make_documents

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
nbdask = importlib.import_module("nbfast.dask")  # with dask installed, it must import

NAMES = exported(["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"])


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit="1GiB") as cluster, distributed.Client(cluster, timeout="60s") as c:
        yield c


@pytest.fixture(scope="module")
def data():
    X, y = make_documents(700, 120, 3, mean_length=20, class_separation=0.3, random_state=11)
    weight = np.random.default_rng(2).uniform(0.2, 2.0, size=700)
    return X, y, weight


def sparse_dask(X, row_chunks):
    """A dask array whose blocks are CSR matrices (row blocks of X)."""
    bounds = np.cumsum([0] + list(row_chunks))
    blocks = [da.from_delayed(dask.delayed(sp.csr_matrix)(X[a:b]), shape=(b - a, X.shape[1]),
                              dtype=X.dtype, meta=sp.csr_matrix((0, 0))) for a, b in zip(bounds[:-1], bounds[1:])]
    return da.concatenate(blocks, axis=0)


ROW_CHUNKS = [100, 37, 0, 200, 63, 150, 150]


def assert_same_model(model, expected, X_test):
    assert type(model) is type(expected)
    np.testing.assert_array_equal(model.classes_, expected.classes_)
    np.testing.assert_allclose(model.class_count_, expected.class_count_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.feature_count_, expected.feature_count_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X_test), expected.predict_proba(X_test), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("layout", ["csr", "dense"])
def test_fit_on_cluster_equals_local_fit(client, data, name, layout):
    X, y, weight = data
    dX = sparse_dask(X, ROW_CHUNKS) if layout == "csr" else da.from_array(X.toarray(), chunks=(ROW_CHUNKS, 60))
    labels = np.array(["red", "green", "blue"])[y]
    dy = da.from_array(labels, chunks=90)  # not aligned with X: fit rechunks it
    estimator = getattr(nbfast, name)(alpha=0.7)
    with distributed.get_task_stream(client) as tasks:
        model = nbdask.fit(estimator, dX, dy, sample_weight=weight, split_every=2)
    assert {t["worker"] for t in tasks.data} <= set(client.scheduler_info()["workers"])
    assert any("_fit_block" in str(t["key"]) for t in tasks.data)  # the blocks were fitted on the workers
    assert not hasattr(estimator, "classes_")  # the template is left unfitted
    expected = getattr(nbfast, name)(alpha=0.7).fit(X, labels, sample_weight=weight)
    assert_same_model(model, expected, X)


def test_predict_and_predict_proba_on_cluster_equal_local(client, data):
    X, y, _ = data
    model = nbfast.MultinomialNB().fit(X, y)
    dX = sparse_dask(X, ROW_CHUNKS)
    labels, proba = nbdask.predict(model, dX), nbdask.predict_proba(model, dX)
    assert labels.shape == (700,) and proba.shape == (700, 3)
    labels, proba = client.compute([labels, proba], sync=True)
    np.testing.assert_array_equal(labels, model.predict(X))
    np.testing.assert_array_equal(proba, model.predict_proba(X))
    dense = da.from_array(X.toarray(), chunks=(128, 50))
    np.testing.assert_array_equal(nbdask.predict(model, dense).compute(), model.predict(X))
    np.testing.assert_array_equal(nbdask.predict_proba(model, dense).compute(), model.predict_proba(X))


def test_fit_with_explicit_classes_and_dask_weights(client, data):
    X, y, weight = data
    dX = sparse_dask(X, [350, 350])
    model = nbdask.fit(nbfast.BernoulliNB(), dX, da.from_array(y, chunks=350), classes=[0, 1, 2, 3],
                       sample_weight=da.from_array(weight, chunks=200))
    expected = nbfast.BernoulliNB().partial_fit(X, y, classes=[0, 1, 2, 3], sample_weight=weight)
    assert_same_model(model, expected, X)


def test_errors():
    X, y = make_documents(50, 10, 2, random_state=0)
    dX = da.from_array(X.toarray(), chunks=25)
    with pytest.raises(TypeError, match="must be a dask array"):
        nbdask.fit(nbfast.MultinomialNB(), X, y)
    with pytest.raises(TypeError, match="nbfast Naive Bayes estimator"):
        nbdask.fit(object(), dX, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        nbdask.fit(nbfast.MultinomialNB(), dX, y[:40])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        nbdask.fit(nbfast.MultinomialNB(), dX, da.from_array(y[:40], chunks=20))
    unknown = dX[dX.sum(axis=1) >= 0]  # boolean row selection: block sizes become unknown
    with pytest.raises(ValueError, match="unknown block sizes"):
        nbdask.fit(nbfast.MultinomialNB(), unknown, y)
    with pytest.raises(ValueError, match="2-D"):
        nbdask.fit(nbfast.MultinomialNB(), dX[:, 0], y)
    with pytest.raises(nbfast._compat.NotFittedError):
        nbdask.predict(nbfast.MultinomialNB(), dX)


def test_unknown_block_sizes_with_matching_label_blocks():
    X, y = make_documents(80, 12, 2, random_state=1)
    dense = X.toarray()
    dX, dy = da.from_array(dense, chunks=20), da.from_array(y, chunks=20)
    keep = dX.sum(axis=1) > 3
    model = nbdask.fit(nbfast.MultinomialNB(), dX[keep], dy[keep])
    mask = dense.sum(axis=1) > 3
    assert_same_model(model, nbfast.MultinomialNB().fit(dense[mask], y[mask]), dense)


@pytest.mark.parametrize("name", NAMES)
def test_compact_models_on_cluster(client, name):
    """A large vocabulary: every block's model and the merged one are compact, and equal the local fit."""
    X, y = make_documents(700, 2**15, 4, mean_length=15, class_separation=0.3, random_state=13)
    model = nbdask.fit(getattr(nbfast, name)(), sparse_dask(X, ROW_CHUNKS), y, split_every=3)
    expected = getattr(nbfast, name)().fit(X, y)
    assert model._is_compact() and expected._is_compact()
    assert_same_model(model, expected, X)
    proba = nbdask.predict_proba(model, sparse_dask(X, ROW_CHUNKS)).compute()
    np.testing.assert_array_equal(proba, model.predict_proba(X))


@pytest.mark.parametrize("name", [*NAMES, "CategoricalNB", "GaussianNB"])
@pytest.mark.parametrize("zero_blocks", [(1,), (0,), (6,), (0, 1, 5, 6)], ids=["middle", "first", "last", "several"])
def test_a_block_of_zero_weights_gives_the_in_memory_fit(data, name, zero_blocks):
    X, y, weight = data
    X = X.toarray()
    if name == "CategoricalNB":
        X = np.minimum(X, 4)
    chunks = [100, 100, 100, 100, 100, 100, 100]
    weight = weight.copy()
    for block in zero_blocks:
        weight[block * 100:(block + 1) * 100] = 0.0
    if name == "CategoricalNB":
        X[150, 3] = 9  # a category seen only in a zero-weight row still widens n_categories_, as in one fit
    expected = getattr(nbfast, name)().fit(X, y, sample_weight=weight)
    with dask.config.set(scheduler="sync"):
        model = nbdask.fit(getattr(nbfast, name)(), da.from_array(X, chunks=(chunks, 120)), y, sample_weight=weight)
        dask_weights = nbdask.fit(getattr(nbfast, name)(), da.from_array(X, chunks=(chunks, 120)), y,
                                  sample_weight=da.from_array(weight, chunks=50))
    for fitted in (model, dask_weights):
        np.testing.assert_allclose(fitted.class_count_, expected.class_count_, rtol=1e-12)
        np.testing.assert_allclose(fitted.predict_joint_log_proba(X), expected.predict_joint_log_proba(X),
                                   rtol=1e-9, atol=1e-9)


def test_only_zero_weights_are_refused_as_in_memory(data):
    X, y, _ = data
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="all sample_weight are 0"):
        nbdask.fit(nbfast.MultinomialNB(), da.from_array(X.toarray(), chunks=(100, 120)), y,
                   sample_weight=np.zeros(X.shape[0]))
