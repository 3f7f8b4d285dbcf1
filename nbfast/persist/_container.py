"""The model file container: magic, header length and checksum, a JSON header, 64-byte aligned arrays.

Layout (format versions 1 and 2, integers little-endian)::

    offset 0     8 bytes   magic  b"\\x89NBFAST\\n"
    offset 8     8 bytes   header length H (uint64)
    offset 16   32 bytes   sha256 of the header bytes
    offset 48    H bytes   header: UTF-8 JSON
    zero padding to a multiple of 64 bytes: the data section starts here
    data section           each array's raw bytes (C or Fortran order, little-endian)
                           at a 64-byte-aligned offset, zero padding in between

This module knows bytes, JSON and arrays, not models: :mod:`nbfast.persist._codec`
turns models into the header's description and back.  Version 2 keeps this
layout and adds models in compact form (their statistics by feature instead of
the dense scikit-learn attributes); every version-1 file reads as before.
"""

import hashlib
import io
import json
import math
import mmap as _mmap
import os
import re
import struct
import sys

import numpy as np

#: Version of the file layout written by :func:`save`: 2 added compact models, 3 a vectorizer's idf weights as
#: the base64 of their float64 bytes (they were JSON numbers, which take longer to read and write than the rest).
FORMAT_VERSION = 3
MAGIC = b"\x89NBFAST\n"
_FORMAT_NAME = "nbfast-model"
_PREAMBLE = struct.Struct("<8sQ32s")  # magic, header length, sha256 of the header
_ALIGN = 64
#: Bytes of the arrays read, then hashed, at a time.  Both release the GIL, which the loading thread takes back
#: after each: the command line loads a model while other threads decode and tokenize, and each take-back may
#: wait for one of them, so chunks are large.
_READ_CHUNK = 16 << 20
#: The largest header a reader parses: JSON takes several times its size in memory.  (About 180 bytes a feature
#: for CategoricalNB, which lists one array per feature: some 350,000 features.)
MAX_HEADER_NBYTES = 64 << 20
#: A JSON object or list costs some 60 bytes of memory even empty; a real header has one per 30 bytes or more.
_MIN_BYTES_PER_CONTAINER = 16
#: Every entry a header may hold: an unknown one is refused, never ignored.
_HEADER_KEYS = {"format", "format_version", "nbfast_version", "summary", "model", "arrays", "data_nbytes",
                "data_sha256", "vectorizer", "training_input"}
_SUMMARY_KEYS = {"classes", "n_features_in"}
_ARRAY_KEYS = {"dtype", "shape", "order", "offset", "nbytes"}
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


#: The integers a header may hold, those of int64 and uint64 (sizes, offsets, labels, parameters): an integer of
#: any size would reach numpy (and ``nbfast info``) as an OverflowError.
_INTEGER_RANGE = (-(2**63), 2**64 - 1)


def is_storable_number(value):
    """Whether a JSON number can be stored in (and read back from) a header: a finite float, or an integer
    within :data:`_INTEGER_RANGE`."""
    if isinstance(value, float):
        return math.isfinite(value)
    return _INTEGER_RANGE[0] <= value <= _INTEGER_RANGE[1]


def _header_integer(text):
    """``json.loads``'s integers, refused beyond int64 and uint64 before they are converted."""
    value = int(text) if len(text) <= 21 else None
    if value is None or not is_storable_number(value):
        raise ModelFormatError(f"invalid header: the integer {text[:30]}{'...' if len(text) > 30 else ''} "
                               f"({len(text)} characters) is beyond int64 and uint64.")
    return value


def _all_finite(header):
    """Whether every float of a parsed header is finite (``json`` reads 1e400 as infinity): the floats are read
    by json's own parser, and only a header holding an infinite one is read again with :func:`_header_float`.
    The walk keeps its own stack: a header nested deeply is refused later, by its decoder."""
    stack = [header]
    while stack:
        value = stack.pop()
        if type(value) is float and not math.isfinite(value):
            return False
        if type(value) is dict:
            value = list(value.values())
        elif type(value) is not list:
            continue
        kinds = set(map(type, value))
        if kinds == {float}:  # a table of floats (idf weights, say)
            if not all(map(math.isfinite, value)):
                return False
        elif not kinds.isdisjoint({float, list, dict}):
            stack.extend(value)
    return True


def _header_float(text):
    """``json.loads``'s floats, refused when not finite (1e400 reads as infinity)."""
    value = float(text)
    if not math.isfinite(value):
        raise ModelFormatError(f"invalid header: the number {text[:30]} is not a finite float64.")
    return value


def _header_constant(name):
    """``json.loads``'s NaN, Infinity and -Infinity (not JSON, but Python writes them): refused."""
    raise ModelFormatError(f"invalid header: {name} is not a number a model file may hold.")


#: How a header spells a dtype: numpy's ``dtype.str`` of a bool, number or string (``"<f8"``, ``"|b1"``, ``">U4"``).
_DTYPE_TEXT = re.compile(r"[<>|=]?[biufU][0-9]{1,9}")


def parse_dtype(text):
    """The dtype a header spells ``text`` (see :data:`_DTYPE_TEXT`) if it is one a model file may hold, else None;
    anything else never reaches numpy's parser (which raises SyntaxError on some strings)."""
    if not isinstance(text, str) or not _DTYPE_TEXT.fullmatch(text):
        return None
    try:
        dtype = np.dtype(text)
    except TypeError:
        return None
    return dtype if _allowed_dtype(dtype) else None


def _allowed_dtype(dtype):
    return (
        dtype.fields is None
        and dtype.subdtype is None
        and dtype.itemsize > 0
        and (dtype.kind in "biuU" or (dtype.kind == "f" and dtype.itemsize <= 8))
    )


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


def _size(f):
    """The number of bytes of ``f``: an open file or an in-memory buffer."""
    if isinstance(f, io.BytesIO):
        with f.getbuffer() as buffer:
            return buffer.nbytes
    return os.fstat(f.fileno()).st_size


def _read_header(f):
    """Read and check the preamble and header; return (header, data_start)."""
    size = _size(f)
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
    if header_nbytes > MAX_HEADER_NBYTES:
        raise ModelFormatError(f"the header has {header_nbytes:,} bytes, more than the {MAX_HEADER_NBYTES:,} a model "
                               "file may hold.")
    raw = f.read(header_nbytes)
    if hashlib.sha256(raw).digest() != header_sha256:
        raise ModelFormatError("corrupted: the header checksum does not match.")
    if (raw.count(b"{") + raw.count(b"[")) * _MIN_BYTES_PER_CONTAINER > max(header_nbytes, 1 << 16):
        raise ModelFormatError("invalid header: far more JSON objects and lists than a model description holds.")
    try:
        text = raw.decode("utf-8")
        header = json.loads(text, parse_int=_header_integer, parse_constant=_header_constant)
        if not _all_finite(header):  # raises naming the number
            json.loads(text, parse_int=_header_integer, parse_float=_header_float, parse_constant=_header_constant)
    except ModelFormatError:
        raise
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
    for where, entries, allowed in (("header", header, _HEADER_KEYS), ("summary", header["summary"], _SUMMARY_KEYS)):
        unknown = set(entries) - allowed
        if unknown:
            raise ModelFormatError(f"invalid header: unknown {where} entries {sorted(unknown)[:5]}.")
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
    if not isinstance(entry, dict) or set(entry) != _ARRAY_KEYS:
        raise ModelFormatError(f"invalid array entry {str(entry)[:200]}: it must have exactly the keys "
                               f"{sorted(_ARRAY_KEYS)}.")
    try:
        shape, order, offset = tuple(entry["shape"]), entry["order"], entry["offset"]
    except (TypeError, KeyError, ValueError) as exc:
        raise ModelFormatError(f"invalid array entry {str(entry)[:200]}: {exc}") from None
    dtype = parse_dtype(entry["dtype"])
    if dtype is None:
        raise ModelFormatError(f"invalid array entry: dtype {str(entry['dtype'])[:40]!r} is not allowed in a model "
                               "file.")
    if not all(_is_count(n) for n in shape) or order not in ("C", "F") or not _is_count(offset) or offset % _ALIGN:
        raise ModelFormatError(f"invalid array entry {entry!r}.")
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes != entry.get("nbytes") or offset + nbytes > data_nbytes:
        raise ModelFormatError(f"invalid array entry {entry!r}: it does not fit in the data section.")
    return {"dtype": dtype, "shape": shape, "order": order, "offset": offset, "nbytes": nbytes}


def _read_data(f, data_start, nbytes, mmap):
    """The data section as a uint8 array (memory-mapped read-only, or read into memory) and its sha256.

    When reading, each chunk (:data:`_READ_CHUNK`) is hashed as it arrives.
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


def _array_views(data, entries):
    """Each array of the table as a view of the data section, or a native-byte-order copy of a swapped one.

    save writes little-endian arrays; an array in the other byte order (its
    dtype says so) is read too, in native order for the kernels.  A string
    array's characters are code points in its own byte order.
    """
    arrays = []
    for e in entries:
        dtype = e["dtype"]
        raw = data[e["offset"]: e["offset"] + e["nbytes"]]
        if dtype.kind == "U" and raw.size:
            code_points = raw.view(np.dtype("u4").newbyteorder(dtype.byteorder))
            if code_points.max() > sys.maxunicode:
                raise ModelFormatError("invalid string array: a character is beyond the Unicode range.")
        array = raw.view(dtype).reshape(e["shape"], order=e["order"])
        if not dtype.isnative:
            array = array.astype(dtype.newbyteorder("="))
        arrays.append(array)
    return arrays
