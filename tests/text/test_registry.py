"""The registry of vectorizers: one list, read by model files and the command line."""

import nbfast.text
from nbfast.cli import build_parser
from nbfast.persist._vectorizer import STORED_VECTORIZERS
from nbfast.text import VECTORIZERS, CountVectorizer, HashingVectorizer, TfidfVectorizer


def test_the_registry_holds_every_public_vectorizer_by_class_name():
    assert VECTORIZERS == {"HashingVectorizer": HashingVectorizer, "CountVectorizer": CountVectorizer,
                           "TfidfVectorizer": TfidfVectorizer}
    public = {name for name in nbfast.text.__all__ if name.endswith("Vectorizer")}
    assert public == set(VECTORIZERS)


def test_model_files_know_the_dtypes_of_every_registered_vectorizer():
    assert set(STORED_VECTORIZERS) == set(VECTORIZERS.values())


def test_train_offers_every_registered_vectorizer():
    from nbfast.cli.train import VECTORIZERS as CHOICES

    assert CHOICES == {"hashing": HashingVectorizer, "count": CountVectorizer, "tfidf": TfidfVectorizer}
    parser = build_parser()
    args = parser.parse_args(["train", "in.tsv", "-o", "m.nbf", "--vectorizer", "tfidf"])
    assert args.vectorizer == "tfidf"
