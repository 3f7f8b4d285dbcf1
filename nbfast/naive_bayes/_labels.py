"""Class labels: the sorted classes of y and each label's index among them."""

import numpy as np

#: Integer labels spanning at most this many values (or as many as there are
#: labels) are counted and looked up in a table instead of sorted and searched.
_DENSE_LABEL_RANGE = 1 << 16


def _label_offsets(y):
    """(y - lowest as intp, lowest, highest) for integer labels of a small enough range, else None."""
    y = np.asarray(y)
    if y.dtype.kind not in "iu" or y.size == 0:
        return None
    lowest, highest = int(y.min()), int(y.max())
    if highest - lowest >= max(_DENSE_LABEL_RANGE, y.size) or highest > np.iinfo(np.intp).max:
        return None
    return y.astype(np.intp) - lowest, lowest, highest


def encode_labels(classes, y):
    """Index of each label of ``y`` in the sorted ``classes``; unknown labels raise."""
    offsets = _label_offsets(y) if classes.dtype.kind in "iu" else None
    if offsets is not None:
        # One table lookup per label: lookup[v - lowest] is the index of class v, or -1.
        offset, lowest, highest = offsets
        lookup = np.full(highest - lowest + 1, -1, dtype=np.intp)
        inside = (classes >= lowest) & (classes <= highest)
        lookup[(classes[inside] - lowest).astype(np.intp)] = np.flatnonzero(inside)
        index = lookup[offset]
        unknown = index < 0
    else:
        try:
            index = np.searchsorted(classes, y)
        except TypeError as exc:
            raise ValueError(f"Labels in y cannot be compared with the known classes {classes!r}: {exc}") from None
        index = np.clip(index, 0, len(classes) - 1)
        unknown = classes[index] != y
    if np.any(unknown):
        missing = np.unique(np.asarray(y)[unknown])
        raise ValueError(
            f"The target label(s) {missing[:10].tolist()} in y do not exist in the initial classes "
            f"{classes.tolist()}; pass every class in `classes=` on the first call to partial_fit."
        )
    return index.astype(np.intp, copy=False)


def unique_classes(y):
    """Sorted unique labels of y, refusing a mix of types (for example str and int)."""
    y = np.asarray(y)
    offsets = _label_offsets(y)
    if offsets is not None:  # counting instead of sorting
        offset, lowest, _ = offsets
        return (np.flatnonzero(np.bincount(offset)) + lowest).astype(y.dtype)
    try:
        return np.unique(y)
    except TypeError as exc:
        raise ValueError(f"Mix of label input types in y: {exc}") from None
