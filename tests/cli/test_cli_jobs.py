"""``--jobs/-j``: the threads of a command, checked like any option; output that does not depend on them."""

import threading

import numpy as np
import pytest

import nbfast
import nbfast.readers._block as block_module
from nbfast._kernels import threads
from nbfast.cli import main
from nbfast.datasets import make_text_documents


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    documents, y = make_text_documents(400, 3, random_state=1)
    path = tmp_path_factory.mktemp("jobs") / "d.tsv"
    path.write_text("".join(f"c{label}\t{doc}\n" for label, doc in zip(y, documents)), encoding="utf-8")
    return path


@pytest.fixture
def map_threads(monkeypatch):
    """The threads each block map (vectorizing, scoring) of a command was sized for, on a machine of 8 CPUs."""
    monkeypatch.setattr(block_module, "available_cpus", lambda: 8)
    seen = []
    original = block_module.effective_n_threads

    def spy(*args):
        seen.append(original(*args))
        return seen[-1]

    monkeypatch.setattr(block_module, "effective_n_threads", spy)
    return seen


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("vectorizer", ["tfidf", "count", "hashing"])
def test_train_and_predict_give_the_same_model_and_output_for_any_jobs(vectorizer, corpus, tmp_path, capsys,
                                                                        map_threads):
    outputs, tables = [], []
    for jobs in ("1", "2", "3", "4"):
        model, out = tmp_path / f"m{jobs}", tmp_path / f"out{jobs}.csv"
        status, err = _run(capsys, "train", corpus, "-o", model, "--vectorizer", vectorizer, "-j", jobs,
                           "--chunk-size", 50)
        assert status == 0, err
        status, err = _run(capsys, "predict", model, corpus, "-o", out, "--proba", "--jobs", jobs, "--chunk-size", 50)
        assert status == 0, err
        outputs.append(out.read_bytes())
        tables.append(nbfast.load(model).feature_log_prob_)
        assert map_threads and set(map_threads) == {int(jobs)}, map_threads  # every map of both commands
        map_threads.clear()
    assert all(output == outputs[0] for output in outputs)
    for table in tables[1:]:
        np.testing.assert_array_equal(table, tables[0])


def test_jobs_caps_the_threads_of_a_model_whose_n_jobs_asks_more(corpus, tmp_path, capsys, monkeypatch):
    status, err = _run(capsys, "train", corpus, "-o", tmp_path / "m")
    assert status == 0, err
    model, vectorizer = nbfast.load(tmp_path / "m"), nbfast.persist.load_vectorizer(tmp_path / "m")
    nbfast.save(model.set_params(n_jobs=4), tmp_path / "m4", vectorizer=vectorizer)
    monkeypatch.setattr(threads, "MIN_WORK_PER_THREAD", 1)
    seen = []
    for table in (nbfast.naive_bayes._tables.DenseTable, nbfast.naive_bayes._tables.CompactTable):
        monkeypatch.setattr(table, "score", lambda *args, score=table.score: seen.append(
            (threading.current_thread().name, args[-1])) or score(*args))
    status, err = _run(capsys, "predict", tmp_path / "m4", corpus, "-o", tmp_path / "o.csv", "-j", "1")
    assert status == 0, err
    assert seen and all(n_threads == 1 for _, n_threads in seen), seen
    with threads.n_jobs_limit(None):  # the limit ended with the command
        assert threads.limit_state() == (None, None)


@pytest.mark.parametrize("command", ["train", "predict", "evaluate", "explain"])
@pytest.mark.parametrize(("value", "message"), [("0", "must be at least 1"), ("two", "must be a whole number")])
def test_a_bad_jobs_value_is_a_usage_error(command, value, message, corpus, tmp_path, capsys):
    argv = {"train": ["train", corpus, "-o", tmp_path / "m"], "predict": ["predict", tmp_path / "m", corpus],
            "evaluate": ["evaluate", tmp_path / "m", corpus], "explain": ["explain", tmp_path / "m", corpus]}[command]
    status, err = _run(capsys, *argv, "-j", value)
    assert status == 2 and "-j/--jobs" in err and message in err, err
