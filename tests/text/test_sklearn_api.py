"""What scikit-learn documents users may do with its vectorizers, done with nbfast's: subclass
overrides, callables, the analysis methods, a hand-set idf_, tags, HTML display, common checks,
parameter constraints, and extreme ngram_range."""

import contextlib
import signal
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast.text

sk_text = pytest.importorskip("sklearn.feature_extraction.text")
param_validation = pytest.importorskip("sklearn.utils._param_validation")
get_tags = pytest.importorskip("sklearn.utils").get_tags
parametrize_with_checks = pytest.importorskip("sklearn.utils.estimator_checks").parametrize_with_checks

DOCUMENTS = [
    "The Quick brown fox jumps over the lazy dogs",
    "Running runners run quickly; the dogs sleep",
    "Ünïcode wörds and CAFÉ crème, the end",
    "",
    "fox fox fox dogs",
]
VECTORIZERS = ("CountVectorizer", "TfidfVectorizer", "HashingVectorizer")
ALL = (*VECTORIZERS, "TfidfTransformer")


def options(name):
    return {"n_features": 64} if name == "HashingVectorizer" else {}


def stemming(analyze):
    return lambda doc: [token.removesuffix("s") for token in analyze(doc)]


def customised(base, method):
    """A subclass of ``base`` overriding one analysis method, the way scikit-learn's docs show."""
    overrides = {
        "build_preprocessor": lambda self: (lambda doc: doc.upper().replace("É", "E")),
        "build_tokenizer": lambda self: (lambda doc: [word[:4] for word in doc.split()]),
        "build_analyzer": lambda self: stemming(super(cls, self).build_analyzer()),
    }
    cls = type(f"Custom{base.__name__}", (base,), {method: overrides[method]})
    return cls


def assert_same(ours, theirs):
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours.toarray(), theirs.toarray(), rtol=1e-12)


@pytest.mark.parametrize("method", ["build_preprocessor", "build_tokenizer", "build_analyzer"])
@pytest.mark.parametrize("name", VECTORIZERS)
def test_subclass_override_gives_scikit_learns_matrix(name, method):
    ours_cls = customised(getattr(nbfast.text, name), method)
    theirs_cls = customised(getattr(sk_text, name), method)
    kwargs = {**options(name), "lowercase": False}
    ours, theirs = ours_cls(**kwargs), theirs_cls(**kwargs)
    assert_same(ours.fit_transform(DOCUMENTS), theirs.fit_transform(DOCUMENTS))
    assert_same(ours.transform(DOCUMENTS[::-1]), theirs.transform(DOCUMENTS[::-1]))
    if name != "HashingVectorizer":
        assert ours.vocabulary_ == theirs.vocabulary_


@pytest.mark.parametrize("name", VECTORIZERS)
def test_override_of_build_analyzer_is_used_by_fit_and_transform(name):
    calls = []

    class Recording(getattr(nbfast.text, name)):
        def build_analyzer(self):
            analyze = super().build_analyzer()
            return lambda doc: calls.append(doc) or analyze(doc)

    Recording(**options(name)).fit_transform(DOCUMENTS)
    assert calls[-len(DOCUMENTS):] == DOCUMENTS


@pytest.mark.parametrize("name", VECTORIZERS)
def test_subclass_without_override_keeps_the_kernels(name):
    """Only an override leaves the kernels: a plain subclass is as fast as the class."""
    plain = type("Plain", (getattr(nbfast.text, name),), {})(**options(name))
    assert plain._is_native()
    assert getattr(nbfast.text, name)()._is_native()
    assert not customised(getattr(nbfast.text, name), "build_tokenizer")()._is_native()
    assert_same(plain.fit_transform(DOCUMENTS), getattr(sk_text, name)(**options(name)).fit_transform(DOCUMENTS))


@pytest.mark.parametrize(
    "callables",
    [
        {"preprocessor": lambda doc: doc.upper()},
        {"tokenizer": str.split, "token_pattern": None},
        {"analyzer": lambda doc: doc.split()[:3]},
        {"analyzer": "char_wb", "ngram_range": (2, 3)},
    ],
    ids=["preprocessor", "tokenizer", "analyzer", "char_wb"],
)
@pytest.mark.parametrize("name", VECTORIZERS)
def test_documented_callables_give_scikit_learns_matrix(name, callables):
    kwargs = {**options(name), **callables}
    assert_same(getattr(nbfast.text, name)(**kwargs).fit_transform(DOCUMENTS),
                getattr(sk_text, name)(**kwargs).fit_transform(DOCUMENTS))


@pytest.mark.parametrize("name", VECTORIZERS)
@pytest.mark.parametrize("kwargs", [{}, {"stop_words": ["the"], "ngram_range": (1, 2)}, {"strip_accents": "ascii"}])
def test_analysis_methods_match_scikit_learns(name, kwargs):
    ours = getattr(nbfast.text, name)(**kwargs)
    theirs = getattr(sk_text, name)(**kwargs)
    for document in DOCUMENTS:
        assert ours.build_analyzer()(document) == theirs.build_analyzer()(document)
        assert ours.build_preprocessor()(document) == theirs.build_preprocessor()(document)
        assert ours.build_tokenizer()(document) == theirs.build_tokenizer()(document)
        assert ours.decode(document.encode()) == theirs.decode(document.encode())
    assert ours.get_stop_words() == theirs.get_stop_words()


def test_hashing_get_stop_words_english():
    assert nbfast.text.HashingVectorizer(stop_words="english").get_stop_words() is sk_text.ENGLISH_STOP_WORDS


@pytest.mark.parametrize("name", VECTORIZERS)
def test_stop_words_warning_once_per_stop_list(name):
    vectorizer = getattr(nbfast.text, name)(stop_words=["you've", "you", "AND"], batch_size=1, **options(name))
    with pytest.warns(UserWarning, match="may be inconsistent") as record:
        vectorizer.fit_transform(DOCUMENTS)
    assert len([w for w in record if "inconsistent" in str(w.message)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        vectorizer.fit_transform(DOCUMENTS)
        vectorizer.transform(DOCUMENTS)
        vectorizer.build_analyzer()
    vectorizer.set_params(stop_words=["you've", "AND"])
    with pytest.warns(UserWarning, match="may be inconsistent"):
        vectorizer.fit_transform(DOCUMENTS)


def test_transformer_idf_set_by_hand_transforms_without_fit():
    counts = sk_text.CountVectorizer().fit_transform(DOCUMENTS)
    fitted = nbfast.text.TfidfTransformer().fit(counts)
    by_hand = nbfast.text.TfidfTransformer()
    by_hand.idf_ = fitted.idf_
    theirs = sk_text.TfidfTransformer()
    theirs.idf_ = fitted.idf_
    assert_same(by_hand.transform(counts), fitted.transform(counts))
    assert_same(by_hand.transform(counts), theirs.transform(counts))
    with pytest.raises(ValueError, match="idf_ has shape"):
        by_hand.transform(counts[:, :-1])


def test_transformer_without_idf_or_fit_is_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        nbfast.text.TfidfTransformer().transform(sp.csr_matrix(np.ones((2, 3))))


@pytest.mark.parametrize("name", ALL)
def test_tags_and_html_display_match_scikit_learns(name):
    ours, theirs = getattr(nbfast.text, name)(), getattr(sk_text, name)()
    assert get_tags(ours) == get_tags(theirs)
    assert "<div" in ours._repr_html_()


@parametrize_with_checks([getattr(nbfast.text, name)() for name in ALL])
def test_scikit_learns_common_checks(estimator, check):
    check(estimator)


def invalid_values(constraints):
    """What scikit-learn's common check tries: an object of no accepted type, then a value generated
    against each constraint."""
    yield type("BadType", (), {})()
    for constraint in constraints:
        try:
            yield param_validation.generate_invalid_param_val(param_validation.make_constraint(constraint))
        except NotImplementedError:
            continue


def constraint_cases():
    for name in ALL:
        for param, constraints in getattr(sk_text, name)._parameter_constraints.items():
            if constraints != "no_validation":
                for k, value in enumerate(invalid_values(constraints)):
                    yield pytest.param(name, param, value, id=f"{name}-{param}-{k}")


def fit(estimator):
    data = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]]))
    return estimator.fit(data if isinstance(estimator, nbfast.text.TfidfTransformer | sk_text.TfidfTransformer)
                         else DOCUMENTS)


@pytest.mark.parametrize(("name", "param", "value"), list(constraint_cases()))
def test_invalid_parameters_raise_what_scikit_learn_raises(name, param, value):
    message = f"The '{param}' parameter of {name} must be"
    with pytest.raises(param_validation.InvalidParameterError, match=message):
        fit(getattr(sk_text, name)(**{param: value}))
    with pytest.raises(param_validation.InvalidParameterError, match=message):
        fit(getattr(nbfast.text, name)(**{param: value}))


@pytest.mark.parametrize("name", ALL)
def test_constraints_are_scikit_learns_plus_batch_size_and_n_jobs(name):
    """What scikit-learn's tools see: scikit-learn's constraints for the class (nbfast checks some more strictly,
    ``n_features`` more widely), and nbfast's own parameters."""
    ours = getattr(nbfast.text, name)._parameter_constraints
    theirs = getattr(sk_text, name)._parameter_constraints

    def described(constraint):  # the options in sorted order (a set's order depends on how it was built)
        if isinstance(constraint, param_validation.Options):
            return f"{type(constraint).__name__} of {constraint.type.__name__} {sorted(constraint.options)}"
        return str(param_validation.make_constraint(constraint))

    def all_described(constraints):
        return constraints if constraints == "no_validation" else [described(c) for c in constraints]

    assert {key: all_described(ours[key]) for key in theirs} == {key: all_described(theirs[key]) for key in theirs}
    assert set(ours) - set(theirs) == ({"batch_size", "n_jobs"} if name != "TfidfTransformer" else set())


@pytest.mark.parametrize("name", VECTORIZERS)
def test_batch_size_is_constrained(name):
    with pytest.raises(param_validation.InvalidParameterError, match=f"'batch_size' parameter of {name}"):
        fit(getattr(nbfast.text, name)(batch_size=0))


@pytest.mark.parametrize("name", VECTORIZERS)
def test_n_jobs_is_constrained(name):
    with pytest.raises(param_validation.InvalidParameterError, match="n_jobs"):
        fit(getattr(nbfast.text, name)(n_jobs=0))


@pytest.mark.parametrize("name", VECTORIZERS)
def test_inverted_ngram_range_message(name):
    with pytest.raises(param_validation.InvalidParameterError,
                       match=r"^Invalid value for ngram_range=\(2, 1\) lower boundary larger than the upper boundary.$"):
        getattr(nbfast.text, name)(ngram_range=(2, 1)).fit(DOCUMENTS)
    with pytest.raises(param_validation.InvalidParameterError,
                       match=rf"'ngram_range' parameter of {name} must be a tuple \(min_n, max_n\) of ints with "
                             r"1 <= min_n <= max_n. Got \(0, 1\) instead."):
        getattr(nbfast.text, name)(ngram_range=(0, 1)).fit(DOCUMENTS)


@contextlib.contextmanager
def time_limit(seconds):
    """Raise TimeoutError in the block after ``seconds`` (a generous bound: a hang fails, not a slow machine)."""

    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("ngram_range", [(1, 10**8), (1, 2**31), (3, 2**40), (2**31, 2**31)])
@pytest.mark.parametrize("name", VECTORIZERS)
def test_huge_ngram_range_is_cut_at_the_longest_document(name, ngram_range):
    """As scikit-learn: n-grams longer than a document do not exist; no loop over the range, no overflow."""
    kwargs = {**options(name), "ngram_range": ngram_range}
    try:
        theirs = getattr(sk_text, name)(**kwargs).fit_transform(DOCUMENTS)
    except ValueError as error:  # no n-gram that long: an empty vocabulary
        with time_limit(30), pytest.raises(ValueError, match=str(error)):
            getattr(nbfast.text, name)(**kwargs).fit_transform(DOCUMENTS)
        return
    with time_limit(30):
        ours = getattr(nbfast.text, name)(**kwargs).fit_transform(DOCUMENTS)
    assert_same(ours, theirs)
