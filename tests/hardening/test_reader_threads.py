"""The threads that read, vectorize and score input blocks in the command line: optional modules are imported
before they start, on the thread that starts them; there are never more of them than blocks or CPUs."""

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from nbfast.cli import main
from nbfast.readers import ordered_map

WORDS = ["spam", "ham", "offer", "meeting", "the", "and", "cheap", "agenda", "of", "win", "report", "now"]


def _corpus(n_lines):
    return "".join(" ".join(WORDS[(i * k + k) % len(WORDS)] for k in range(1, 8)) + "\n" for i in range(n_lines))


def _train(folder, *args):
    """Train ``folder/m.nbf`` on ``folder/data.tsv`` in this process (only predictions need a fresh one)."""
    assert main(["train", str(folder / "data.tsv"), "-o", str(folder / "m.nbf"), *args]) == 0


#: Runs ``nbfast ARGS`` in this process and prints, as JSON, what happened in order: ["import", module, whether on
#: the main thread] for each scikit-learn module imported, ["thread", name] for each thread started, then
#: ["status", exit status].
_RECORDER = textwrap.dedent("""
    import json, sys, threading
    events = []

    class Recorder:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "sklearn":
                events.append(["import", name, threading.current_thread() is threading.main_thread()])
            return None

    sys.meta_path.insert(0, Recorder())
    start = threading.Thread.start

    def recorded_start(self):
        events.append(["thread", self.name])
        start(self)

    threading.Thread.start = recorded_start
    from nbfast.cli import main
    events.append(["status", main(sys.argv[1:])])
    print(json.dumps(events))
""")


def _recorded(folder, *args, env=None):
    """The events (see _RECORDER) of ``nbfast ARGS`` run in a fresh process in ``folder``."""
    result = subprocess.run([sys.executable, "-c", _RECORDER, *args], cwd=folder, capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    events = json.loads(result.stdout.splitlines()[-1])
    assert events[-1] == ["status", 0], result.stderr
    return events


@pytest.fixture(scope="module")
def stop_words_prediction(tmp_path_factory):
    """(The folder, the events) of `nbfast predict` in a fresh process of docs.txt (4,000 lines, 16 blocks) to
    out.csv by m.nbf, trained with English stop words: every block is vectorized by scikit-learn's stop list.
    Before, the worker threads imported it at once (with more threads than the CPUs asked for, as
    OMP_NUM_THREADS did here, the race was more likely)."""
    pytest.importorskip("sklearn")
    folder = tmp_path_factory.mktemp("stop_words")
    labels = ["spam", "ham"]
    (folder / "data.tsv").write_text("".join(f"{labels[i % 2]}\t{line}" for i, line in
                                             enumerate(_corpus(200).splitlines(keepends=True))))
    (folder / "docs.txt").write_text(_corpus(4_000))
    _train(folder, "--stop-words", "english")
    env = {**os.environ, "OMP_NUM_THREADS": "8"}
    events = _recorded(folder, "predict", "m.nbf", "docs.txt", "-o", "out.csv", "--chunk-size", "250", env=env)
    return folder, events


def test_predict_with_stop_words_succeeds_in_a_fresh_process(stop_words_prediction):
    folder, _ = stop_words_prediction
    assert main(["predict", str(folder / "m.nbf"), str(folder / "docs.txt"), "-o", str(folder / "here.csv")]) == 0
    output = (folder / "out.csv").read_text()
    assert len(output.splitlines()) == 4_001
    assert output == (folder / "here.csv").read_text()  # as predicted in one block, with scikit-learn imported


def test_optional_modules_are_imported_on_the_calling_thread_before_threads_start(stop_words_prediction):
    _, events = stop_words_prediction
    imports = [event for event in events if event[0] == "import"]
    first_thread = next(i for i, event in enumerate(events) if event[0] == "thread")
    assert imports, "scikit-learn was not imported"
    assert all(on_main for _, _, on_main in imports), imports
    assert all(events.index(event) < first_thread for event in imports), events


# ----------------------------------------------------------------------------- threads bounded by the work and CPUs
@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """A folder holding m.nbf, trained on two lines of text, one.txt (one line) and many.txt (40 lines)."""
    folder = tmp_path_factory.mktemp("small")
    (folder / "data.tsv").write_text("spam\tcheap offer now\nham\tmeeting agenda\n")
    (folder / "one.txt").write_text("cheap offer\n")
    (folder / "many.txt").write_text("cheap offer\nmeeting\n" * 20)
    _train(folder)
    return folder


def _map_threads(events):
    return [event for event in events if event[0] == "thread" and event[1].startswith("nbfast-map")]


def test_a_huge_omp_num_threads_starts_one_thread_per_block(small_model):
    env = {**os.environ, "OMP_NUM_THREADS": "64"}
    events = _recorded(small_model, "predict", "m.nbf", "one.txt", "-o", "one.csv", env=env)
    assert len(_map_threads(events)) <= 2  # one block: one thread reads it, one scores it
    assert (small_model / "one.csv").read_text().splitlines() == ["label", "spam"]


def test_reader_threads_are_at_most_the_cpus(small_model):
    env = {**os.environ, "OMP_NUM_THREADS": "64"}
    events = _recorded(small_model, "predict", "m.nbf", "many.txt", "-o", "many.csv", "--chunk-size", "1", env=env)
    assert len(_map_threads(events)) <= 2 * len(os.sched_getaffinity(0))  # the reading and the scoring threads
    assert len((small_model / "many.csv").read_text().splitlines()) == 41


def test_ordered_map_starts_no_more_threads_than_items():
    def threads_alive(item):
        return len([thread for thread in threading.enumerate() if thread.name.startswith("nbfast-map")])

    assert list(ordered_map(threads_alive, iter([7]), 16)) == [1]
    assert max(ordered_map(threads_alive, iter(range(3)), 16)) <= 3
