"""Model files whose checksums and shapes are valid but whose values no fit produces: each is refused with
ModelFormatError naming the value, or loads into a model whose posteriors are finite and sum to 1.  The loads run
in a child interpreter (see ``isolated``)."""

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from support import isolated
from support.crafting import (
    _layout,
    _raw_header,
    _saved,
    _with_fitted,
    _with_fitted_dtype,
    _with_header,
    idf_as_numbers,
)

import nbfast
from nbfast import ModelFormatError, persist
from nbfast.cli import main as cli_main
from nbfast.datasets import make_documents
from nbfast.text import TfidfVectorizer

DATA = Path(__file__).parents[1] / "data"


def _stored(stem):
    return (DATA / f"{stem}.nbf").read_bytes()


def _fill(value, where=Ellipsis):
    return lambda a: a.__setitem__(where, value)


def _edited(stem, path, edit):
    return lambda: _with_fitted(_stored(stem), path, edit)


def _header(make, edit):
    return lambda: _with_header(make(), edit)


def _text(make, old, new):
    """The file with the JSON text ``old`` of its header replaced by ``new`` (numbers JSON cannot spell)."""
    def craft():
        raw = make()
        header, _, _, data_start = _layout(raw)
        text = json.dumps(header)
        assert old in text
        return _raw_header(raw, text.replace(old, new, 1)) + raw[data_start:]

    return craft


def _compact(name):
    """A compact count model (a large vocabulary, few counts)."""
    X, y = make_documents(200, 2**14, 4, mean_length=10, random_state=3)
    model = getattr(nbfast, name)().fit(X, y)
    assert model._is_compact()
    return _saved(model)


def _compact_values(name, edit):
    return lambda: _with_fitted(_compact(name), ("_sparse_feature_count", 2), edit)


def _calibrated():
    X, y = make_documents(60, 20, 2, mean_length=10, random_state=4)
    return _saved(nbfast.CalibratedNB(nbfast.MultinomialNB(), cv=2).fit(X, y))


def _fitted_value(make, name, value):
    return _header(make, lambda h: h["model"]["fitted"].update({name: value}))


def _params(make, **params):
    return _header(make, lambda h: h["model"]["params"].update(params))


def _vocabulary_file():
    documents = ["hello world", "hello there", "brown fox", "world fox"]
    vectorizer = TfidfVectorizer().fit(documents)
    model = nbfast.MultinomialNB().fit(vectorizer.transform(documents), [0, 1, 0, 1])
    return _saved(model, vectorizer=vectorizer)


def _n_features_wrapped():
    """MixedNB's n_features_in_ as a wrapped int64 of 2**40, the summary agreeing."""
    def edit(header):
        header["model"]["fitted"]["n_features_in_"] = {"__scalar__": "<i8", "value": 2**40}
        header["summary"]["n_features_in"] = 2**40

    return _with_header(_stored("MixedNB-str"), edit)


def _load_and_score(make, mmap=False):
    """Load the crafted bytes and, if that succeeds, check that the posteriors are finite and sum to 1."""

    def call():
        import tempfile

        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "crafted.nbf"
            path.write_bytes(make())
            model = nbfast.load(path, mmap=mmap)
            persist.read_info(path)
            X = np.random.default_rng(0).integers(0, 3, size=(8, model.n_features_in_)).astype(np.float64)
            proba = model.predict_proba(X)
            if not (np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1, rtol=0, atol=1e-12)):
                raise AssertionError(f"posteriors {proba[:2]}")
            model.predict(X)

    return call


def _load_vectorizer(make):
    def call():
        import tempfile

        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "crafted.nbf"
            path.write_bytes(make())
            persist.load_vectorizer(path)

    return call


_SCALAR = "ModelFormatError: .*invalid numpy scalar"
_SUM_TO_1 = "ModelFormatError: .*class_log_prior_ must hold the logs of probabilities that sum to 1"
_LOG_PROBABILITIES = r"ModelFormatError: .*feature_log_prob_ must hold finite log-probabilities"
CASES_AND_EXPECTED = {
    "MultinomialNB feature_log_prob_ +inf": (
        _edited("MultinomialNB-int", ("feature_log_prob_",), _fill(np.inf, (0, 0))), _LOG_PROBABILITIES),
    "MultinomialNB feature_log_prob_ 1e308": (
        _edited("MultinomialNB-int", ("feature_log_prob_",), _fill(1e308, (0, 0))), _LOG_PROBABILITIES),
    "MultinomialNB feature_log_prob_ -1e308 in every class": (
        _edited("MultinomialNB-int", ("feature_log_prob_",), _fill(-1e308, (slice(None), 0))), _LOG_PROBABILITIES),
    "MixedNB part's feature_log_prob_ +inf": (
        _edited("MixedNB-str", ("estimators_", 0, "feature_log_prob_"), _fill(np.inf, (1, 1))), _LOG_PROBABILITIES),
    "CategoricalNB feature_log_prob_[0] 1e308": (
        _edited("CategoricalNB-str", ("feature_log_prob_", 0), _fill(1e308, (0, 0))),
        r"ModelFormatError: .*feature_log_prob_\[0\] must hold finite log-probabilities"),
    "BernoulliNB feature_log_prob_ 0 (a probability of 1 makes log(1 - p) infinite)": (
        _edited("BernoulliNB-int", ("feature_log_prob_",), _fill(0.0, (0, 0))),
        "ModelFormatError: .*the scoring table BernoulliNB derives .* must hold finite values"),
    "PoissonNB log-rates whose exponentials sum past float64": (
        _edited("PoissonNB-int", ("feature_log_prob_",), _fill(709.0)),
        "ModelFormatError: .*the per-class scoring bias must be finite"),
    "MultinomialNB class_log_prior_ all -inf": (
        _edited("MultinomialNB-int", ("class_log_prior_",), _fill(-np.inf)), _SUM_TO_1),
    "MultinomialNB class_log_prior_ all 0": (
        _edited("MultinomialNB-str", ("class_log_prior_",), _fill(0.0)), _SUM_TO_1),
    "CategoricalNB class_log_prior_ +0.5": (
        _edited("CategoricalNB-str", ("class_log_prior_",), _fill(0.5, 0)),
        "ModelFormatError: .*class_log_prior_ must hold log-probabilities"),
    "MixedNB class_log_prior_ all -inf": (
        _edited("MixedNB-str", ("class_log_prior_",), _fill(-np.inf)), _SUM_TO_1),
    "GaussianNB class_prior_ all 0": (
        _edited("GaussianNB-int", ("class_prior_",), _fill(0.0)), "ModelFormatError: .*class_prior_ must sum to 1"),
    "GaussianNB var_ 0": (
        _edited("GaussianNB-int", ("var_",), _fill(0.0, (0, 0))), "ModelFormatError: .*var_ must hold positive variances"),
    "GaussianNB var_ subnormal": (
        _edited("GaussianNB-str", ("var_",), _fill(5e-324, (1, 2))),
        "ModelFormatError: .*var_ must hold positive variances"),
    "GaussianNB var_ 1e308 (log(2 pi var) overflows)": (
        _edited("GaussianNB-int", ("var_",), _fill(1e308)), "ModelFormatError: .*var_ must hold positive variances"),
    "GaussianNB theta_ 1e308 ((x - theta)^2 overflows)": (
        _edited("GaussianNB-str", ("theta_",), _fill(1e308)), "ModelFormatError: .*theta_ must hold finite means"),
    "GaussianNB var_ 1e250 in a class": (_edited("GaussianNB-int", ("var_",), _fill(1e250, 0)), "ok"),
    "MultinomialNB class_count_ summing past float64": (
        _edited("MultinomialNB-int", ("class_count_",), _fill(1e308)),
        "ModelFormatError: .*class_count_ must hold counts whose sum is finite"),
    "compact MultinomialNB counts summing past float64": (
        _compact_values("MultinomialNB", _fill(1e308)),
        "ModelFormatError: .*feature_count_ must hold counts whose sum is finite"),
    "DiscriminativeNB coef_ NaN": (
        _edited("DiscriminativeNB-str", ("coef_",), _fill(np.nan, (1, 2))),
        "ModelFormatError: .*the scoring table DiscriminativeNB derives .* must hold finite values"),
    "DiscriminativeNB coef_ -1e308": (
        _edited("DiscriminativeNB-str", ("coef_",), _fill(-1e308, (0, 0))),
        "ModelFormatError: .*the scoring table DiscriminativeNB derives .* must hold finite values"),
    "DiscriminativeNB intercept_ +inf": (
        _edited("DiscriminativeNB-str", ("intercept_",), _fill(np.inf, 1)),
        "ModelFormatError: .*the per-class scoring bias must be finite"),
    "DiscriminativeNB C=0": (_params(lambda: _stored("DiscriminativeNB-str"), C=0.0), "ModelFormatError: .*'C'"),
    "compact ComplementNB alpha=1e-320 (lost to rounding against the counts)": (
        _params(lambda: _compact("ComplementNB"), alpha=1e-320),
        "ModelFormatError: .*the scoring table ComplementNB derives .* must hold finite values"),
    "compact MultinomialNB alpha=1e-320": (_params(lambda: _compact("MultinomialNB"), alpha=1e-320), "ok"),
    "PoissonNB beta=Infinity": (
        _text(lambda: _stored("PoissonNB-int"), '"beta": 2.0', '"beta": Infinity'),
        "ModelFormatError: .*Infinity is not a number a model file may hold"),
    "PoissonNB beta=1e400": (
        _text(lambda: _stored("PoissonNB-int"), '"beta": 2.0', '"beta": 1e400'),
        "ModelFormatError: .*the number 1e400 is not a finite float64"),
    "PoissonNB beta=-2.5E+0400": (
        _text(lambda: _stored("PoissonNB-int"), '"beta": 2.0', '"beta": -2.5E+0400'),
        "ModelFormatError: .*the number -2.5E\\+0400 is not a finite float64"),
    "PoissonNB beta of 310 digits and a fraction": (
        _text(lambda: _stored("PoissonNB-int"), '"beta": 2.0', '"beta": 1' + "0" * 310 + ".5"),
        "ModelFormatError: .*the number 1000.* is not a finite float64"),
    "MultinomialNB alpha of 400 digits": (
        _params(lambda: _stored("MultinomialNB-int"), alpha=10**400),
        r"ModelFormatError: .*the integer 1000.* \(401 characters\) is beyond int64 and uint64"),
    "CalibratedNB temperature_ 5e-324": (
        _fitted_value(_calibrated, "temperature_", 5e-324), r"ModelFormatError: .*temperature_ must be a number in"),
    "CalibratedNB temperature_ 1e300": (
        _fitted_value(_calibrated, "temperature_", 1e300), r"ModelFormatError: .*temperature_ must be a number in"),
    "CalibratedNB temperature_ of 400 digits": (
        _fitted_value(_calibrated, "temperature_", 10**400), "ModelFormatError: .*is beyond int64 and uint64"),
    "CalibratedNB cv=-10**400": (
        _params(_calibrated, cv=-(10**400)), "ModelFormatError: .*is beyond int64 and uint64"),
    "CalibratedNB cv=-10": (_params(_calibrated, cv=-10), "ModelFormatError: .*'cv' parameter of CalibratedNB must be"),
    "CalibratedNB cv=2.5": (_params(_calibrated, cv=2.5), "ModelFormatError: .*'cv' parameter of CalibratedNB must be"),
    "CalibratedNB temperature_ a wrapped int8 of 300": (
        _fitted_value(_calibrated, "temperature_", {"__scalar__": "|i1", "value": 300}), _SCALAR),
    "MultinomialNB alpha a wrapped float16 of 1e5": (
        _params(lambda: _stored("MultinomialNB-int"), alpha={"__scalar__": "<f2", "value": 1e5}), _SCALAR),
    "MixedNB n_features_in_ a wrapped int64 of 2**40": (
        _n_features_wrapped, "ModelFormatError: .*n_features_in_=1099511627776 do not fit the stored arrays"),
    "MixedNB class_log_prior_ as int64": (
        lambda: _with_fitted_dtype(_stored("MixedNB-str"), ("class_log_prior_",), "<i8", [0, -1000, -1000]), "ok"),
    "MixedNB class_log_prior_ as float16": (
        lambda: _with_fitted_dtype(_stored("MixedNB-str"), ("class_log_prior_",), "<f2"), "ok"),
}
_DTYPE_NOT_ALLOWED = "ModelFormatError: .*dtype .* is not allowed in a model file"
CASES_AND_EXPECTED.update({
    f"array dtype {text!r}": (_header(lambda: _stored("MultinomialNB-int"),
                                      lambda h, text=text: h["arrays"][0].update(dtype=text)), _DTYPE_NOT_ALLOWED)
    for text in (",i4", "i4,i4", "a", "O", "V8", "(2)i4", "U99999999999999999999")
})
VECTORIZER_CASES = {
    "vectorizer idf of 400 digits": (
        _header(_vocabulary_file, lambda h: idf_as_numbers(h["vectorizer"]).__setitem__(1, 10**400)),
        "ModelFormatError: .*is beyond int64 and uint64"),
    "vectorizer parameter a wrapped int64 of 2**64 - 1": (
        _header(_vocabulary_file, lambda h: h["vectorizer"]["params"].update(
            max_features={"__scalar__": "<i8", "value": 2**64 - 1})), _SCALAR),
    "vectorizer parameter a wrapped float32 of 1e300": (
        _header(_vocabulary_file, lambda h: h["vectorizer"]["params"].update(
            max_df={"__scalar__": "<f4", "value": 1e300})), _SCALAR),
    "vectorizer parameter a wrapped scalar of dtype ',i4'": (
        _header(_vocabulary_file, lambda h: h["vectorizer"]["params"].update(
            max_df={"__scalar__": ",i4", "value": 1})), _SCALAR),
}
CASES = {name: _load_and_score(make) for name, (make, _) in CASES_AND_EXPECTED.items()}
CASES.update({name: _load_vectorizer(make) for name, (make, _) in VECTORIZER_CASES.items()})
EXPECTED = {name: expected for name, (_, expected) in {**CASES_AND_EXPECTED, **VECTORIZER_CASES}.items()}


#: Each file is refused, or loads with finite posteriors, in a child interpreter that no case may crash.
test_crafted_values_are_refused_or_score_finitely = isolated.case_test(__file__, CASES, EXPECTED)


@pytest.mark.parametrize("dtype", ["<i8", "<f2", "<f4"])
def test_a_log_prior_of_another_dtype_is_read_as_float64(dtype, tmp_path):
    raw = _stored("MixedNB-str")
    values = [0, -1000, -1000] if dtype == "<i8" else None
    (tmp_path / "m.nbf").write_bytes(_with_fitted_dtype(raw, ("class_log_prior_",), dtype, values))
    model = nbfast.load(tmp_path / "m.nbf")
    assert model.class_log_prior_.dtype == np.float64
    X = np.random.default_rng(1).integers(0, 3, size=(6, model.n_features_in_)).astype(np.float64)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=0, atol=1e-12)
    # what the model predicts with those values as a float64 prior (its parts keep their own stored priors)
    reference = nbfast.load(DATA / "MixedNB-str.nbf")
    reference.class_log_prior_ = model.class_log_prior_.copy()
    np.testing.assert_array_equal(proba, reference.predict_proba(X))


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 10**400, -(2**64)],
                         ids=["inf", "nan", "10**400", "-2**64"])
def test_save_refuses_numbers_a_file_cannot_hold(value, tmp_path):
    model = nbfast.PoissonNB().fit(np.eye(3), [0, 1, 1])
    model.beta = value
    with pytest.raises(ValueError, match="cannot save PoissonNB.beta="):
        nbfast.save(model, tmp_path / "m.nbf")
    assert not (tmp_path / "m.nbf").exists()


def test_save_refuses_values_that_load_would_refuse(tmp_path):
    model = nbfast.MultinomialNB(alpha=0.0).fit(np.array([[1, 0], [0, 1]]), [0, 1])  # log(0) = -inf
    with pytest.raises(ValueError, match="cannot save MultinomialNB: feature_log_prob_ must hold finite"):
        nbfast.save(model, tmp_path / "m.nbf")
    assert not (tmp_path / "m.nbf").exists()


# ------------------------------------------------------------------ nbfast info
_HOSTILE = "\x1b]0;owned\x07\x1b[2J\rclass:          GaussianNB\n\u202e\x9b31m"


def _info(raw, tmp_path, capsys):
    (tmp_path / "m.nbf").write_bytes(raw)
    status = cli_main(["info", str(tmp_path / "m.nbf")])
    return status, capsys.readouterr()


def _assert_shown_safely(out):
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]", out), out
    assert [line.startswith("class:") for line in out.splitlines()].count(True) <= 1, out
    assert max(len(line) for line in out.splitlines()) < 1200, max(len(line) for line in out.splitlines())


@pytest.mark.parametrize("where", ["version", "class", "parameter name", "fitted number name", "vectorizer class",
                                   "nested class"])
def test_info_escapes_control_characters_in_stored_strings(where, tmp_path, capsys):
    def edit(header):
        model = header["model"]
        if where == "version":
            header["nbfast_version"] = _HOSTILE
        elif where == "class":
            model["class"] = _HOSTILE
        elif where == "parameter name":
            model["params"][_HOSTILE] = 1
        elif where == "fitted number name":
            model["fitted"][_HOSTILE] = 1.5
        elif where == "vectorizer class":
            header["vectorizer"] = {"class": _HOSTILE, "params": {_HOSTILE: _HOSTILE}}
        else:
            model["params"]["estimators"] = {"__estimator__": {"class": _HOSTILE, "params": {}}}

    status, captured = _info(_with_header(_stored("MixedNB-str"), edit), tmp_path, capsys)
    assert status == 0, captured.err
    _assert_shown_safely(captured.out)
    assert "\\x1b" in captured.out


@pytest.mark.parametrize("where", ["fitted number name", "parameter name", "version", "class"])
def test_info_shortens_every_field(where, tmp_path, capsys):
    long = "k" * 100_000

    def edit(header):
        if where == "fitted number name":
            header["model"]["fitted"][long] = 1.0
        elif where == "parameter name":
            header["model"]["params"][long] = 1
        elif where == "version":
            header["nbfast_version"] = long
        else:
            header["model"]["class"] = long

    status, captured = _info(_with_header(_stored("MultinomialNB-int"), edit), tmp_path, capsys)
    assert status == 0, captured.err
    _assert_shown_safely(captured.out)
    assert "... (100,000 characters)" in captured.out


def test_info_refuses_a_fitted_number_of_400_digits(tmp_path, capsys):
    raw = _fitted_value(_calibrated, "temperature_", 10**400)()
    status, captured = _info(raw, tmp_path, capsys)
    assert status == 2
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "beyond int64 and uint64" in captured.err
    with pytest.raises(ModelFormatError, match="beyond int64"):
        persist.read_info(tmp_path / "m.nbf")


def test_info_top_features_escape_stored_terms(tmp_path, capsys):
    terms = ["\x1b[2Jhello", "x" * 5000, "\rclass:          GaussianNB", "\u202efox", "world\n"]
    raw = _header(_vocabulary_file, lambda h: h["vectorizer"].update(vocabulary=terms))()
    (tmp_path / "m.nbf").write_bytes(raw)
    assert cli_main(["info", str(tmp_path / "m.nbf"), "--top-features", "5"]) == 0
    out = capsys.readouterr().out
    _assert_shown_safely(out)
    assert "\\x1b[2Jhello" in out and "... (5,0" in out


@pytest.mark.parametrize("make", [_params(lambda: _compact("ComplementNB"), alpha=1e-320),
                                  _edited("GaussianNB-int", ("theta_",), _fill(1e308))],
                         ids=["compact ComplementNB alpha=1e-320", "GaussianNB theta_ 1e308"])
def test_a_refused_file_raises_no_floating_point_warning(make, tmp_path):
    (tmp_path / "m.nbf").write_bytes(make())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ModelFormatError):
            nbfast.load(tmp_path / "m.nbf")
