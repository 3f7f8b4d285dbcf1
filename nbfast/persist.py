"""Model files: save a fitted nbfast estimator as arrays plus JSON, load it back safely.

A model file never contains pickled objects, so loading one from an untrusted
source cannot execute code.  Layout (format version 1, integers little-endian)::

    offset 0     8 bytes   magic  b"\\x89NBFAST\\n"
    offset 8     8 bytes   header length H (uint64)
    offset 16   32 bytes   sha256 of the header bytes
    offset 48    H bytes   header: UTF-8 JSON
    zero padding to a multiple of 64 bytes: the data section starts here
    data section           each array's raw bytes (C or Fortran order, little-endian)
                           at a 64-byte-aligned offset, zero padding in between

The header holds the format version, the nbfast version, the model (estimator
class, parameters, fitted attributes and feature names, as tagged JSON in which
arrays are references into the data section), a table of arrays (dtype, shape,
order, offset), a summary for ``nbfast info`` (classes, number of features), and
the size and sha256 of the data section.  Array dtypes are restricted to
booleans, integers, floats and unicode strings; object arrays of strings (such
as ``feature_names_in_``) are stored as unicode and restored as object arrays.

Models are described generically through the estimator protocol: parameters
come from ``get_params(deep=False)`` and the fitted state from the attributes
named in ``_fitted_attributes``, set back in that order.  Values may be None,
bools, numbers, strings, numpy scalars and arrays, lists, tuples, dicts with
string keys, and nbfast estimators (fitted or not) nested anywhere inside them:
a composite model such as MixedNB contributes its parts by holding them in a
parameter or a fitted attribute.  On load, classes are looked up in an
allow-list (the estimators exported by ``nbfast``), never imported by name, and
the rebuilt model is checked for consistency (:func:`check_fitted_state`)
before it is returned; an estimator may add its own checks in a
``_validate_fitted()`` method.

A model trained on raw text may carry the settings of the
:class:`nbfast.text.HashingVectorizer` that made its input, in an optional
header entry ``"vectorizer": {"class": "HashingVectorizer", "params": {...}}``
(tagged JSON values, the dtype by name; no callables), so the same text gets
the same columns at prediction time: see ``save(..., vectorizer=...)`` and
:func:`load_vectorizer`.  Files without it, and readers that ignore it, are
unaffected.

Readers accept every format version up to :data:`FORMAT_VERSION`; a file from
a newer format is refused with a message asking to upgrade nbfast.
"""

import hashlib
import json
import math
import mmap as _mmap
import numbers
import os
import struct
import sys
import threading

import numpy as np

from nbfast._base import _BaseNB
from nbfast._compat import NotFittedError

__all__ = [
    "FORMAT_VERSION", "ModelFormatError", "check_fitted_state", "estimator_classes", "load", "load_vectorizer",
    "read_info", "rebuild", "save",
]

#: Version of the file layout written by :func:`save`.
FORMAT_VERSION = 1
MAGIC = b"\x89NBFAST\n"
_FORMAT_NAME = "nbfast-model"
_PREAMBLE = struct.Struct("<8sQ32s")  # magic, header length, sha256 of the header
_ALIGN = 64
_READ_CHUNK = 1 << 20
_FOREIGN_SIGNATURES = (
    (b"PK\x03\x04", "a zip archive (an .npz written by another program?)"),
    (b"\x93NUMPY", "a NumPy .npy file"),
    (b"\x80", "a Python pickle (nbfast never unpickles: loading a pickle can execute code)"),
    (b"\x1f\x8b", "a gzip file"),
)


class ModelFormatError(ValueError):
    """A file is not a valid nbfast model file.

    Raised by :func:`load` for an empty, truncated, corrupted, foreign (a pickle,
    an npz, random bytes) or too new file, or one that describes an unknown or
    inconsistent model.  The message says which.
    """


def estimator_classes():
    """The allow-list of classes a model file may name: nbfast's public estimators.

    Returns
    -------
    classes : dict
        Class name -> class, for every name exported by ``nbfast`` that is an
        estimator class declaring ``_fitted_attributes``.
    """
    import nbfast

    classes = (getattr(nbfast, name) for name in nbfast.__all__)
    return {cls.__name__: cls for cls in classes if isinstance(cls, type) and hasattr(cls, "_fitted_attributes")}


def _is_fitted(model):
    present = [hasattr(model, name) for name in type(model)._fitted_attributes]
    if any(present) and not all(present):
        missing = [n for n, p in zip(type(model)._fitted_attributes, present) if not p]
        raise ValueError(f"{type(model).__name__} is partially fitted: it lacks {missing}.")
    return all(present)


def _arrays_in(value):
    """The ndarrays of an attribute value: the array itself, or the arrays of a list."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, np.ndarray)]
    return []


def _stored_size(value):
    """Number of array entries in a fitted model's attributes, its fitted parts' included."""
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, (list, tuple)):
        return sum(_stored_size(v) for v in value)
    if isinstance(value, _BaseNB) and hasattr(value, "classes_"):
        return sum(_stored_size(getattr(value, name)) for name in type(value)._fitted_attributes)
    return 0


def check_fitted_state(model):
    """Check that a rebuilt model's fitted attributes agree with each other.

    Kernels trust the shapes of the tables they are given, so a model rebuilt
    from a file or from another library is checked before it is used: sorted
    unique ``classes_``, an integer ``n_features_in_``, numeric fitted arrays,
    sufficient statistics shaped like ``_init_stats(n_classes, n_features)``,
    the scoring table (n_features, n_classes) and bias (n_classes,) of linear
    models, and whatever the estimator's own ``_validate_fitted()`` checks.

    Raises
    ------
    ValueError
        Naming the first inconsistency found.
    """
    classes = model.classes_
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        raise ValueError(f"classes_ must be a non-empty 1-D array, got {classes!r}.")
    if classes.dtype.kind not in "biufUO" or not np.array_equal(np.unique(classes), classes):
        raise ValueError("classes_ must hold sorted, unique labels.")
    n_classes, n_features = len(classes), model.n_features_in_
    if not isinstance(n_features, numbers.Integral) or isinstance(n_features, bool) or n_features < 1:
        raise ValueError(f"n_features_in_ must be a positive integer, got {n_features!r}.")
    names = getattr(model, "feature_names_in_", None)
    if names is not None and (not isinstance(names, np.ndarray) or names.shape != (n_features,)):
        raise ValueError(f"feature_names_in_ must be an array of {n_features} names.")
    for name in type(model)._fitted_attributes:
        if name != "classes_" and any(a.dtype.kind not in "biuf" for a in _arrays_in(getattr(model, name))):
            raise ValueError(f"{name} must hold numbers.")
    if isinstance(model, _BaseNB):
        # Every naive Bayes model has parameters per (class, feature): this bounds
        # n_features_in_ before the expected shapes are built from it.
        stored = _stored_size(model)
        if stored < n_classes * n_features:
            raise ValueError(f"{n_classes} classes and n_features_in_={n_features} do not fit the stored arrays.")
        template = model._init_stats(n_classes, n_features) if model._stat_names else {}
        for name, expected in template.items():
            if name not in type(model)._fitted_attributes:
                continue  # private statistics are derived from the fitted attributes, not stored
            value = getattr(model, name)
            if isinstance(expected, np.ndarray) and np.shape(value) != expected.shape:
                raise ValueError(f"{name} has shape {np.shape(value)}, expected {expected.shape}.")
        if type(model)._score is _BaseNB._score:
            table, bias = model._linear_terms()[:2]
            if np.shape(table) != (n_features, n_classes) or np.shape(bias) != (n_classes,):
                raise ValueError(
                    f"the scoring table has shape {np.shape(table)} and the bias {np.shape(bias)}, "
                    f"expected ({n_features}, {n_classes}) and ({n_classes},)."
                )
    validate = getattr(model, "_validate_fitted", None)
    if validate is not None:
        validate()


def rebuild(cls, params, fitted, feature_names=None):
    """A new ``cls`` estimator with these parameters and (when not None) fitted attributes.

    The fitted attributes are set in the order of ``cls._fitted_attributes`` and
    the result is checked by :func:`check_fitted_state`; nothing is returned
    half-built.
    """
    model = cls(**params)
    if fitted is not None:
        for name in cls._fitted_attributes:
            setattr(model, name, fitted[name])
        if feature_names is not None:
            model.feature_names_in_ = feature_names
        check_fitted_state(model)
    return model


# --------------------------------------------------------------------------- encoding
def _allowed_dtype(dtype):
    return (
        dtype.fields is None
        and dtype.subdtype is None
        and dtype.itemsize > 0
        and (dtype.kind in "biuU" or (dtype.kind == "f" and dtype.itemsize <= 8))
    )


class _Encoder:
    """Turns a model into tagged JSON plus a list of arrays."""

    def __init__(self):
        self.arrays = []

    def model(self, model, where):
        cls = type(model)
        if estimator_classes().get(cls.__name__) is not cls:
            raise TypeError(f"cannot save {where}: {cls.__module__}.{cls.__qualname__} is not an nbfast estimator.")
        spec = {
            "class": cls.__name__,
            "params": {k: self.value(v, f"{where}.{k}") for k, v in model.get_params(deep=False).items()},
            "fitted": None,
        }
        if _is_fitted(model):
            spec["fitted"] = {n: self.value(getattr(model, n), f"{where}.{n}") for n in cls._fitted_attributes}
            names = getattr(model, "feature_names_in_", None)
            if names is not None:
                spec["feature_names_in_"] = self.value(names, f"{where}.feature_names_in_")
        return spec

    def value(self, value, where):
        if value is None or (isinstance(value, (bool, str)) and not isinstance(value, np.generic)):
            return value
        if isinstance(value, np.generic):
            if not _allowed_dtype(value.dtype):
                raise TypeError(f"cannot save {where}: numpy scalars of dtype {value.dtype} are not supported.")
            return {"__scalar__": value.dtype.str, "value": value.item()}
        if isinstance(value, (numbers.Integral, float)):
            return int(value) if isinstance(value, numbers.Integral) else float(value)
        if isinstance(value, np.ndarray):
            return self.array(value, where)
        if isinstance(value, list):
            return [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, tuple):
            return {"__tuple__": [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if isinstance(value, slice):  # MixedNB column selections
            return {"__slice__": [self.value(v, f"{where}.{a}") for a, v in
                                  (("start", value.start), ("stop", value.stop), ("step", value.step))]}
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise TypeError(f"cannot save {where}: dict keys must be strings.")
            return {"__dict__": {k: self.value(v, f"{where}[{k!r}]") for k, v in value.items()}}
        if hasattr(type(value), "_fitted_attributes"):
            return {"__estimator__": self.model(value, where)}
        raise TypeError(f"cannot save {where}: values of type {type(value).__name__} are not supported.")

    def array(self, array, where):
        ref = {"__ndarray__": len(self.arrays)}
        if array.dtype == object:
            flat = array.ravel().tolist()
            if not all(isinstance(v, str) for v in flat):
                raise TypeError(f"cannot save {where}: object arrays may only hold strings.")
            array = np.array(flat, dtype=np.str_).reshape(array.shape) if flat else np.empty(array.shape, "<U1")
            ref["object"] = True
        if not _allowed_dtype(array.dtype):
            raise TypeError(f"cannot save {where}: arrays of dtype {array.dtype} are not supported.")
        array = array.astype(array.dtype.newbyteorder("<"), copy=False)
        order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
        self.arrays.append((np.asarray(array, order=order), order))
        return ref


def _align(n):
    return -(-n // _ALIGN) * _ALIGN


def _data_chunks(arrays, entries):
    """The data section as a sequence of buffers: zero padding, then each array's bytes."""
    position = 0
    for (array, _), entry in zip(arrays, entries):
        yield bytes(entry["offset"] - position)
        if array.size:
            yield np.ravel(array, order="K").view(np.uint8)
        position = entry["offset"] + entry["nbytes"]


def _vectorizer_spec(vectorizer, n_features):
    """The header entry describing a HashingVectorizer: its parameters as tagged JSON, without arrays."""
    from nbfast.text import HashingVectorizer

    if type(vectorizer) is not HashingVectorizer:
        raise TypeError(f"cannot save vectorizer: {type(vectorizer).__name__} is not nbfast.text.HashingVectorizer.")
    vectorizer._validate_params()
    if vectorizer.n_features != n_features:
        raise ValueError(f"the vectorizer makes {vectorizer.n_features} features, the model has {n_features}.")
    encoder, params = _Encoder(), vectorizer.get_params(deep=False)
    spec = {k: encoder.value(v, f"vectorizer.{k}") for k, v in params.items() if k != "dtype"}
    if encoder.arrays:
        raise TypeError("cannot save vectorizer: its parameters may not hold arrays.")
    spec["dtype"] = np.dtype(params["dtype"]).name
    return {"class": "HashingVectorizer", "params": spec}


def save(model, path, *, vectorizer=None):
    """Save a fitted nbfast estimator to a model file.

    The file holds only arrays and JSON (see :mod:`nbfast.persist`), is written
    to a temporary name and renamed into place, so ``path`` never holds a
    half-written model.

    Parameters
    ----------
    model : nbfast estimator
        A fitted estimator (any class exported by nbfast, including composite
        models holding other nbfast estimators).
    path : str or os.PathLike
        Destination; an existing file is replaced.
    vectorizer : nbfast.text.HashingVectorizer, default=None
        The vectorizer that turned raw text into the model's input, stored by
        its parameters (which must be JSON values: no callables) so that
        :func:`load_vectorizer` gives it back; its ``n_features`` must be the
        model's.

    Raises
    ------
    NotFittedError
        If ``model`` is not fitted.
    TypeError
        If the model is not an nbfast estimator or holds a value that cannot be
        stored without pickle (or the vectorizer such a parameter).
    """
    if not hasattr(type(model), "_fitted_attributes") or not _is_fitted(model):
        raise NotFittedError(f"This {type(model).__name__} instance is not fitted yet; only fitted models are saved.")
    encoder = _Encoder()
    spec = encoder.model(model, type(model).__name__)
    vectorizer_entry = None if vectorizer is None else _vectorizer_spec(vectorizer, model.n_features_in_)
    entries, position = [], 0
    for array, order in encoder.arrays:
        offset = _align(position)
        entries.append({"dtype": array.dtype.str, "shape": list(array.shape), "order": order,
                        "offset": offset, "nbytes": array.nbytes})
        position = offset + array.nbytes
    digest = hashlib.sha256()
    for chunk in _data_chunks(encoder.arrays, entries):
        digest.update(chunk)
    from nbfast import __version__

    header = {
        "format": _FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "nbfast_version": __version__,
        "summary": {"classes": model.classes_.tolist(), "n_features_in": int(model.n_features_in_)},
        "model": spec,
        "arrays": entries,
        "data_nbytes": position,
        "data_sha256": digest.hexdigest(),
    }
    if vectorizer_entry is not None:
        header["vectorizer"] = vectorizer_entry
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    path = os.fspath(path)
    temporary = f"{path}.{os.getpid()}-{threading.get_ident()}.tmp"
    try:
        with open(temporary, "wb") as f:
            f.write(_PREAMBLE.pack(MAGIC, len(raw), hashlib.sha256(raw).digest()))
            f.write(raw)
            f.write(bytes(_align(_PREAMBLE.size + len(raw)) - _PREAMBLE.size - len(raw)))
            for chunk in _data_chunks(encoder.arrays, entries):
                f.write(chunk)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# --------------------------------------------------------------------------- reading
def _read_header(f):
    """Read and check the preamble and header; return (header, data_start)."""
    size = os.fstat(f.fileno()).st_size
    if size == 0:
        raise ModelFormatError("empty file, not an nbfast model file.")
    head = f.read(_PREAMBLE.size)
    if head[: len(MAGIC)] != MAGIC:
        if MAGIC.startswith(head):
            raise ModelFormatError(f"truncated: {size} bytes, too short for an nbfast model file.")
        kind = next((what for sig, what in _FOREIGN_SIGNATURES if head.startswith(sig)), "of an unknown kind")
        raise ModelFormatError(f"not an nbfast model file: the file is {kind}.")
    if len(head) < _PREAMBLE.size:
        raise ModelFormatError(f"truncated: {size} bytes, too short for an nbfast model file.")
    _, header_nbytes, header_sha256 = _PREAMBLE.unpack(head)
    if header_nbytes > size - _PREAMBLE.size:
        raise ModelFormatError(f"truncated (or corrupted): the header needs {header_nbytes} bytes, the file has {size}.")
    raw = f.read(header_nbytes)
    if hashlib.sha256(raw).digest() != header_sha256:
        raise ModelFormatError("corrupted: the header checksum does not match.")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise ModelFormatError(f"unreadable header: {exc}") from None
    _check_header(header)
    data_start = _align(_PREAMBLE.size + header_nbytes)
    expected = data_start + header["data_nbytes"]
    if size != expected:
        what = "truncated" if size < expected else "trailing bytes"
        raise ModelFormatError(f"{what}: the file has {size} bytes, its header describes {expected}.")
    if any(f.read(data_start - _PREAMBLE.size - header_nbytes)):
        raise ModelFormatError("corrupted: the padding after the header is not zero.")
    return header, data_start


def _is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_header(header):
    if not isinstance(header, dict) or header.get("format") != _FORMAT_NAME:
        raise ModelFormatError("not an nbfast model file: the header does not describe a model.")
    version = header.get("format_version")
    if not _is_count(version) or version < 1:
        raise ModelFormatError(f"invalid format version {version!r}.")
    if version > FORMAT_VERSION:
        raise ModelFormatError(
            f"written with model format version {version} (nbfast {header.get('nbfast_version')}); this nbfast reads "
            f"versions up to {FORMAT_VERSION}: upgrade nbfast to load it."
        )
    for key, kind in (("nbfast_version", str), ("summary", dict), ("model", dict), ("arrays", list),
                      ("data_nbytes", int), ("data_sha256", str)):
        if not isinstance(header.get(key), kind):
            raise ModelFormatError(f"invalid header: {key!r} is missing or not a {kind.__name__}.")
    if not _is_count(header["data_nbytes"]):
        raise ModelFormatError("invalid header: negative data size.")
    header["arrays"] = [_check_array_entry(entry, header["data_nbytes"]) for entry in header["arrays"]]
    end = 0
    for entry in sorted(header["arrays"], key=lambda e: e["offset"]):
        if entry["offset"] < end:
            raise ModelFormatError("invalid header: arrays overlap.")
        end = entry["offset"] + entry["nbytes"]


def _check_array_entry(entry, data_nbytes):
    """Validate one entry of the array table and parse its dtype."""
    try:
        dtype = np.dtype(entry["dtype"]) if isinstance(entry["dtype"], str) else None
        shape, order, offset = tuple(entry["shape"]), entry["order"], entry["offset"]
    except (TypeError, KeyError, ValueError) as exc:
        raise ModelFormatError(f"invalid array entry {entry!r}: {exc}") from None
    if dtype is None or not _allowed_dtype(dtype):
        raise ModelFormatError(f"invalid array entry: dtype {entry['dtype']!r} is not allowed in a model file.")
    if not all(_is_count(n) for n in shape) or order not in ("C", "F") or not _is_count(offset) or offset % _ALIGN:
        raise ModelFormatError(f"invalid array entry {entry!r}.")
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes != entry.get("nbytes") or offset + nbytes > data_nbytes:
        raise ModelFormatError(f"invalid array entry {entry!r}: it does not fit in the data section.")
    return {"dtype": dtype, "shape": shape, "order": order, "offset": offset, "nbytes": nbytes}


def _read_data(f, data_start, nbytes, mmap):
    """The data section as a uint8 array (memory-mapped read-only, or read into memory) and its sha256.

    When reading, each chunk is hashed as it arrives, while it is still in cache.
    """
    digest = hashlib.sha256()
    if nbytes == 0:
        return np.empty(0, dtype=np.uint8), digest.hexdigest()
    if mmap:
        mapping = _mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_READ)
        data = np.frombuffer(mapping, dtype=np.uint8, count=nbytes, offset=data_start)
        digest.update(data)
        return data, digest.hexdigest()
    data = np.empty(nbytes, dtype=np.uint8)
    f.seek(data_start)
    view, done = memoryview(data), 0
    while done < nbytes:
        n = f.readinto(view[done: done + _READ_CHUNK])
        if not n:
            raise ModelFormatError("truncated while reading the arrays.")
        digest.update(view[done: done + n])
        done += n
    return data, digest.hexdigest()


class _Decoder:
    """Turns tagged JSON plus the file's arrays back into values and models."""

    def __init__(self, arrays):
        self.arrays = arrays
        self.used = set()

    def model(self, spec):
        if not isinstance(spec, dict) or not isinstance(spec.get("params"), dict):
            raise ModelFormatError("invalid model description.")
        allowed = estimator_classes()
        cls = allowed.get(spec.get("class")) if isinstance(spec.get("class"), str) else None
        if cls is None:
            raise ModelFormatError(
                f"unknown estimator class {spec.get('class')!r}: model files may only name nbfast's estimators "
                f"({', '.join(sorted(allowed))})."
            )
        unknown = set(spec["params"]) - set(cls._get_param_names())
        if unknown:
            raise ModelFormatError(f"{cls.__name__} has no parameters {sorted(unknown)}.")
        params = {k: self.value(v) for k, v in spec["params"].items()}
        fitted = spec.get("fitted")
        if fitted is not None:
            if not isinstance(fitted, dict) or set(fitted) != set(cls._fitted_attributes):
                have = sorted(fitted) if isinstance(fitted, dict) else fitted
                raise ModelFormatError(
                    f"{cls.__name__} needs the fitted attributes {list(cls._fitted_attributes)}, the file has {have}."
                )
            fitted = {k: self.value(v) for k, v in fitted.items()}
        names = spec.get("feature_names_in_")
        return rebuild(cls, params, fitted, None if names is None else self.value(names))

    def value(self, value):
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict) and len(value) >= 1:
            if "__ndarray__" in value:
                return self.array(value)
            if set(value) == {"__scalar__", "value"}:
                return self.scalar(value["__scalar__"], value["value"])
            if set(value) == {"__tuple__"} and isinstance(value["__tuple__"], list):
                return tuple(self.value(v) for v in value["__tuple__"])
            if set(value) == {"__slice__"} and isinstance(value["__slice__"], list) and len(value["__slice__"]) == 3:
                bounds = [self.value(v) for v in value["__slice__"]]
                if all(b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in bounds):
                    return slice(*bounds)
            if set(value) == {"__dict__"} and isinstance(value["__dict__"], dict):
                return {k: self.value(v) for k, v in value["__dict__"].items()}
            if set(value) == {"__estimator__"}:
                return self.model(value["__estimator__"])
        raise ModelFormatError(f"invalid value {value!r} in the model description.")

    def array(self, ref):
        index = ref["__ndarray__"]
        if not _is_count(index) or index >= len(self.arrays) or index in self.used or set(ref) - {"__ndarray__", "object"}:
            raise ModelFormatError(f"invalid array reference {ref!r}.")
        self.used.add(index)
        array = self.arrays[index]
        if ref.get("object"):
            if array.dtype.kind != "U":
                raise ModelFormatError("invalid array reference: only string arrays can be restored as objects.")
            return array.astype(object)
        return array

    @staticmethod
    def scalar(dtype, value):
        dtype = np.dtype(dtype) if isinstance(dtype, str) else None
        kinds = {"b": bool, "i": int, "u": int, "f": (int, float), "U": str}
        if dtype is None or not _allowed_dtype(dtype) or not isinstance(value, kinds[dtype.kind]):
            raise ModelFormatError(f"invalid numpy scalar {dtype!r}: {value!r}.")
        if dtype.kind in "iu" and isinstance(value, bool):
            raise ModelFormatError(f"invalid numpy scalar {dtype!r}: {value!r}.")
        return dtype.type(value)


def _array_views(data, entries):
    """Each array of the table as a view of the data section."""
    arrays = []
    for e in entries:
        raw = data[e["offset"]: e["offset"] + e["nbytes"]]
        if e["dtype"].kind == "U" and raw.size and raw.view("<u4").max() > sys.maxunicode:
            raise ModelFormatError("invalid string array: a character is beyond the Unicode range.")
        arrays.append(raw.view(e["dtype"]).reshape(e["shape"], order=e["order"]))
    return arrays


def load(path, *, mmap=False):
    """Load a model saved by :func:`save`.

    Nothing is unpickled; the header and data checksums are verified and the
    model is checked for consistency before it is returned.

    Parameters
    ----------
    path : str or os.PathLike
        A model file.
    mmap : bool, default=False
        Map the arrays read-only from the file instead of reading them into
        memory: processes loading the same file share its pages through the
        page cache.  The data checksum is still verified (it reads the file
        once, without a private copy).  ``partial_fit`` on such a model copies
        the statistics it updates.

    Returns
    -------
    model : nbfast estimator
        The fitted estimator, of the class named in the file.

    Raises
    ------
    ModelFormatError
        If the file is empty, truncated, corrupted, foreign, from a newer
        format version, or describes an unknown or inconsistent model.
    OSError
        If the file cannot be opened or read.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            header, data_start = _read_header(f)
            data, digest = _read_data(f, data_start, header["data_nbytes"], mmap)
        if digest != header["data_sha256"]:
            raise ModelFormatError("corrupted: the data checksum does not match.")
        try:
            model = _Decoder(_array_views(data, header["arrays"])).model(header["model"])
        except ModelFormatError:
            raise
        except (ValueError, TypeError, AttributeError, IndexError, KeyError, ArithmeticError, RecursionError) as exc:
            raise ModelFormatError(f"invalid or inconsistent model: {exc}") from exc
        if header["model"].get("fitted") is None:
            raise ModelFormatError("the file holds an unfitted model.")
        return model
    except ModelFormatError as exc:
        raise ModelFormatError(f"{path}: {exc}") from exc.__cause__


def _is_plain(value):
    """None, a bool, number or string, or a list or tuple of them."""
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    return value is None or (isinstance(value, (bool, int, float, str)) and not isinstance(value, np.generic))


def _rebuild_vectorizer(spec, n_features):
    """The HashingVectorizer a header entry describes, checked; ModelFormatError when it is invalid."""
    from nbfast.text import HashingVectorizer

    if not isinstance(spec, dict) or spec.get("class") != "HashingVectorizer" or not isinstance(
            spec.get("params"), dict):
        raise ModelFormatError("invalid vectorizer entry: only nbfast.text.HashingVectorizer can be stored.")
    params = dict(spec["params"])
    unknown = set(params) - set(HashingVectorizer._get_param_names())
    if unknown:
        raise ModelFormatError(f"HashingVectorizer has no parameters {sorted(unknown)}.")
    dtype = params.pop("dtype", "float64")
    if dtype not in ("float32", "float64"):
        raise ModelFormatError(f"invalid vectorizer dtype {dtype!r}.")
    params = {k: _Decoder([]).value(v) for k, v in params.items()}
    if not all(_is_plain(v) for v in params.values()):
        raise ModelFormatError("invalid vectorizer entry: parameters must be plain JSON values.")
    try:
        vectorizer = HashingVectorizer(dtype=np.dtype(dtype).type, **params)
        vectorizer._validate_params()
    except ValueError as exc:
        raise ModelFormatError(f"invalid vectorizer: {exc}") from None
    if vectorizer.n_features != n_features:
        raise ModelFormatError(f"the vectorizer makes {vectorizer.n_features} features, the model has {n_features}.")
    return vectorizer


def load_vectorizer(path):
    """The text vectorizer stored with a model by ``save(..., vectorizer=...)``, or None.

    Only the (checksummed) header is read.

    Parameters
    ----------
    path : str or os.PathLike
        A model file.

    Returns
    -------
    vectorizer : nbfast.text.HashingVectorizer or None
        A vectorizer with the stored parameters, None when the model was saved
        without one (for example, trained on feature vectors).

    Raises
    ------
    ModelFormatError
        If the header is missing, corrupted or invalid, or describes an invalid vectorizer.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            header, _ = _read_header(f)
        if "vectorizer" not in header:
            return None
        return _rebuild_vectorizer(header["vectorizer"], header["summary"].get("n_features_in"))
    except ModelFormatError as exc:
        raise ModelFormatError(f"{path}: {exc}") from None
    except RecursionError:
        raise ModelFormatError(f"{path}: invalid vectorizer entry: nested too deeply.") from None


# --------------------------------------------------------------------------- info
def _describe(value, entries):
    """A short display of a tagged JSON value, without reading any array."""
    if isinstance(value, list):
        return "[" + ", ".join(_describe(v, entries) for v in value) + "]"
    if not isinstance(value, dict):
        return repr(value)
    if "__ndarray__" in value:
        entry = entries[value["__ndarray__"]]
        dtype = "object" if value.get("object") else entry["dtype"].name
        return f"array(shape={entry['shape']}, dtype={dtype})"
    if "__scalar__" in value:
        return repr(value["value"])
    if "__tuple__" in value:
        items = [_describe(v, entries) for v in value["__tuple__"]]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if "__slice__" in value:
        return "slice(" + ", ".join(_describe(v, entries) for v in value["__slice__"]) + ")"
    if "__dict__" in value:
        return "{" + ", ".join(f"{k!r}: {_describe(v, entries)}" for k, v in value["__dict__"].items()) + "}"
    spec = value["__estimator__"]
    return f"{spec['class']}(" + ", ".join(f"{k}={_describe(v, entries)}" for k, v in spec["params"].items()) + ")"


def _describe_vectorizer(spec):
    if spec is None:
        return None
    return f"{spec['class']}(" + ", ".join(f"{k}={_describe(v, [])}" for k, v in spec["params"].items()) + ")"


def read_info(path):
    """Describe a model file from its header alone, without reading its arrays.

    The header checksum is verified; the data checksum is not (use
    :func:`load` for that).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    info : dict
        ``format_version``, ``nbfast_version``, ``class``, ``params`` (name ->
        display string), ``classes`` (list), ``n_features_in``,
        ``has_feature_names``, ``n_arrays``, ``data_nbytes`` and ``vectorizer``
        (display string, None when the model has none).

    Raises
    ------
    ModelFormatError
        If the header is missing, corrupted or invalid.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            header, _ = _read_header(f)
        spec, summary, entries = header["model"], header["summary"], header["arrays"]
        return {
            "format_version": header["format_version"],
            "nbfast_version": header["nbfast_version"],
            "class": spec["class"],
            "params": {k: _describe(v, entries) for k, v in spec["params"].items()},
            "classes": list(summary["classes"]),
            "n_features_in": summary["n_features_in"],
            "has_feature_names": "feature_names_in_" in spec,
            "n_arrays": len(entries),
            "data_nbytes": header["data_nbytes"],
            "vectorizer": _describe_vectorizer(header.get("vectorizer")),
        }
    except ModelFormatError as exc:
        raise ModelFormatError(f"{path}: {exc}") from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError) as exc:
        raise ModelFormatError(f"{path}: invalid header: {exc!r}") from None
