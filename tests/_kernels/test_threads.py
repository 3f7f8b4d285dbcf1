"""The thread count: CPU affinity and cgroup quotas, and results that do not depend on it."""

import numpy as np
import pytest

from nbfast._kernels import threads
from nbfast.datasets import make_documents, make_text_documents
from nbfast.naive_bayes import ESTIMATORS
from nbfast.readers import iter_blocks
from nbfast.text import HashingVectorizer, TfidfVectorizer
from nbfast.text._lines import DocumentBlocks


def _cgroup(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


@pytest.mark.parametrize(("files", "expected"), [
    ({"cpu.max": "max 100000\n"}, None),
    ({"cpu.max": "150000 100000\n"}, 2),
    ({"cpu.max": "50000 100000\n"}, 1),
    ({"cpu.max": "400000 100000\n"}, 4),
    ({"cpu.max": "garbage\n"}, None),
    ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    ({"cpu/cpu.cfs_quota_us": "250000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 3),
    ({"cpu/cpu.cfs_quota_us": "100000\n"}, None),  # no period: unknown
    ({}, None),
], ids=["v2-unlimited", "v2-1.5", "v2-0.5", "v2-4", "v2-garbage", "v1-unlimited", "v1-2.5", "v1-no-period", "none"])
def test_cgroup_cpu_limit_reads_v1_and_v2_quotas(tmp_path, files, expected):
    assert threads.cgroup_cpu_limit(_cgroup(tmp_path, files)) == expected


def test_available_cpus_is_the_affinity_mask_capped_by_the_quota(tmp_path):
    mask = len(__import__("os").sched_getaffinity(0))
    assert threads.available_cpus(_cgroup(tmp_path, {})) == mask
    assert threads.available_cpus(_cgroup(tmp_path, {"cpu.max": "100000 100000"})) == 1
    assert threads.available_cpus(_cgroup(tmp_path, {"cpu.max": f"{100000 * (mask + 3)} 100000"})) == mask


def test_the_default_thread_count_is_capped_by_the_cpu_budget(monkeypatch, n_threads_limit):
    if not threads.openmp_enabled():
        pytest.skip("a serial build runs one thread")
    monkeypatch.setattr(threads, "_cpu_budget", 1)  # as under a one-CPU cgroup quota
    monkeypatch.setattr(threads, "_ENVIRONMENT_LIMIT", False)
    with n_threads_limit(threads._DEFAULT_MAX_THREADS):
        assert threads.effective_n_threads() == 1
    with n_threads_limit(threads._DEFAULT_MAX_THREADS + 2):  # an explicit limit is obeyed as given
        assert threads.effective_n_threads() == threads._DEFAULT_MAX_THREADS + 2


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_results_are_bit_identical_for_1_2_and_4_threads(name, n_threads_limit):
    X, y = make_documents(3000, 300, 5, random_state=0)
    results = []
    for n in (1, 2, 4):
        with n_threads_limit(n):
            try:
                model = ESTIMATORS[name]().fit(X, y)
            except TypeError:  # an estimator that needs its parts given
                pytest.skip(f"{name} has no default construction")
            results.append((model.predict(X), model.predict_proba(X), model.predict_joint_log_proba(X)))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)


def test_text_read_in_blocks_is_bit_identical_for_1_2_and_4_threads(tmp_path, n_threads_limit):
    """Documents read from a file as spans of one str (big enough batches for several threads) vectorize and
    fit the same whatever the thread count."""
    documents, y = make_text_documents(3000, 3, random_state=0)
    path = tmp_path / "docs.tsv"
    path.write_text("".join(f"{label}\t{text}\n" for label, text in zip(y, documents)), encoding="utf-8")
    results = []
    for n in (1, 2, 4):
        with n_threads_limit(n):
            tfidf = TfidfVectorizer(ngram_range=(1, 2)).fit(
                DocumentBlocks(block.documents for block in iter_blocks([path], 1000)))
            blocks = list(iter_blocks([path], 1000, vectorizer=tfidf))
            hashed = HashingVectorizer(n_features=2**12).transform(blocks[0].documents)
            results.append((tfidf.vocabulary_, [(b.data, b.indices, b.indptr) for b in blocks], hashed))
    for vocabulary, blocks, hashed in results[1:]:
        assert vocabulary == results[0][0]
        for arrays, expected in zip(blocks, results[0][1]):
            for a, b in zip(arrays, expected):
                np.testing.assert_array_equal(a, b)
        assert (hashed != results[0][2]).nnz == 0 and np.array_equal(hashed.data, results[0][2].data)


def test_n_jobs_limits_nest_and_a_ceiling_holds_inner_ones_down(monkeypatch):
    monkeypatch.setattr(threads, "_cpu_budget", 6)
    assert threads.threads_for_n_jobs(None) is None
    assert [threads.threads_for_n_jobs(n) for n in (1, 5, -1, -2, -6, -9)] == [1, 5, 6, 5, 1, 1]
    with pytest.raises(ValueError, match="n_jobs == 0"):
        threads.threads_for_n_jobs(0)
    default = threads.effective_n_threads()
    with threads.n_jobs_limit(3):
        assert threads.effective_n_threads() == 3
        assert threads.effective_n_threads(n_work=threads.MIN_WORK_PER_THREAD) == 1  # small calls stay serial
        with threads.n_jobs_limit(None):
            assert threads.effective_n_threads() == 3
        with threads.n_jobs_limit(5):
            assert threads.effective_n_threads() == 5
        assert threads.effective_n_threads() == 3
    with threads.n_jobs_limit(2, ceiling=True):
        with threads.n_jobs_limit(5):
            assert threads.effective_n_threads() == 2
        with threads.n_jobs_limit(1):
            assert threads.effective_n_threads() == 1
    assert threads.effective_n_threads() == default and threads.limit_state() == (None, None)


def test_an_n_jobs_limit_belongs_to_its_thread_and_those_that_adopt_it():
    import threading

    seen = {}
    with threads.n_jobs_limit(3, ceiling=True):
        state = threads.limit_state()

        def other(name, adopt):
            if adopt:
                threads.adopt_limit_state(state)
            seen[name] = threads.limit_state()

        for name, adopt in (("plain", False), ("adopting", True)):
            thread = threading.Thread(target=other, args=(name, adopt))
            thread.start()
            thread.join()
    assert seen == {"plain": (None, None), "adopting": (3, 3)}
