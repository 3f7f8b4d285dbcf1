"""What ``nbfast train`` and ``nbfast predict`` share: model kinds, the model file,
command-line input options, and progress reporting."""

import os
import pickle
import sys
import time

import nbfast
from nbfast._base import _BaseNB
from nbfast.io import iter_blocks, prefetch

# --model name -> estimator class name, resolved on the nbfast module at run time.
MODEL_KINDS = {
    "multinomial": "MultinomialNB",
    "bernoulli": "BernoulliNB",
    "complement": "ComplementNB",
    "poisson": "PoissonNB",
    "categorical": "CategoricalNB",
    "gaussian": "GaussianNB",
}


def estimator_class(kind):
    """The estimator class of a --model name; a kind missing from this build raises ValueError."""
    cls = getattr(nbfast, MODEL_KINDS[kind], None)
    if cls is None:
        raise ValueError(f"--model {kind}: {MODEL_KINDS[kind]} is not available in nbfast {nbfast.__version__}")
    return cls


# ------------------------------------------------------------------ model file
def save_model(model, path):
    """Write ``model`` to ``path`` with nbfast.save, or pickle while nbfast has no model format."""
    save = getattr(nbfast, "save", None)
    if save is not None:
        save(model, path)
        return
    # Fallback until nbfast.save exists: a pickle (load only model files you trust).
    with open(path, "wb") as f:
        pickle.dump(model, f, protocol=pickle.HIGHEST_PROTOCOL)


def load_model(path):
    """Read a fitted model written by :func:`save_model`; a missing or corrupt file raises OSError / ValueError."""
    load = getattr(nbfast, "load", None)
    try:
        if load is not None:
            model = load(path)
        else:
            with open(path, "rb") as f:
                model = pickle.load(f)
    except OSError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever a corrupt file breaks, it is one error for the user
        raise ValueError(f"{path}: not a valid nbfast model file ({type(exc).__name__}: {exc})") from None
    if not isinstance(model, _BaseNB) or not hasattr(model, "classes_"):
        raise ValueError(f"{path}: does not hold a fitted nbfast model")
    return model


# ----------------------------------------------------------------------- input
def add_input_arguments(parser):
    parser.add_argument("input", nargs="+", metavar="INPUT",
                        help="svmlight/libsvm text files (.gz, .bz2 too) or .npz CSR archives")
    parser.add_argument("--chunk-size", type=int, default=10_000, metavar="N",
                        help="rows read and processed at a time: memory is bounded by one chunk (default 10000)")
    parser.add_argument("--zero-based", action="store_true",
                        help="feature indices in text files start at 0 (default: at 1, as in libsvm)")


def read_blocks(args, progress):
    """The input's blocks, parsed one ahead in a background thread, with progress updates."""
    for block in prefetch(iter_blocks(args.input, args.chunk_size, zero_based=args.zero_based)):
        progress.update(block)
        if block.n_rows:
            yield block


def model_input(block, model, n_features):
    """The block as the model's input: CSR, or dense for a model whose tags refuse sparse input."""
    X = block.to_csr(n_features)
    try:
        sparse_ok = model.__sklearn_tags__().input_tags.sparse
    except AttributeError:  # without scikit-learn there are no tags: every nbfast model takes CSR
        sparse_ok = True
    return X if sparse_ok else X.toarray()


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
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self._bar = tqdm(total=input_bytes(paths), desc=description, unit="B", unit_scale=True,
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
