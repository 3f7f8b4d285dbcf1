"""Model files: save a fitted nbfast estimator as arrays plus JSON, load it back safely.

A model file holds a model's parameters and fitted arrays, and never pickled
objects, so loading one from an untrusted source cannot execute code.  One
module a job: :mod:`~nbfast.persist._container` (the bytes: magic, checksums,
aligned arrays), :mod:`~nbfast.persist._codec` (models to tagged JSON and back,
classes only from the estimator registry), :mod:`~nbfast.persist._values`
(the estimators' own checks of the fitted values a loaded model may hold), :mod:`~nbfast.persist._vectorizer`
(the text vectorizer stored with a model), :mod:`~nbfast.persist._model_file`
(a file opened once, its header read once) and :mod:`~nbfast.persist._info`
(``nbfast info``).

Readers accept every format version up to :data:`FORMAT_VERSION`; a file from
a newer format is refused with a message asking to upgrade nbfast.
"""

import contextlib
import hashlib
import io
import json
import os

from nbfast import _compat
from nbfast._version import __version__
from nbfast.persist._codec import _Encoder, _is_estimator, _is_fitted
from nbfast.persist._container import (
    _FORMAT_NAME,
    _PREAMBLE,
    FORMAT_VERSION,
    MAGIC,
    MAX_HEADER_NBYTES,
    ModelFormatError,
    _align,
    _data_chunks,
)
from nbfast.persist._files import replacing
from nbfast.persist._info import read_info
from nbfast.persist._model_file import ModelFile
from nbfast.persist._training_input import training_input_entry
from nbfast.persist._vectorizer import _vectorizer_spec

__all__ = ["FORMAT_VERSION", "ModelFile", "ModelFormatError", "load", "load_training_input", "load_vectorizer",
           "read_info", "save"]


def save(model, path, *, vectorizer=None, training_input=None):
    """Save a fitted nbfast estimator to a model file.

    The file holds only arrays and JSON (see :mod:`nbfast.persist`).  Saved to
    a path, it is written to a temporary name and renamed into place, so
    ``path`` never holds a half-written model.

    Parameters
    ----------
    model : nbfast estimator or Pipeline
        A fitted estimator (any class exported by nbfast, including composite
        models holding other nbfast estimators), or a fitted scikit-learn
        Pipeline of two steps, an nbfast.text vectorizer and an nbfast
        estimator: saved as the estimator with its ``vectorizer``.
    path : str, os.PathLike or binary file object
        Destination: a path (an existing file is replaced), or a file object
        open for writing in binary mode (``io.BytesIO()`` for the bytes of a
        model), written from its current position and left open.
    vectorizer : nbfast.text.HashingVectorizer, CountVectorizer or TfidfVectorizer, default=None
        The vectorizer that turned raw text into the model's input, stored by
        its parameters (which must be JSON values: no callables), and for a
        fitted CountVectorizer or TfidfVectorizer its vocabulary (and idf), so
        that :func:`load_vectorizer` gives it back; it must make the model's
        ``n_features_in_`` columns.
    training_input : dict, default=None
        How the training input was read: ``{"kind": "vectors" or "text",
        "zero_based": True, False or None}`` (the index base of svmlight files,
        None when none was read); :func:`load_training_input` gives it back and
        ``nbfast predict`` reads new input the same way.

    Raises
    ------
    NotFittedError
        If ``model`` is not fitted.
    TypeError
        If the model is not an nbfast estimator or a two-step pipeline of one,
        or holds a value that cannot be stored without pickle (or the
        vectorizer such a parameter), or ``path`` is a file object open in
        text mode.
    ValueError
        If the model holds a value a model file may not: a number that is not
        finite or an integer beyond int64 and uint64, or fitted values that
        :func:`load` refuses (log-probabilities that are not finite, priors
        that do not sum to 1, variances that are not positive), or its
        description is larger than a model file's header may hold.
    """
    model, vectorizer = _pipeline_steps(model, vectorizer)
    if not _is_estimator(model):
        raise TypeError(
            f"cannot save a {type(model).__name__}: model files hold nbfast estimators only, alone or as the last "
            "step of a two-step Pipeline after a vectorizer of nbfast.text (as nbfast train stores them); get them "
            "back with nbfast.load(path) and nbfast.persist.load_vectorizer(path)."
        )
    if not _is_fitted(model):
        raise _compat.NotFittedError(f"This {type(model).__name__} instance is not fitted yet; only fitted models are saved.")
    from nbfast.naive_bayes._locking import instance_lock  # here: the estimators are loaded once one is fitted

    encoder = _Encoder()
    # Under the model's lock: a partial_fit in another thread installs its batch whole, before or after this
    # snapshot (its arrays are then replaced, never written into, so they can be written after the lock).
    with instance_lock(model):
        spec = encoder.model(model, type(model).__name__)
        summary = {"classes": model.classes_.tolist(), "n_features_in": int(model.n_features_in_)}
    vectorizer_entry = None if vectorizer is None else _vectorizer_spec(vectorizer, model.n_features_in_)
    input_entry = None if training_input is None else training_input_entry(training_input)
    entries, position = [], 0
    for array, order in encoder.arrays:
        offset = _align(position)
        entries.append({"dtype": array.dtype.str, "shape": list(array.shape), "order": order,
                        "offset": offset, "nbytes": array.nbytes})
        position = offset + array.nbytes
    digest = hashlib.sha256()
    for chunk in _data_chunks(encoder.arrays, entries):
        digest.update(chunk)
    header = {
        "format": _FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "nbfast_version": __version__,
        "summary": summary,
        "model": spec,
        "arrays": entries,
        "data_nbytes": position,
        "data_sha256": digest.hexdigest(),
    }
    if vectorizer_entry is not None:
        header["vectorizer"] = vectorizer_entry
    if input_entry is not None:
        header["training_input"] = input_entry
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    if len(raw) > MAX_HEADER_NBYTES:
        raise ValueError(f"cannot save this model: its description takes {len(raw):,} bytes, more than the "
                         f"{MAX_HEADER_NBYTES:,} a model file's header may hold.")
    with _destination(path) as f:
        f.write(_PREAMBLE.pack(MAGIC, len(raw), hashlib.sha256(raw).digest()))
        f.write(raw)
        f.write(bytes(_align(_PREAMBLE.size + len(raw)) - _PREAMBLE.size - len(raw)))
        for chunk in _data_chunks(encoder.arrays, entries):
            f.write(chunk)


def _pipeline_steps(model, vectorizer):
    """(model, vectorizer) to save: a two-step Pipeline's last and first steps, anything else as given."""
    pipeline = _compat.sklearn_module_if_loaded("pipeline")
    if pipeline is None or not isinstance(model, pipeline.Pipeline):
        return model, vectorizer
    steps = [step for _, step in model.steps if step is not None and not isinstance(step, str)]
    if len(steps) != 2:
        raise TypeError(f"a Pipeline is saved as a vectorizer and a model: this one has {len(steps)} steps.")
    if vectorizer is not None:
        raise TypeError("a Pipeline holds its vectorizer (its first step): do not pass vectorizer= too.")
    return steps[1], steps[0]


@contextlib.contextmanager
def _destination(path):
    """A binary file to write a model to: ``path`` replaced at the end, or the caller's file object."""
    if not hasattr(path, "write"):
        with replacing(os.fspath(path)) as f:
            yield f
        return
    if isinstance(path, io.TextIOBase):
        raise TypeError("a model file is binary: open it with open(path, 'wb'), not in text mode.")
    yield path


def load(path, *, mmap=False):
    """Load a model saved by :func:`save`.

    Nothing is unpickled; the header and data checksums are verified and the
    model is checked for consistency before it is returned.

    Parameters
    ----------
    path : str, os.PathLike, bytes-like or binary file object
        A model file: its path, its bytes, or a file object open for reading
        in binary mode (read from its current position to its end, and left
        open).  Bytes and file objects are checked exactly as files are.
    mmap : bool, default=False
        Map the arrays read-only from the file instead of reading them into
        memory (a path only): processes loading the same file share its pages
        through the page cache.  The data checksum is still verified (it reads the file
        once, without a private copy).  ``partial_fit`` on such a model copies
        the statistics it updates.  The file must stay as it is while the
        model is in use: a file truncated or rewritten in place afterwards
        (rather than replaced by renaming a new file over it, as :func:`save`
        does) makes the operating system end the process with SIGBUS, not an
        exception, when a prediction reads the pages that are gone.  Load
        without ``mmap`` when another program may change the file.

    Returns
    -------
    model : nbfast estimator
        The fitted estimator, of the class named in the file.

    Raises
    ------
    ModelFormatError
        If the file is empty, truncated, corrupted, foreign, from a newer
        format version, or describes an unknown or inconsistent model.
    TypeError
        If ``path`` is none of the above, or a file object open in text mode.
    ValueError
        If ``mmap`` is True for bytes or a file object.
    OSError
        If the file cannot be opened or read.
    """
    with ModelFile(path) as model_file:
        return model_file.model(mmap=mmap)


def load_vectorizer(path, *, trust=False):
    """The text vectorizer stored with a model by ``save(..., vectorizer=...)``, or None.

    Only the (checksummed) header is read.  The stored settings are checked as
    data from a stranger: documents as content only (never file names to open),
    n-grams of at most 10, no callables, and a token pattern among nbfast's safe
    ones unless ``trust`` is True; a vocabulary holds distinct strings, one per
    model feature, and idf weights are finite and positive.

    Parameters
    ----------
    path : str, os.PathLike, bytes-like or binary file object
        A model file, as :func:`load` takes it.
    trust : bool, default=False
        Accept any stored token pattern (a regular expression can take
        exponential time on crafted text): only for files from a trusted author.

    Returns
    -------
    vectorizer : nbfast.text.HashingVectorizer, CountVectorizer, TfidfVectorizer or None
        A vectorizer with the stored parameters (fitted: with the stored
        vocabulary and idf), None when the model was saved without one (for
        example, trained on feature vectors).

    Raises
    ------
    ModelFormatError
        If the header is missing, corrupted or invalid, or describes an invalid vectorizer.
    """
    with ModelFile(path) as model_file:
        return model_file.vectorizer(trust=trust)


def load_training_input(path):
    """How the model's training input was read, as stored by ``save(..., training_input=...)``, or None.

    Only the (checksummed) header is read.

    Parameters
    ----------
    path : str, os.PathLike, bytes-like or binary file object
        A model file, as :func:`load` takes it.

    Returns
    -------
    training_input : dict or None
        ``{"kind": "vectors" or "text", "zero_based": True, False or None}``;
        None for files saved without it (``nbfast train`` always stores it).

    Raises
    ------
    ModelFormatError
        If the header is missing, corrupted or invalid, or the entry is malformed.
    """
    with ModelFile(path) as model_file:
        return model_file.training_input()
