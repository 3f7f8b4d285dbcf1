"""``n_jobs``: how many threads an estimator's calls use, in scikit-learn's meaning.

None keeps nbfast's policy (:func:`nbfast._kernels.threads.effective_n_threads`: the CPUs this process may
use, an ``OMP_NUM_THREADS`` or threadpoolctl limit, small calls on one thread); a positive int allows at most
that many threads; -1 one per CPU this process may use, -2 one fewer, and so on.  The parameter is checked
before any kernel runs, at every call (``set_params`` may change it after fit), and it changes no result:
the kernels' results do not depend on their thread count.
"""

import functools
from numbers import Integral

from nbfast._kernels.threads import n_jobs_limit
from nbfast.naive_bayes._params import Interval, check_parameters

#: The constraint of ``n_jobs``, for an estimator's ``_parameter_constraints``.
N_JOBS = {"n_jobs": [None, Interval(Integral, 1, None, closed="left"), Interval(Integral, None, -1, closed="right")]}

#: Parameters that say how a model computes, not what it computes: they do not keep shards from merging and are
#: not carried to scikit-learn, whose estimators lack them.
RUNTIME_PARAMS = frozenset(N_JOBS)


def uses_n_jobs(method):
    """Decorator: ``method`` checks ``n_jobs`` first, then runs with the thread count it asks for."""

    @functools.wraps(method)
    def with_n_jobs(self, *args, **kwargs):
        n_jobs = getattr(self, "n_jobs", None)  # a model pickled before the parameter existed has none
        if n_jobs is not None:
            check_parameters(self, ("n_jobs",))
        with n_jobs_limit(n_jobs):
            return method(self, *args, **kwargs)

    return with_n_jobs
