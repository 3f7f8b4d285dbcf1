"""Text to CSR at kernel speed: drop-ins for scikit-learn's text vectorizers."""

from nbfast.text._hashing import HashingVectorizer

__all__ = ["HashingVectorizer"]
