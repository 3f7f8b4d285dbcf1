"""What ``nbfast train`` and ``nbfast predict`` share: model kinds, the model file,
command-line input options, and progress reporting."""

import os
import sys
import time

from nbfast._compat import optional
from nbfast.cli._errors import CommandError
from nbfast.naive_bayes import ESTIMATORS
from nbfast.readers import FORMATS, input_format, iter_blocks, prefetch
from nbfast.readers.text import TEXT_FORMATS

#: --model name (the class name without "NB", lowercased) -> estimator class, for every registered estimator
#: that can be made from command-line options (not the composite MixedNB, which is built from parts).
MODEL_KINDS = {name.removesuffix("NB").lower(): cls for name, cls in ESTIMATORS.items() if not cls._composite}


# ---------------------------------------------------------------------- output
def _same_file(a, b):
    """Whether two paths name one file (links and other spellings included), or would once created."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


def check_output(output, inputs):
    """Refuse an output path that names one of the inputs: writing it would destroy what is being read."""
    for path in inputs:
        if _same_file(output, path):
            raise CommandError(f"the output {output} is also an input ({path}): write it elsewhere")


# ----------------------------------------------------------------------- input
def add_input_arguments(parser):
    parser.add_argument("input", nargs="+", metavar="INPUT",
                        help="svmlight/libsvm files, .npz CSR archives, or text: one document per line (.txt), "
                             "label<TAB>text (.tsv), JSON lines (.jsonl); .gz and .bz2 too")
    parser.add_argument("--format", choices=FORMATS, dest="file_format",
                        help="format of every input (default: by extension, svmlight when unknown)")
    parser.add_argument("--chunk-size", type=int, default=10_000, metavar="N",
                        help="rows read and processed at a time: memory is bounded by one chunk (default 10000)")
    parser.add_argument("--zero-based", action="store_true",
                        help="feature indices in svmlight files start at 0 (default: at 1, as in libsvm)")
    parser.add_argument("--label-field", default="label", metavar="NAME",
                        help="JSONL field holding the label (default 'label')")
    parser.add_argument("--text-field", default="text", metavar="NAME",
                        help="JSONL field holding the document (default 'text')")


def text_inputs(args):
    """The inputs read as raw text (lines, tsv, jsonl)."""
    return [path for path in args.input if input_format(path, args.file_format) in TEXT_FORMATS]


def read_blocks(args, progress, *, vectorizer=None, labels=True):
    """The input's blocks, parsed one ahead in a background thread, with progress updates.

    Raw text is vectorized by ``vectorizer`` (None: rows are empty, labels only);
    ``labels=False`` reads no JSONL label field.
    """
    fields = (args.label_field if labels else None, args.text_field)
    blocks = iter_blocks(args.input, args.chunk_size, zero_based=args.zero_based, file_format=args.file_format,
                         vectorizer=vectorizer, fields=fields)
    for block in prefetch(blocks):
        progress.update(block)
        if block.n_rows:
            yield block


def takes_sparse(model):
    """Whether the model takes CSR input (its tags say so; without scikit-learn every nbfast model does)."""
    try:
        return model.__sklearn_tags__().input_tags.sparse
    except AttributeError:  # without scikit-learn there are no tags
        return True


def model_input(block, model, n_features):
    """The block as the model's input: CSR, or dense for a model whose tags refuse sparse input."""
    X = block.to_csr(n_features)
    return X if takes_sparse(model) else X.toarray()


def input_bytes(paths):
    """Total size of uncompressed inputs (None when one is compressed: the total is unknown)."""
    if any(str(p).endswith((".gz", ".bz2", ".npz")) for p in paths):
        return None
    return sum(os.path.getsize(p) for p in paths)


class Progress:
    """A tqdm bar on a terminal (when tqdm is installed); a one-line summary at the end in any case."""

    def __init__(self, description, paths):
        self.description, self.n_rows, self.start = description, 0, time.perf_counter()
        self._bar = None
        if sys.stderr.isatty():
            tqdm = optional("tqdm")
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
