"""Chunked readers for the streaming command line: memory bounded by a few chunks per core.

Two feature-vector formats (raw text is read by :mod:`nbfast.readers.text`, columns of documents in Parquet,
Arrow and CSV files by :mod:`nbfast.readers.columnar`):

- svmlight / libsvm text (optionally ``.gz`` or ``.bz2``), parsed by the
  compiled parser in ``nbfast._kernels.svmlight`` a block of lines at a time;
- ``.npz`` archives of a CSR matrix as written by ``scipy.sparse.save_npz``
  (labels, for training, in an extra array ``y``: see :func:`save_npz`), read
  member by member without loading the arrays whole.

Each reader yields :class:`Block` objects; ``Block.to_csr(n_features)`` checks
feature indices against the model's and names the offending line.
"""

from nbfast.readers._block import STDIN, Block, StepError, ordered_map, prefetch, read_once
from nbfast.readers.columnar import COLUMNAR_FORMATS, iter_columnar, pyarrow_modules
from nbfast.readers.npz import iter_npz, save_npz
from nbfast.readers.svmlight import iter_svmlight
from nbfast.readers.text import TEXT_FORMATS, check_encoding, import_dependencies, iter_text

__all__ = ["COLUMNAR_FORMATS", "FORMATS", "SEEKING_FORMATS", "STDIN", "TEXT_FORMATS", "Block",
           "input_format", "iter_blocks", "iter_columnar", "iter_npz", "iter_svmlight", "ordered_map", "prefetch", "read_once",
           "save_npz"]

#: Input formats, and the file extensions (also under .gz/.bz2) that select them.
FORMATS = ("svmlight", "npz", "lines", "tsv", "jsonl", "parquet", "arrow", "csv")
_EXTENSIONS = {".npz": "npz", ".svm": "svmlight", ".libsvm": "svmlight", ".svmlight": "svmlight",
               ".txt": "lines", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
               ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow", ".csv": "csv"}
#: Formats read out of order, so not from standard input.
SEEKING_FORMATS = ("npz", "parquet")


_UNSUPPORTED = {".xlsx": "Excel", ".json": "JSON (not JSON lines)", ".npy": "a .npy array", ".pkl": "a pickle",
                ".pickle": "a pickle"}


def _uncompressed_name(path):
    """The file name of ``path`` without a ``.gz`` / ``.bz2`` suffix."""
    return str(path).removesuffix(".gz").removesuffix(".bz2")


def input_format(path, file_format=None):
    """The format of an input: ``file_format`` when given, else by extension (svmlight when unknown).

    An extension of a format nbfast does not read (``.csv``, ``.parquet``, ...) raises ValueError.
    """
    if file_format is not None:
        return file_format
    name = _uncompressed_name(path)
    unsupported = next((what for ext, what in _UNSUPPORTED.items() if name.lower().endswith(ext)), None)
    if unsupported is not None:
        raise ValueError(f"{path}: {unsupported} is not a supported input format; nbfast reads svmlight/libsvm, "
                         ".npz (CSR), text (lines, tsv, jsonl) and columns of text (parquet, arrow, csv): convert "
                         "it, or pass file_format to read it as one")
    return next((fmt for ext, fmt in _EXTENSIONS.items() if name.endswith(ext)), "svmlight")


def iter_blocks(paths, chunk_size, *, zero_based=False, file_format=None, vectorizer=None, fields=("label", "text"),
                header=False, encoding="utf-8", decode_error="strict", keep=(), then=None):
    """Yield the :class:`Block` s of every input in turn.

    Each input is read in its :func:`input_format` (``file_format`` for all,
    when given): ``.npz`` archives, svmlight text, raw text (see
    :mod:`nbfast.readers.text`, which ``vectorizer``, ``fields``, ``header``,
    ``encoding`` and ``decode_error`` are for), or columns of text (see :mod:`nbfast.readers.columnar`, which
    ``vectorizer``, ``fields`` and ``keep`` are for).  When the format was chosen by the file's extension, a
    parse error says so.  ``then`` is a step run on each block in the thread that made it, its result the
    block's ``output`` (see :func:`nbfast.readers._block.finished`).

    The optional modules the vectorizer and the formats need are imported by this call, on the calling thread,
    before any thread that reads starts (see :func:`nbfast.readers.text.import_dependencies`).
    """
    check_encoding(encoding, decode_error)
    import_dependencies(vectorizer)
    formats = {input_format(path, file_format) for path in paths}
    for fmt in formats & set(COLUMNAR_FORMATS):
        pyarrow_modules(fmt)
    if keep and formats - set(COLUMNAR_FORMATS):
        raise ValueError(f"columns are kept from columnar input only ({', '.join(COLUMNAR_FORMATS)}), not "
                         f"{', '.join(sorted(formats - set(COLUMNAR_FORMATS)))}")
    text = {"vectorizer": vectorizer, "fields": fields, "header": header, "encoding": encoding,
            "decode_error": decode_error}
    columnar = {"vectorizer": vectorizer, "fields": fields, "keep": keep}
    return _blocks(paths, chunk_size, zero_based, file_format, text, columnar, then)


def _blocks(paths, chunk_size, zero_based, file_format, text, columnar, then):
    """The generator :func:`iter_blocks` returns."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    for path in paths:
        fmt = input_format(path, file_format)
        if fmt == "npz":
            blocks = iter_npz(path, chunk_size, then=then)
        elif fmt == "svmlight":
            blocks = iter_svmlight(path, chunk_size, zero_based=zero_based, then=then)
        elif fmt in COLUMNAR_FORMATS:
            blocks = iter_columnar(path, chunk_size, fmt, **columnar, then=then)
        else:
            blocks = iter_text(path, chunk_size, fmt, **text, then=then)
        try:
            yield from blocks
        except StepError as failed:  # the caller's own step: raised as it was
            raise failed.error from None
        except ValueError as exc:
            if file_format is not None:
                raise
            raise ValueError(f"{exc} (read as {fmt} {_chosen_by(path)}; file_format reads it as another)") from None


def _chosen_by(path):
    """How :func:`input_format` chose the format of ``path`` without ``file_format``, for messages."""
    name = _uncompressed_name(path)
    extension = next((ext for ext in _EXTENSIONS if name.endswith(ext)), None)
    return f"by its extension {extension}" if extension else "by default, its extension being unknown"
