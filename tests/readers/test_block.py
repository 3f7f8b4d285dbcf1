"""Reading ahead in a thread: order kept, errors raised, and an end even when interrupted."""

import queue
import threading

import pytest

from nbfast.readers import prefetch


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
