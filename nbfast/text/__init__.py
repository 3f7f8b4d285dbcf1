"""Text to CSR at kernel speed: drop-ins for scikit-learn's text vectorizers."""

from nbfast.text._hashing import HashingVectorizer
from nbfast.text._tfidf import TfidfTransformer, TfidfVectorizer
from nbfast.text._vocabulary import CountVectorizer

__all__ = ["CountVectorizer", "HashingVectorizer", "TfidfTransformer", "TfidfVectorizer"]
