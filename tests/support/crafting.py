"""Crafted model files: a valid file's header or data edited, with its checksums made valid again, so a test
reaches the checks behind the checksums (a hostile file is well-formed on the outside)."""

import base64
import hashlib
import json
import tempfile
from pathlib import Path

import numpy as np

from nbfast import persist


def _layout(raw):
    """(header dict, offset of the header, header length, offset of the data section)."""
    _, n, _ = persist._PREAMBLE.unpack_from(raw)
    start = persist._PREAMBLE.size
    return json.loads(raw[start: start + n]), start, n, persist._align(start + n)


def idf_as_numbers(entry):
    """A vectorizer entry's idf weights rewritten as JSON numbers, as files of format version 2 hold them; the list
    (edit it to edit the file)."""
    entry["idf"] = np.frombuffer(base64.b64decode(entry["idf"]["float64_base64"]), dtype="<f8").tolist()
    return entry["idf"]


def _raw_header(raw, value):
    """The preamble, a header (any JSON value, or JSON text), and padding (checksum valid); no data section."""
    text = (value if isinstance(value, str) else json.dumps(value)).encode()
    padding = bytes(persist._align(persist._PREAMBLE.size + len(text)) - persist._PREAMBLE.size - len(text))
    return persist._PREAMBLE.pack(persist.MAGIC, len(text), hashlib.sha256(text).digest()) + text + padding


def _deeply_nested(raw, depth):
    """The file with a header nesting ``depth`` lists in the alpha parameter (checksum valid)."""
    header, _, _, data_start = _layout(raw)
    header["model"]["params"]["alpha"] = "ALPHA"
    text = json.dumps(header).replace('"ALPHA"', "[" * depth + "]" * depth)
    return _raw_header(raw, text) + raw[data_start:]


def _with_header(raw, edit):
    """The file with its header edited by ``edit(header)`` and its checksum made valid again."""
    header, _, _, data_start = _layout(raw)
    edit(header)
    return _raw_header(raw, header) + raw[data_start:]


def _with_data(raw, edit):
    """The file with its data section edited by ``edit(bytearray)`` and its checksum made valid again."""
    _, _, _, data_start = _layout(raw)
    data = bytearray(raw[data_start:])
    edit(data)

    def set_data(header):
        header["data_sha256"] = hashlib.sha256(data).hexdigest()

    return _with_header(raw[:data_start] + bytes(data), set_data)


def _array_index(raw, attribute):
    """Index in the array table of the fitted attribute ``attribute`` (an array reference in the header)."""
    return _layout(raw)[0]["model"]["fitted"][attribute]["__ndarray__"]


def _with_array(raw, index, edit):
    """The file with array ``index`` edited in place by ``edit(ndarray)`` (a writable view), checksums valid."""
    entry = _layout(raw)[0]["arrays"][index]

    def edit_data(data):
        count = int(np.prod(entry["shape"], dtype=np.int64))
        view = np.frombuffer(data, dtype=entry["dtype"], count=count, offset=entry["offset"])
        edit(view.reshape(entry["shape"], order=entry["order"]))

    return _with_data(raw, edit_data)


def _with_byte_order(raw, index, order=">"):
    """The file with array ``index`` stored in the other byte order (its dtype says so), checksums valid."""
    entry = _layout(raw)[0]["arrays"][index]
    swapped = np.dtype(entry["dtype"]).newbyteorder(order)

    def edit_data(data):
        count = int(np.prod(entry["shape"], dtype=np.int64))
        values = np.frombuffer(data, dtype=entry["dtype"], count=count, offset=entry["offset"]).astype(swapped)
        data[entry["offset"]: entry["offset"] + entry["nbytes"]] = values.tobytes()

    def set_dtype(header):
        header["arrays"][index]["dtype"] = swapped.str

    return _with_header(_with_data(raw, edit_data), set_dtype)


def _saved(model, **kwargs):
    """The bytes of ``model`` saved by ``nbfast.save(model, path, **kwargs)``."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model.nbf"
        persist.save(model, path, **kwargs)
        return path.read_bytes()


def _fitted_array_index(raw, *path):
    """Index in the array table of the array a fitted attribute refers to, ``path`` leading into it: an attribute
    name, then list indices, tuple items (``_sparse_feature_count``'s values are ``(name, 2)``) or the names of a
    nested estimator's fitted attributes (``"estimators_", 0, "class_log_prior_"`` in a MixedNB)."""
    node = _layout(raw)[0]["model"]["fitted"]
    for key in path:
        node = node.get("__tuple__", node.get("__estimator__", {}).get("fitted", node)) if isinstance(node, dict) \
            else node
        node = node[key]
    return node["__ndarray__"]


def _with_fitted(raw, path, edit):
    """The file with the fitted array at ``path`` (see :func:`_fitted_array_index`) edited in place by
    ``edit(ndarray)``, checksums valid."""
    return _with_array(raw, _fitted_array_index(raw, *path), edit)


def _with_fitted_dtype(raw, path, dtype, values=None):
    """The file with the fitted array at ``path`` (see :func:`_fitted_array_index`) stored as ``dtype``, its
    values (or ``values``) converted, in the bytes it had (a narrower dtype leaves a gap), checksums valid."""
    index = _fitted_array_index(raw, *path)
    header, _, _, data_start = _layout(raw)
    entry = header["arrays"][index]
    old = np.frombuffer(raw, dtype=entry["dtype"], count=int(np.prod(entry["shape"])),
                        offset=data_start + entry["offset"])
    new = np.asarray(old if values is None else values).astype(dtype)
    assert new.nbytes <= entry["nbytes"]
    data = bytearray(raw[data_start:])
    data[entry["offset"]: entry["offset"] + new.nbytes] = new.tobytes()

    def edit(header):
        header["arrays"][index].update(dtype=new.dtype.str, nbytes=new.nbytes)
        header["data_sha256"] = hashlib.sha256(data).hexdigest()

    return _with_header(raw[:data_start] + bytes(data), edit)
