"""What every reader shares: the block of rows it yields, the file opener, the loop over chunks of lines, and
the threads that read ahead and make blocks in parallel."""

import bz2
import collections
import functools
import gzip
import os
import queue
import sys
import threading
import zlib

import numpy as np

from nbfast import _sparse as sp
from nbfast._kernels import lines as _lines
from nbfast._kernels.threads import (
    adopt_limit_state,
    available_cpus,
    effective_n_threads,
    limit_state,
    limit_this_thread,
)


class Block:
    """A chunk of rows read from one input file.

    Attributes
    ----------
    data, indices, indptr : ndarray
        The rows in CSR form, with indices counted from 0.
    y : ndarray or None
        Labels (None when the file has none); given as a function that makes them, they are made when first
        used.
    row_numbers : ndarray
        The 1-based line (text files) or row (.npz, columnar files) of each row in its file, for messages.
    n_bytes : int
        Input bytes the block consumed (for progress).
    documents : sequence of str or None
        The raw text of each row (text and columnar files only).
    columns : pyarrow.Table or None
        The input columns a columnar reader was asked to keep, the block's rows of them (None otherwise).
    output : object
        What the reader's ``then`` step made of the block (see :func:`finished`); None without one.
    """

    def __init__(self, path, data, indices, indptr, y, row_numbers, n_bytes, *, unit="line", base=0, documents=None,
                 columns=None):
        self.path, self.data, self.indices, self.indptr = path, data, indices, indptr
        self._y, self.row_numbers, self.n_bytes, self.unit, self.base = y, row_numbers, n_bytes, unit, base
        self.documents, self.columns, self.output = documents, columns, None

    @property
    def y(self):
        if callable(self._y):
            self._y = self._y()
        return self._y

    @property
    def n_rows(self):
        return self.indptr.shape[0] - 1

    def max_index(self):
        """Largest feature index in the block, -1 when it has no entries."""
        return int(self.indices.max()) if self.indices.size else -1

    def to_csr(self, n_features):
        """The rows as a (n_rows, n_features) CSR array; an index beyond ``n_features`` raises ValueError."""
        rows = self.rows(n_features)
        return sp.csr_array(rows[:3], shape=rows.shape, copy=False)

    def rows(self, n_features):
        """The rows as (n_rows, n_features) :class:`nbfast._sparse.Rows`, no scipy matrix made; an index beyond
        ``n_features`` raises ValueError."""
        if self.max_index() >= n_features:
            position = int(np.argmax(self.indices >= n_features))
            row = int(np.searchsorted(self.indptr, position, side="right")) - 1
            raise ValueError(
                f"{self.path} {self.unit} {self.row_numbers[row]}: feature index {self.indices[position] + self.base} "
                f"is beyond the model's {n_features} features"
            )
        return sp.Rows(self.data, self.indices, self.indptr, (self.n_rows, n_features))


class StepError(Exception):
    """An exception of a reader's ``then`` step, carried out of the reader as it was (``error``): a reader adds
    how it read the file to its own parse errors, never to those of its caller's step."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def finished(block, then):
    """``block`` with ``block.output = then(block)``: the step a reader's caller runs on each block in the thread
    that made it, so that reading, parsing and that step (vectorizing and scoring, say) of one block run in one
    worker, blocks in parallel.  None, or a block of no rows, is left without an output.  An exception of the
    step is raised as a :class:`StepError`."""
    if then is not None and block.n_rows:
        try:
            block.output = then(block)
        except Exception as exc:
            raise StepError(exc) from exc
    return block


#: The path that names standard input, as command-line tools take it.
STDIN = "-"


def read_once(path):
    """Whether ``path`` can be read only once, front to back: standard input, or a pipe or a device named by a
    path (a FIFO, the shell's ``<(...)``).  A missing path is not: opening it reports that."""
    return str(path) == STDIN or os.path.exists(path) and not os.path.isfile(path)


def open_input(path):
    """A binary file object for ``path``, decompressed when it ends in ``.gz`` or ``.bz2``; ``-`` is standard
    input (closing the file object leaves it open)."""
    if str(path) == STDIN:
        return open(sys.stdin.fileno(), "rb", closefd=False)
    if str(path).endswith(".gz"):
        return gzip.open(path, "rb")
    if str(path).endswith(".bz2"):
        return bz2.open(path, "rb")
    return open(path, "rb")


#: The UTF-8 byte order mark some editors write at the start of a file; it is not part of the first line's text.
_BOM = b"\xef\xbb\xbf"
#: Bytes read from a file at a time while looking for the end of a block of lines.
_READ_BYTES = 1 << 16


class Lines:
    """A block of whole lines of a file: ``data``, their bytes back to back, and their number (the last line of a
    file may have no newline).  ``lines[i]`` is line i's bytes."""

    def __init__(self, data, n_lines):
        self.data, self._n_lines = data, n_lines

    def __len__(self):
        return self._n_lines

    @functools.cached_property
    def ends(self):
        """Where each line ends in ``data`` (past its newline): found when first asked for, by a line's number."""
        ends = np.flatnonzero(np.frombuffer(self.data, dtype=np.uint8) == 0x0A) + 1
        return ends if ends.shape[0] == self._n_lines else np.append(ends, len(self.data))

    def __getitem__(self, index):
        start = int(self.ends[index - 1]) if index > 0 else 0
        return self.data[start:int(self.ends[index])]

    def __iter__(self):
        return (self[index] for index in range(len(self)))


def _read(f, path, first_line):
    """Up to _READ_BYTES bytes of ``f``; a truncated or corrupt ``.gz`` / ``.bz2`` file is a ValueError."""
    try:
        return f.read(_READ_BYTES)
    except (EOFError, zlib.error, OSError) as exc:
        if not str(path).endswith((".gz", ".bz2")):
            raise
        raise ValueError(f"{path}: truncated or corrupt compressed file after line {first_line - 1} "
                         f"({exc})") from None


def line_chunks(path, chunk_size, *, header=False):
    """Yield (number of the first line, :class:`Lines` of at most ``chunk_size`` lines) through a file.

    The file is read 64 KiB at a time and cut after the newline ending each block's last line (found by a
    kernel, without the GIL), so no Python object is made per line.  A UTF-8 byte order mark is dropped;
    ``header=True`` skips the first line.  A truncated or corrupt ``.gz`` / ``.bz2`` file is a ValueError naming
    the file and the line reached.
    """
    first_line, pending, at_start, at_end = 1, b"", True, False
    with open_input(path) as f:
        while True:
            pieces, size = [pending], len(pending)
            n_lines, end = _lines.line_ends(pending, chunk_size)  # end: past the last newline counted
            while n_lines < chunk_size and not at_end:
                piece = _read(f, path, first_line)
                at_end = not piece
                found, piece_end = _lines.line_ends(piece, chunk_size - n_lines)
                if found:
                    n_lines, end = n_lines + found, size + piece_end
                pieces.append(piece)
                size += len(piece)
            data = b"".join(pieces)
            if at_end and n_lines < chunk_size and end < len(data):  # a last line without newline
                n_lines, end = n_lines + 1, len(data)
            block, pending = Lines(data[:end], n_lines), data[end:]
            if at_start:
                at_start = False
                if block.data.startswith(_BOM):
                    block = Lines(block.data[len(_BOM):], len(block))
                if header and len(block):
                    first_end = int(block.ends[0])
                    block, first_line = Lines(block.data[first_end:], len(block) - 1), 2
            if len(block):
                yield first_line, block
                first_line += len(block)
            elif at_end and not pending:
                return


def quote_line(line):
    """A line of input (bytes) for an error message: decoded, stripped, at most 60 characters, quoted."""
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


#: How often a producer blocked on a full queue checks whether the consumer stopped, and how long a stopped
#: consumer waits for it (a producer that does not end by then is a daemon thread left to finish its block).
_POLL_SECONDS, _JOIN_SECONDS = 0.05, 5.0


def prefetch(iterable):
    """Iterate ``iterable`` in a background thread, one item ahead; the thread starts at once.

    The parser releases the GIL, so reading and parsing the next block overlaps
    with the caller's work on the current one (and the first blocks with what the
    caller does before it asks for them, such as loading a model).  At most three
    items are alive at once; an exception in the producer is raised in the
    consumer.  Close the result (or use it as a context manager) to stop early.
    """
    return _Prefetched(iterable)


class _Prefetched:
    """The iterator :func:`prefetch` returns: a producer thread and the queue it fills."""

    _DONE = object()

    def __init__(self, iterable):
        self._items = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._ended = False
        # the producer works for this thread: the same n_jobs limit (a command's --jobs) sizes its kernels and maps
        self._thread = threading.Thread(target=self._produce, args=(iterable, limit_state()), daemon=True)
        self._thread.start()

    def _hand_over(self, entry):
        """Put ``entry`` for the consumer; False if it stopped listening first."""
        while not self._stop.is_set():
            try:
                self._items.put(entry, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                pass
        return False

    def _produce(self, iterable, limit):
        adopt_limit_state(limit)
        try:
            for item in iterable:
                if not self._hand_over((item, None)):
                    return
            self._hand_over((self._DONE, None))
        except BaseException as exc:  # handed to the consumer
            self._hand_over((self._DONE, exc))

    def __iter__(self):
        return self

    def __next__(self):
        if self._ended:
            raise StopIteration
        try:
            item, error = self._items.get()
        except BaseException:
            self.close()
            raise
        if item is self._DONE:
            self.close()
            if error is not None:
                raise error
            raise StopIteration
        return item

    def close(self):
        """Stop the producer: it sees the request within a poll and ends after the item it is making.  The
        queue is not touched here: a signal's exception (SIGTERM in the command line) can leave its lock held
        by an interrupted ``get``, and waiting on it would never end; so the wait for the producer is bounded
        too (a producer that does not end by then is a daemon thread left to finish its item)."""
        self._ended = True
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=_JOIN_SECONDS)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):  # dropped without being closed (never iterated, say): the producer still stops
        self._stop.set()


class _Task:
    """One call of an :func:`ordered_map`: ``done`` is set once it has its result or the exception it raised."""

    __slots__ = ("item", "done", "result", "error")

    def __init__(self, item):
        self.item, self.done, self.result, self.error = item, threading.Event(), None, None

    def outcome(self):
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.result


def _work(function, tasks, stop):
    """An :func:`ordered_map` thread: call ``function`` on the tasks' items until given None; after ``stop``,
    only mark them done."""
    limit_this_thread(1)  # the threads of the map are the parallelism: each kernel runs on one
    while (task := tasks.get()) is not None:
        if not stop.is_set():
            try:
                task.result = function(task.item)
            except BaseException as exc:  # handed to the consumer, in the items' order
                task.error = exc
        task.item = None  # not kept while the result waits its turn
        task.done.set()


def ordered_map(function, items, n_threads=None):
    """Yield ``function(item)`` for each of ``items`` in their order, computed by at most ``n_threads`` threads.

    Blocks are independent, so making them in parallel (each kernel on one thread) keeps every core busy,
    the serial parts of a block's work included, which a kernel's threads cannot share.  ``items`` is
    iterated here; at most ``n_threads + 1`` items are in flight.  An exception of ``function`` is raised
    when its item's turn comes, and the items after it are not processed.

    The threads are bounded by the work and the CPUs: a thread starts only while more items are in flight
    than threads have started, so there are never more threads than items; ``n_threads`` left to None is
    :func:`nbfast._kernels.threads.effective_n_threads` capped at the CPUs this process may use (an
    ``OMP_NUM_THREADS`` larger than that sizes the kernels' OpenMP teams, never this map).  With one thread
    the calls run in this thread.

    The threads are daemons stopped when the result is closed (or exhausted); as :func:`prefetch` does, a
    stopped consumer waits a bounded time for them, never on a lock an interruption may have left held.
    """
    n_threads = min(effective_n_threads(), available_cpus()) if n_threads is None else n_threads
    if n_threads <= 1:
        yield from map(function, items)
        return
    tasks, stop, pending, workers = queue.SimpleQueue(), threading.Event(), collections.deque(), []
    try:
        for item in items:
            pending.append(_Task(item))
            tasks.put(pending[-1])
            if len(workers) < min(n_threads, len(pending)):  # more items in flight than threads
                workers.append(threading.Thread(target=_work, args=(function, tasks, stop),
                                                name=f"nbfast-map-{len(workers)}", daemon=True))
                workers[-1].start()
            if len(pending) > n_threads:
                yield pending.popleft().outcome()
        while pending:
            yield pending.popleft().outcome()
    finally:
        stop.set()
        for _ in workers:
            tasks.put(None)
        for worker in workers:
            if worker.is_alive():  # a signal can interrupt start(): a thread never started ends on its None
                worker.join(timeout=_JOIN_SECONDS)
