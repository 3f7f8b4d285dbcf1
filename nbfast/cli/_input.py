"""What the commands that read input share: the model file and how its training input was read,
command-line input options, labels, and progress reporting."""

import contextlib
import os
import sys
import time

import numpy as np

from nbfast._compat import tqdm_if_installed
from nbfast.cli._errors import CommandError, n_jobs, positive_int
from nbfast.persist import ModelFile
from nbfast.persist._files import replacing
from nbfast.readers import COLUMNAR_FORMATS, FORMATS, SEEKING_FORMATS, STDIN, input_format, iter_blocks, prefetch
from nbfast.readers.text import TEXT_FORMATS, check_encoding
from nbfast.text._params import DECODE_ERRORS


# ---------------------------------------------------------------------- output
def _same_file(a, b):
    """Whether two paths name one file (links and other spellings included), or would once created."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


# ----------------------------------------------------------------------- input
def add_input_arguments(parser, *, required=True):
    parser.add_argument("input", nargs="+" if required else "*", metavar="INPUT",
                        help="svmlight/libsvm files, .npz CSR archives, or text: one document per line (.txt), "
                             "label<TAB>text (.tsv), JSON lines (.jsonl); .gz and .bz2 too; or a column of text in "
                             ".parquet, .arrow (.feather, .ipc) or .csv files (with a header row; pip install "
                             "'nbfast[arrow]'); - for standard input (its format given by --format, svmlight by "
                             "default)")
    parser.add_argument("--format", choices=FORMATS, dest="file_format",
                        help="format of every input (default: by extension, svmlight when unknown)")
    parser.add_argument("--chunk-size", type=positive_int, default=10_000, metavar="N",
                        help="rows read and processed at a time: memory is bounded by a few chunks per core "
                             "(default 10000)")
    parser.add_argument("-j", "--jobs", type=n_jobs, default=None, metavar="N",
                        help="threads to use, at most N (-1: one per CPU this process may use, -2: one fewer, ...); "
                             "default: one per CPU this process may use, or OMP_NUM_THREADS")
    parser.add_argument("--zero-based", action="store_true", default=None,
                        help="feature indices in svmlight files start at 0 (default: at 1, as in libsvm; for "
                             "`predict`, as the model's training input was read)")
    parser.add_argument("--label-field", default="label", metavar="NAME",
                        help="JSONL field or column (parquet, arrow, csv) holding the label (default 'label')")
    parser.add_argument("--text-field", default="text", metavar="NAME",
                        help="JSONL field or column (parquet, arrow, csv) holding the document (default 'text')")
    parser.add_argument("--header", action="store_true",
                        help="text input: the first line of each file is a header, skipped")
    parser.add_argument("--encoding", metavar="NAME",
                        help="text input: its encoding (default utf-8); one that writes a line end as a newline "
                             "byte, such as latin-1 or cp1252")
    parser.add_argument("--decode-errors", choices=DECODE_ERRORS, dest="decode_error",
                        help="text input: what bytes not valid in the encoding do: strict (the default) stops with "
                             "the line's number, replace reads each as U+FFFD, ignore drops them")


def check_inputs(args):
    """Refuse, before any work, inputs that do not exist or are folders, standard input (``-``) named twice or
    in a format read out of order (.npz, Parquet), text mixed with feature vectors in one run, and --header,
    --encoding or --decode-errors without line-based text input (CommandError)."""
    if args.input.count(STDIN) > 1:
        raise CommandError("- (standard input) is given more than once: it can be read only once")
    if STDIN in args.input and input_format(STDIN, args.file_format) in SEEKING_FORMATS:
        raise CommandError(f"- (standard input) cannot be read as .{input_format(STDIN, args.file_format)} (such "
                           "a file is read out of order): save it to a file first")
    for path in args.input:
        if path != STDIN and not os.path.exists(path):
            raise CommandError(f"{path}: No such file or directory")
        if os.path.isdir(path):
            raise CommandError(f"{path} is a folder: name the files in it (for instance {path}/*)")
    text = text_inputs(args)
    vectors = [path for path in args.input if path not in text]
    if text and vectors:
        raise CommandError(f"{text[0]} is read as text ({input_format(text[0], args.file_format)}) and "
                           f"{vectors[0]} as feature vectors ({input_format(vectors[0], args.file_format)}): "
                           "give one kind of input per run")
    given = [option for option, value in (("--header", args.header), ("--encoding", args.encoding),
                                          ("--decode-errors", args.decode_error)) if value]
    columnar = [path for path in text if input_format(path, args.file_format) in COLUMNAR_FORMATS]
    if given and columnar:
        raise CommandError(f"{given[0]} applies only to text read a line at a time (lines, tsv, jsonl), not to "
                           f"{columnar[0]} ({input_format(columnar[0], args.file_format)}: read as UTF-8, a CSV "
                           "file's first row naming its columns)")
    if given and not text:
        raise CommandError(f"{given[0]} applies only to text input (lines, tsv, jsonl)")
    check_encoding(*decoding(args))


def decoding(args):
    """(encoding, decode_error) of the text input: the options, or UTF-8 read strictly."""
    return args.encoding or "utf-8", args.decode_error or "strict"


def check_output(path, inputs, suffixes, what, *, stdout=False):
    """Refuse an output path before any work: one that names an input (writing it would destroy what is being
    read), a folder, one whose folder does not exist, or one whose extension the command does not write.

    ``suffixes`` are the extensions written ("" for none), ``what`` says what they are for the message;
    ``stdout`` says whether ``-`` (standard output) is written.
    """
    if path == "-":
        if stdout:
            return
        raise CommandError("-o -: this output cannot go to standard output; name a file")
    if os.path.isdir(path) or str(path).endswith(("/", os.sep)):
        raise CommandError(f"-o {path}: is a folder; name a file (in it, for instance)")
    for other in inputs:
        if _same_file(path, other):
            raise CommandError(f"the output {path} is also an input ({other}): write it elsewhere")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CommandError(f"-o {path}: the folder {folder} does not exist")
    suffix = os.path.splitext(str(path))[1].lower()
    if suffix not in suffixes:
        raise CommandError(f"-o {path}: {suffix} files are not written here; {what}")


#: The most bytes written to standard output by one call (see :class:`_Pieces`).
_PIECE_BYTES = 1 << 16


class _Pieces:
    """A binary file that writes what it is given in pieces of at most ``_PIECE_BYTES``.

    A write to a pipe whose reader leaves (``| head``) while the write is under way ends early without an
    error, and Python's buffered file then drops the rest silently: written in pieces, the next piece
    meets the closed pipe and raises BrokenPipeError, as the command line expects.
    """

    def __init__(self, f):
        self._f = f

    def write(self, data):
        view = memoryview(data).cast("B")
        for start in range(0, len(view), _PIECE_BYTES):
            self._f.write(view[start:start + _PIECE_BYTES])
        return len(view)

    def flush(self):
        self._f.flush()


@contextlib.contextmanager
def output_file(path):
    """A binary file for the output ``path``: standard output for ``-`` (written in pieces, see
    :class:`_Pieces`), else written as :func:`nbfast.persist._files.replacing` does (a regular file replaced
    whole at the end)."""
    if path == "-":
        yield _Pieces(sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    with replacing(path) as f:
        yield f


def svmlight_inputs(args):
    """The inputs read as svmlight / libsvm feature vectors."""
    return [path for path in args.input if input_format(path, args.file_format) == "svmlight"]


def text_inputs(args):
    """The inputs read as raw text (lines, tsv, jsonl) or as a column of text (parquet, arrow, csv)."""
    return [path for path in args.input if input_format(path, args.file_format) in TEXT_FORMATS + COLUMNAR_FORMATS]


def check_input_like_training(args, vectorizer, training_input):
    """Read the input as the training input was read; refuse input that contradicts it (CommandError).

    ``args.zero_based`` left unset takes the index base recorded in the model.
    """
    text = text_inputs(args)
    vectors = [path for path in args.input if path not in text]
    if text and vectorizer is None:
        raise CommandError(f"{text[0]} is read as text, but {args.model} stores no vectorizer to turn text into "
                           "its features (it was not trained on text, or was saved without one): train it on text "
                           "with `nbfast train`, or save it from Python with nbfast.save(model, path, "
                           "vectorizer=vectorizer); or pass --format for feature vectors")
    if vectors and vectorizer is not None:
        raise CommandError(f"{vectors[0]} is read as feature vectors ({input_format(vectors[0], args.file_format)}), "
                           f"but {args.model} was trained on text: give it text (--format lines, tsv, jsonl, "
                               "parquet, arrow or csv)")
    recorded = None if training_input is None else training_input["zero_based"]
    if recorded is not None and svmlight_inputs(args):
        if args.zero_based is not None and args.zero_based != recorded:
            raise CommandError(f"--zero-based contradicts {args.model}, which was trained on one-based svmlight "
                               "indices: leave the flag out to read the input as the training input was read")
        args.zero_based = recorded


def load_model(args):
    """The model ``args.model`` and the vectorizer stored with it; the input is checked to be read as the
    model's training input was (see :func:`check_input_like_training`)."""
    model_file, vectorizer = open_model(args)
    with model_file:
        return model_file.model(), vectorizer


def open_model(args):
    """(``args.model`` as a :class:`nbfast.persist.ModelFile`, the vectorizer stored with it): the header is
    read once and the model loads when asked for (while the input is read, say).  The input is checked to be
    read as the model's training input was (see :func:`check_input_like_training`)."""
    check_inputs(args)
    model_file = ModelFile(args.model)
    try:
        vectorizer = model_file.vectorizer()
        check_input_like_training(args, vectorizer, model_file.training_input())
    except BaseException:
        model_file.close()
        raise
    return model_file, vectorizer


def labels_of(block, purpose):
    """The block's labels; an input without labels raises ValueError saying it has none to ``purpose``."""
    if block.y is None:
        raise ValueError(f"{block.path}: holds no labels to {purpose} (an .npz needs an array 'y'; "
                         "text needs --format tsv or jsonl, or a column of labels)")
    return block.y


#: Floats are exact integers up to 2**53: beyond, distinct labels could become one int64.
_EXACT_INTEGERS = 2.0**53


def integral_labels(y):
    """Float labels that are all whole numbers (as svmlight stores them) and exact become int64."""
    if y.dtype.kind == "f" and np.all(np.abs(y) <= _EXACT_INTEGERS) and np.all(np.mod(y, 1) == 0):
        return y.astype(np.int64)
    return y


@contextlib.contextmanager
def blamed_on(block):
    """A ValueError raised inside names the block's file and rows."""
    try:
        yield
    except ValueError as exc:
        first, last = block.row_numbers[0], block.row_numbers[-1]
        raise ValueError(f"{block.path} {block.unit}s {first}-{last}: {exc}") from None


def read_blocks(args, progress, *, vectorizer=None, labels=True, keep=(), then=None):
    """The input's blocks, read ahead by a background thread that starts at once and made in parallel, with
    progress updates.

    Raw text is vectorized by ``vectorizer`` (None: rows are empty, labels only);
    ``labels=False`` reads no JSONL label field or label column; the columns ``keep`` names (columnar input)
    are each block's ``columns``.  ``then(block)`` runs on each block in the thread that made
    it; its result is the block's ``output`` (see :func:`nbfast.readers._block.finished`).
    """
    fields = (args.label_field if labels else None, args.text_field)
    encoding, decode_error = decoding(args)
    blocks = iter_blocks(args.input, args.chunk_size, zero_based=bool(args.zero_based), file_format=args.file_format,
                         vectorizer=vectorizer, fields=fields, header=args.header, encoding=encoding,
                         decode_error=decode_error, keep=keep, then=then)
    return Blocks(prefetch(blocks), progress)


class Blocks:
    """The blocks of a prefetched stream that hold rows, each counted by a :class:`Progress`; a context
    manager that stops the stream."""

    def __init__(self, stream, progress):
        self._stream, self._progress = stream, progress

    def __iter__(self):
        for block in self._stream:
            self._progress.update(block)
            if block.n_rows:
                yield block

    def close(self):
        self._stream.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def input_bytes(paths):
    """Total size of uncompressed inputs (None when one is compressed: the total is unknown)."""
    if any(str(p) == STDIN or str(p).endswith((".gz", ".bz2", ".npz")) for p in paths):
        return None
    return sum(os.path.getsize(p) for p in paths)


class Progress:
    """A tqdm bar on a terminal (when tqdm is installed); a one-line summary at the end in any case.

    The summary's time runs from ``start`` (a :func:`time.perf_counter` value; default: now), so that a
    command reading its input more than once reports the whole run.
    """

    def __init__(self, description, paths, *, start=None):
        self.description, self.n_rows = description, 0
        self.start = time.perf_counter() if start is None else start
        self._bar = None
        if sys.stderr.isatty():
            tqdm = tqdm_if_installed()
            if tqdm is not None:
                self._bar = tqdm.tqdm(total=input_bytes(paths), desc=description, unit="B", unit_scale=True,
                                 file=sys.stderr, leave=False)

    def update(self, block):
        self.n_rows += block.n_rows
        if self._bar is not None:
            self._bar.update(block.n_bytes)

    def close(self, summary=None):
        """End the bar; print ``summary`` with the row count and rate unless it is None."""
        if self._bar is not None:
            self._bar.close()
        if summary is None:
            return
        seconds = time.perf_counter() - self.start
        rate = self.n_rows / seconds if seconds > 0 else float("inf")
        print(f"nbfast: {summary}: {self.n_rows:,} rows in {seconds:.2f} s ({rate:,.0f} rows/s)", file=sys.stderr)
