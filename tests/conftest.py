"""Shared fixtures: a corpus, thread control, and a working directory outside the source tree."""

import pytest

from nbfast.datasets import make_documents


@pytest.fixture(params=[2, 7, 120], ids=lambda c: f"{c}classes")
def corpus(request):
    n_classes = request.param
    X, y = make_documents(
        n_samples=600, n_features=300, n_classes=n_classes, mean_length=30, class_separation=0.3, random_state=n_classes
    )
    return X, y


@pytest.fixture
def n_threads_limit(monkeypatch):
    """Context manager factory setting the OpenMP threads of the kernels.

    Small test inputs would run on one thread (threads.MIN_WORK_PER_THREAD):
    the fixture lowers that floor so that the requested count is really used.
    """
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from nbfast._kernels import threads

    monkeypatch.setattr(threads, "MIN_WORK_PER_THREAD", 1)

    def limit(n):
        return threadpoolctl.threadpool_limits(limits=n, user_api="openmp")

    return limit


@pytest.fixture(autouse=True, scope="session")
def _run_outside_the_source_tree(tmp_path_factory):
    """Run every test (and the subprocesses tests start) from an empty directory:
    from the repository root, ``python -c``/``-m`` would import the uncompiled
    source tree instead of the installed package."""
    import os

    previous = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    os.chdir(previous)
