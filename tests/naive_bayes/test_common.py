"""scikit-learn's common estimator checks (``parametrize_with_checks``) on every estimator, one test per check, with
each expected failure declared with its reason."""

import pytest

import nbfast

estimator_checks = pytest.importorskip("sklearn.utils.estimator_checks")

_REFUSED_FLOATS = "fits on non-integer floats, which CategoricalNB refuses by design (scikit-learn truncates them)"

#: The checks each estimator is expected to fail, by class name, with the reason.
EXPECTED_FAILURES = {
    "CategoricalNB": {
        "check_sample_weight_equivalence_on_dense_data": _REFUSED_FLOATS,
        "check_sample_weight_equivalence_on_sparse_data": _REFUSED_FLOATS,
        "check_classifiers_one_label_sample_weights": _REFUSED_FLOATS,
    },
    "DiscriminativeNB": {
        "check_decision_proba_consistency": "fits on blobs with negative values (it does not honour the positive_only "
                                            "tag), which the Naive Bayes start refuses by design",
    },
}

ESTIMATORS = [
    nbfast.MultinomialNB(),
    nbfast.BernoulliNB(),
    nbfast.BernoulliNB(missing="ignore"),
    nbfast.ComplementNB(),
    nbfast.CategoricalNB(),
    nbfast.CategoricalNB(missing="ignore"),
    nbfast.GaussianNB(),
    nbfast.GaussianNB(variance="global", ddof=1),
    nbfast.GaussianNB(missing="ignore"),
    nbfast.PoissonNB(),
    nbfast.DiscriminativeNB(),
    nbfast.DiscriminativeNB(solver="lbfgs"),
    nbfast.MixedNB(),
    nbfast.MixedNB([("a", nbfast.MultinomialNB(), slice(None)), ("b", nbfast.BernoulliNB(alpha=0.5), slice(None))]),
    nbfast.MixedNB([("numbers", nbfast.GaussianNB(), slice(None))], missing="ignore"),
]


_SGD_STEPS = ("SGD takes a step per row, in a shuffled order: a repeated row is two steps, not one of twice the "
              "size (the same objective, not the same iterates); solver='lbfgs' passes")
#: The checks the stochastic solver is expected to fail besides its class's.
SGD_EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": _SGD_STEPS,
    "check_sample_weight_equivalence_on_sparse_data": _SGD_STEPS,
}


def _expected_failures(estimator):
    failures = EXPECTED_FAILURES.get(type(estimator).__name__, {})
    if getattr(estimator, "solver", None) == "sgd":
        failures = failures | SGD_EXPECTED_FAILURES
    return failures


@estimator_checks.parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_scikit_learn_common_checks(estimator, check):
    check(estimator)


def test_every_registered_estimator_constructible_with_defaults_is_checked():
    checked = {type(estimator).__name__ for estimator in ESTIMATORS}
    wrappers = {"CalibratedNB", "SemiSupervisedNB"}  # need a base estimator; tested in their own files
    searches = {"MultinomialNBCV", "BernoulliNBCV", "ComplementNBCV", "CategoricalNBCV", "PoissonNBCV"}  # test_cv.py
    assert set(nbfast.naive_bayes.ESTIMATORS) - wrappers - searches <= checked


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_scikit_learn_parameter_validation_check(estimator):
    """scikit-learn's check_param_validation (run by its own test_common.py on its estimators): every declared
    parameter, given an invalid value, raises InvalidParameterError naming it from fit and partial_fit."""
    estimator_checks.check_param_validation(type(estimator).__name__, estimator)
