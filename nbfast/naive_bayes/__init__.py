"""The Naive Bayes estimators, and the one registry of them.

Persistence (the allow-list of classes a model file may name), ``patch_sklearn``,
the command line's ``--model`` choices and the benchmarks all read
:data:`ESTIMATORS`: a new estimator is one class here and one entry there.
"""

from nbfast.naive_bayes._calibrated import CalibratedNB
from nbfast.naive_bayes._categorical import CategoricalNB
from nbfast.naive_bayes._cv import BernoulliNBCV, CategoricalNBCV, ComplementNBCV, MultinomialNBCV, PoissonNBCV
from nbfast.naive_bayes._discrete import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB
from nbfast.naive_bayes._discriminative import DiscriminativeNB
from nbfast.naive_bayes._gaussian import GaussianNB
from nbfast.naive_bayes._mixed import MixedNB
from nbfast.naive_bayes._semi_supervised import SemiSupervisedNB

#: Every nbfast estimator by class name, in the order they are documented.
ESTIMATORS = {
    cls.__name__: cls
    for cls in (MultinomialNB, BernoulliNB, ComplementNB, CategoricalNB, GaussianNB, PoissonNB, MixedNB, CalibratedNB,
                SemiSupervisedNB, MultinomialNBCV, BernoulliNBCV, ComplementNBCV, CategoricalNBCV, PoissonNBCV,
                DiscriminativeNB)
}

#: The estimator that chooses a count model's alpha by cross-validation, by the count model's class.
ALPHA_SEARCHES = {search._base_class: search for search in (MultinomialNBCV, BernoulliNBCV, ComplementNBCV,
                                                            CategoricalNBCV, PoissonNBCV)}

__all__ = ["ALPHA_SEARCHES", "ESTIMATORS", "BernoulliNB", "BernoulliNBCV", "CalibratedNB", "CategoricalNB", "CategoricalNBCV", "ComplementNB",
           "ComplementNBCV", "DiscriminativeNB", "GaussianNB", "MixedNB", "MultinomialNB", "MultinomialNBCV", "PoissonNB", "PoissonNBCV",
           "SemiSupervisedNB"]
