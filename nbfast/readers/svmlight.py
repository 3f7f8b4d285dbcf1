"""svmlight / libsvm text (optionally ``.gz`` or ``.bz2``), parsed a block of lines at a time by the compiled parser."""

from nbfast._kernels import svmlight
from nbfast.readers._block import Block, finished, line_chunks, ordered_map, quote_line

_PARSE_ERRORS = {
    svmlight.Status.BAD_LABEL: "malformed label (expected a number)",
    svmlight.Status.BAD_FEATURE: "malformed feature (expected index:value)",
    svmlight.Status.INDEX_BELOW_BASE: "feature index 0 in a one-based file (pass zero_based=True if indices start at 0)",
    svmlight.Status.UNSORTED: "feature indices must be sorted and unique",
    svmlight.Status.INDEX_TOO_LARGE: "feature index beyond 2**62",
    svmlight.Status.LABEL_NOT_EXACT: "label is not a number of magnitude at most 2**53 (a class label must be "
                                     "exact in float64)",
}


def iter_svmlight(path, chunk_size, *, zero_based=False, then=None):
    """Yield :class:`Block` s of at most ``chunk_size`` lines of an svmlight / libsvm file.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int
        Lines per block (blank and comment lines count but hold no row).
    zero_based : bool, default=False
        Whether feature indices start at 0 (scikit-learn's ``dump_svmlight_file``
        default) rather than 1 (libsvm's convention).
    then : callable, default=None
        A step run on each block in the thread that parsed it (see :func:`nbfast.readers._block.finished`).
    """
    base = 0 if zero_based else 1

    def parsed(chunk):
        """The Block of a chunk of the file's lines, its ``then`` step done: made in parallel."""
        first_line, lines = chunk
        status, y, data, indices, indptr, row_lines, error_line, _ = svmlight.parse_block(lines.data, base)
        if status != svmlight.Status.OK:
            shown = quote_line(lines[error_line])
            raise ValueError(f"{path} line {first_line + error_line}: {_PARSE_ERRORS[status]}: {shown}")
        return finished(Block(path, data, indices, indptr, y, row_lines + first_line, len(lines.data), base=base),
                        then)

    yield from ordered_map(parsed, line_chunks(path, chunk_size))
