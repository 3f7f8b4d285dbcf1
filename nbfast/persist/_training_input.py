"""The optional header entry recording how a model's training input was read.

``"training_input": {"kind": "vectors" | "text", "zero_based": true | false | null}``:
feature vectors or raw text, and for svmlight files the index base (null when
no svmlight file was read).  ``nbfast predict`` reads new input the same way
by default and refuses input that contradicts it, instead of scoring it
silently wrong.  Files without the entry (older ones) are unaffected.
"""

from nbfast.persist._container import ModelFormatError

KINDS = ("vectors", "text")


def _problem(entry):
    """What is wrong with an entry, or None."""
    if not isinstance(entry, dict) or set(entry) != {"kind", "zero_based"}:
        return "it must be a dict with exactly the keys 'kind' and 'zero_based'"
    if entry["kind"] not in KINDS:
        return f"kind must be one of {KINDS}, got {entry['kind']!r}"
    if entry["zero_based"] not in (True, False, None) or isinstance(entry["zero_based"], int) and not isinstance(
            entry["zero_based"], bool):
        return f"zero_based must be true, false or null, got {entry['zero_based']!r}"
    return None


def training_input_entry(training_input):
    """The header entry for ``save(..., training_input=...)``; ValueError when it is malformed."""
    problem = _problem(training_input)
    if problem is not None:
        raise ValueError(f"cannot save training_input: {problem}.")
    return dict(training_input)


def check_training_input_entry(entry):
    """The stored entry, checked; ModelFormatError when it is malformed."""
    problem = _problem(entry)
    if problem is not None:
        raise ModelFormatError(f"invalid training_input entry: {problem}.")
    return dict(entry)
