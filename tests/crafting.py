"""Crafted model files: a valid file's header or data edited, with its checksums made valid again, so a test
reaches the checks behind the checksums (a hostile file is well-formed on the outside)."""

import hashlib
import json

from nbfast import persist


def _layout(raw):
    """(header dict, offset of the header, header length, offset of the data section)."""
    _, n, _ = persist._PREAMBLE.unpack_from(raw)
    start = persist._PREAMBLE.size
    return json.loads(raw[start: start + n]), start, n, persist._align(start + n)


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
