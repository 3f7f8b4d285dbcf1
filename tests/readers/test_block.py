"""Reading ahead in a thread and making blocks in parallel: order kept, errors raised, and an end even when
interrupted."""

import queue
import threading
import time

import pytest

from nbfast._kernels.threads import effective_n_threads
from nbfast.readers import _block, ordered_map, prefetch


def test_prefetch_keeps_order_and_raises_producer_errors():
    assert list(prefetch(iter(range(50)))) == list(range(50))

    def failing():
        yield 1
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        list(prefetch(failing()))
    stream = prefetch(iter(range(1000)))
    assert next(stream) == 0
    stream.close()  # stopping early does not hang


class InterruptedQueue(queue.Queue):
    """A queue whose get is interrupted by a signal's exception just after taking the queue's lock, as SIGTERM
    can interrupt it: the lock stays held."""

    def get(self, block=True, timeout=None):
        self.mutex.acquire()
        raise KeyboardInterrupt("signal")


def test_prefetch_interrupted_while_holding_the_queue_lock_still_ends(monkeypatch):
    import nbfast.readers._block as block_module

    monkeypatch.setattr(block_module.queue, "Queue", InterruptedQueue)
    monkeypatch.setattr(block_module, "_JOIN_SECONDS", 0.5)
    outcome = []

    def consume():
        try:
            list(prefetch(iter(range(1000))))
        except KeyboardInterrupt as exc:
            outcome.append(exc)

    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    consumer.join(timeout=30)
    assert not consumer.is_alive(), "closing the stream waited forever on the queue's lock"
    assert len(outcome) == 1


@pytest.mark.parametrize("read_bytes", [1, 7, 1 << 16])
@pytest.mark.parametrize("content", [b"", b"\n", b"a\nbb\n\nccc", b"\xef\xbb\xbfh\nx\r\ny\n", b"one line, no newline",
                                     b"\xef\xbb\xbf", b"\n\n\n\n\n\n\n"])
@pytest.mark.parametrize("chunk_size", [1, 2, 3, 100])
@pytest.mark.parametrize("header", [False, True])
def test_line_chunks_cut_the_file_as_its_lines(tmp_path, monkeypatch, read_bytes, content, chunk_size, header):
    """Blocks of whole lines whatever the read size: the lines a binary file iterates, the byte order mark
    dropped, the header skipped, numbered from the first line."""
    monkeypatch.setattr(_block, "_READ_BYTES", read_bytes)
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    parts = content.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    lines[:1] = [line.removeprefix(b"\xef\xbb\xbf") for line in lines[:1]]
    # as the lines of a binary file, chunk_size at a time, the header dropped from the first block
    expected = [(1 + start, lines[start:start + chunk_size]) for start in range(0, len(lines), chunk_size)]
    if header and expected:
        expected[0] = (2, expected[0][1][1:])
    expected = [(number, block) for number, block in expected if block]
    got = [(number, list(block)) for number, block in _block.line_chunks(path, chunk_size, header=header)]
    assert got == expected
    for _, block in _block.line_chunks(path, chunk_size, header=header):
        assert block.data == b"".join(block) and len(block) == len(list(block))


def test_prefetch_starts_reading_at_once_and_stops_when_closed_unread():
    started = threading.Event()

    def produce():
        started.set()
        yield from range(1000)

    stream = prefetch(produce())
    assert started.wait(timeout=30)  # before anything is asked of it
    stream.close()
    assert not stream._thread.is_alive()
    assert list(stream) == []


# ----------------------------------------------------------------------------- ordered_map
@pytest.mark.parametrize("n_threads", [1, 2, 4])
@pytest.mark.parametrize("n_items", [0, 1, 3, 50])
def test_ordered_map_keeps_the_order_whatever_the_threads(n_threads, n_items):
    def slow_on_even(item):
        if item % 2 == 0:
            time.sleep(0.002)  # later items finish first: the order must come from the map
        return item * item

    assert list(ordered_map(slow_on_even, iter(range(n_items)), n_threads)) == [i * i for i in range(n_items)]


def test_ordered_map_raises_an_error_in_its_turn_and_stops():
    called = []

    def fail_on_five(item):
        called.append(item)
        if item == 5:
            raise ValueError("item 5")
        return item

    results = ordered_map(fail_on_five, iter(range(1000)), 2)
    got = []
    with pytest.raises(ValueError, match="item 5"):
        for result in results:
            got.append(result)
    assert got == [0, 1, 2, 3, 4]
    assert max(called) <= 5 + 2  # items at most n_threads + 1 ahead, none after the stop


def _map_threads():
    return [thread for thread in threading.enumerate() if thread.name.startswith("nbfast-map")]


def test_ordered_map_closed_early_stops_its_threads():
    results = ordered_map(lambda item: item, iter(range(10_000)), 3)
    assert next(results) == 0
    assert len(_map_threads()) == 3
    results.close()
    assert _map_threads() == []


def test_ordered_map_interrupted_while_waiting_still_ends(monkeypatch):
    """A signal's exception (SIGTERM in the command line) while the consumer waits for a result ends the map
    and its threads: nothing waits forever."""

    def interrupted(self):
        raise KeyboardInterrupt("signal")

    monkeypatch.setattr(_block._Task, "outcome", interrupted)
    with pytest.raises(KeyboardInterrupt):
        list(ordered_map(lambda item: item, iter(range(100)), 2))
    assert _map_threads() == []


def test_ordered_map_interrupted_while_starting_a_thread_still_ends(monkeypatch):
    """A signal's exception raised inside ``Thread.start`` (before the thread is known to run) reaches the
    caller as itself, and the threads already started end."""
    start = threading.Thread.start

    def interrupted_start(thread):
        if thread.name == "nbfast-map-1":
            raise KeyboardInterrupt("signal")
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", interrupted_start)
    with pytest.raises(KeyboardInterrupt):
        list(ordered_map(lambda item: item, iter(range(100)), 3))
    monkeypatch.undo()
    assert _map_threads() == []


def test_ordered_map_runs_each_kernel_on_one_thread():
    """The map's threads are the parallelism: kernels called in them take one thread; the caller's own
    setting is left as it was."""
    before = effective_n_threads()
    assert set(ordered_map(lambda item: effective_n_threads(), iter(range(8)), 2)) == {1}
    assert effective_n_threads() == before
    assert set(ordered_map(lambda item: effective_n_threads(), iter(range(8)), 1)) == {before}
