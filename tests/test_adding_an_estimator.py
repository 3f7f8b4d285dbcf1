"""docs/architecture.md's checklist for adding an estimator stays true: every abstract hook of the contract is on
it, every hook it names exists, and every registered estimator is in every registry it names."""

import re
from pathlib import Path

import numpy as np
import pytest
from support.helpers import ALL_ESTIMATORS, data_for

import nbfast
from nbfast.cli.bench.estimators import BENCHED, DENSE_ESTIMATORS, corpus_for
from nbfast.datasets import make_documents
from nbfast.naive_bayes import ESTIMATORS
from nbfast.naive_bayes._base import _BaseNB, _LinearNB, _StatisticsNB
from nbfast.naive_bayes._count import _CountNB

ROOT = Path(__file__).parents[1]
CHECKLIST = (ROOT / "docs" / "architecture.md").read_text().split("## Add an estimator: a checklist\n", 1)[1] \
    .split("\n## ", 1)[0]
#: Every name the checklist writes in backticks.
NAMED = set(re.findall(r"`([^`]+)`", CHECKLIST))
#: The classes a new estimator derives from, and whose hooks the checklist names.
BASES = (_BaseNB, _StatisticsNB, _LinearNB, _CountNB)
API_REFERENCE = (ROOT / "docs" / "api.rst").read_text()
GUIDE = "\n".join(path.read_text() for path in sorted((ROOT / "docs" / "guide").glob("*.md")))


def test_every_abstract_hook_is_on_the_checklist():
    abstract = set().union(*(cls.__abstractmethods__ for cls in BASES))
    assert "_check_stored_values" in abstract
    assert not abstract - NAMED, "abstract hooks the checklist does not name"


def test_every_hook_on_the_checklist_exists():
    hooks = {name for name in NAMED if re.fullmatch(r"_[a-z]\w*", name)}
    assert {"_check_stored_values", "_saved_form", "_fitted_attributes", "_linear_terms"} <= hooks
    assert not [name for name in hooks if not any(hasattr(cls, name) for cls in BASES)]


def test_the_checklist_names_the_registries_checked_here():
    assert {"nbfast.naive_bayes.ESTIMATORS", "nbfast/__init__.py", "_PUBLIC", "__all__", "docs/api.rst",
            "DENSE_ESTIMATORS", "data_for", "ALL_ESTIMATORS", "docs/guide/"} <= NAMED
    assert set(DENSE_ESTIMATORS) <= set(BENCHED)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_is_in_every_registry_of_the_checklist(name):
    cls = ESTIMATORS[name]
    assert not cls.__abstractmethods__  # _check_stored_values and the other hooks given
    assert cls._fitted_attributes[:2] == ("classes_", "n_features_in_")
    assert cls._saved_form(cls._fitted_attributes) is not None
    assert name in nbfast._PUBLIC and name in nbfast.__all__
    assert re.search(rf"^   {name}$", API_REFERENCE, re.M), "docs/api.rst"
    assert re.search(rf"\b{name}\b", GUIDE), "docs/guide/"
    assert name in ALL_ESTIMATORS
    X, y = data_for(name)
    assert cls().fit(X, y).predict(X).shape == y.shape


@pytest.mark.parametrize("name", sorted(BENCHED))
def test_the_bench_can_time_every_estimator_it_benches(name):
    """``nbfast bench estimators`` times each on its corpus, or a dense block of it (``DENSE_ESTIMATORS``)."""
    X, y = make_documents(200, 100, 3, random_state=0)
    model = BENCHED[name]().fit(corpus_for(name, X), y)
    assert np.isfinite(model.predict_proba(corpus_for(name, X))).all()
