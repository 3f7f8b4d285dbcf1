"""Text to CSR at kernel speed: drop-ins for scikit-learn's text vectorizers."""

from nbfast.text._hashing import HashingVectorizer
from nbfast.text._tfidf import TfidfTransformer, TfidfVectorizer
from nbfast.text._vocabulary import CountVectorizer

#: Every nbfast vectorizer by class name, in the order they are documented: the one list that model files and
#: the command line read.
VECTORIZERS = {cls.__name__: cls for cls in (HashingVectorizer, CountVectorizer, TfidfVectorizer)}

__all__ = ["CountVectorizer", "HashingVectorizer", "TfidfTransformer", "TfidfVectorizer"]
