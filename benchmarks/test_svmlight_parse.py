"""Parse throughput of svmlight text: nbfast's chunked reader against scikit-learn's loader.

    pytest benchmarks/test_svmlight_parse.py                  # smoke: 2,000 documents, one round
    NBFAST_BENCH=full pytest benchmarks/test_svmlight_parse.py --benchmark-columns=min,median,max   # by hand
"""

import pytest

from benchmarks.conftest import FULL, ROUNDS
from nbfast.datasets import make_documents
from nbfast.readers import iter_svmlight

sk_datasets = pytest.importorskip("sklearn.datasets")
pytest.importorskip("pytest_benchmark")
N_FEATURES = 2**16
N_SAMPLES = 30_000 if FULL else 2_000


@pytest.fixture(scope="module")
def svmlight_file(tmp_path_factory):
    X, y = make_documents(N_SAMPLES, N_FEATURES, 20, mean_length=80, random_state=0)
    path = tmp_path_factory.mktemp("svmlight") / "corpus.svm"
    sk_datasets.dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path), X.nnz


def test_sklearn_load_svmlight_file(benchmark, svmlight_file):
    path, nnz = svmlight_file
    X, _ = benchmark.pedantic(sk_datasets.load_svmlight_file, args=(path,),
                              kwargs={"zero_based": False, "n_features": N_FEATURES}, rounds=ROUNDS)
    assert X.nnz == nnz


@pytest.mark.parametrize("chunk_size", [1_000, 10_000])
def test_nbfast_iter_svmlight(benchmark, svmlight_file, chunk_size):
    path, nnz = svmlight_file

    def read_all():
        return sum(block.to_csr(N_FEATURES).nnz for block in iter_svmlight(path, chunk_size))

    assert benchmark.pedantic(read_all, rounds=ROUNDS) == nnz
