"""``nbfast train --alpha auto``: the smoothing chosen by cross-validation, by the count models' CV estimators.

``--alpha auto`` fits the model's CV estimator (``--model multinomial``: MultinomialNBCV) with ``--cv K`` folds
and the candidates of ``--alphas``, both the estimator's defaults when not given.  A search has no
``partial_fit``: it counts each fold and scores the test rows of each for every alpha, so it needs every row at
once.  ``nbfast train`` fits it as it fits any model that does not learn batch by batch: it keeps the blocks of
its second pass and fits on all of them at the end (its memory grows with the input), and gives the same
choice, scores and model as the estimator fitted on the rows in the input's order.  The model file holds the
search: its final model, fitted on every row with the chosen alpha, makes every prediction, and its scores
(``cv_results_``) are what ``nbfast info`` shows.
"""

import argparse
import sys

import numpy as np

from nbfast._compat import sklearn_module
from nbfast.cli._errors import non_negative_float, positive_int

#: The value of --alpha that asks for a search.
AUTO = "auto"


def alpha_or_auto(text):
    """argparse type of --alpha: a finite number >= 0, or "auto"."""
    if text == AUTO:
        return AUTO
    try:
        return non_negative_float(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0 or 'auto', got {text!r}") from None


def alpha_grid(text):
    """argparse type of --alphas: finite numbers >= 0 separated by commas."""
    try:
        return [non_negative_float(word) for word in text.split(",")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be numbers >= 0 separated by commas (such as 0.1,1,10), got "
                                         f"{text!r}") from None


def fold_count(text):
    """argparse type of --cv: a whole number of folds >= 2."""
    value = positive_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2 (folds), got {value}")
    return value


def search_params(args):
    """The CV estimator's parameters that --cv and --alphas set with --alpha auto (those not given left to its
    defaults; {} without it), after refusing options that do not go with --alpha auto or that need it
    (ValueError); scikit-learn, which makes the folds, is asked for before any input is read."""
    if args.alpha != AUTO:
        given = next((name for name, value in (("--cv", args.cv), ("--alphas", args.alphas)) if value is not None),
                     None)
        if given is not None:
            raise ValueError(f"{given} applies only with --alpha auto (the search of alpha)")
        return {}
    if args.calibrate_cv is not None:
        raise ValueError("--calibrate-cv does not apply with --alpha auto (a search is fitted on all the rows at "
                         "once, not fold by fold)")
    sklearn_module("model_selection", "nbfast train --alpha auto (its cross-validation folds)")
    return {name: value for name, value in (("cv", args.cv), ("alphas", args.alphas)) if value is not None}


def chosen_row(ranks):
    """The index of the chosen alpha, the first of rank 1 (the best mean score), or None when no row is."""
    best = np.flatnonzero(np.asarray(ranks) == 1)
    return int(best[0]) if best.size else None


def score_table(scoring, alphas, means, stds, ranks):
    """Lines of a table of a search's scores: each alpha, the mean and the standard deviation of its test scores
    over the folds; the chosen alpha marked."""
    chosen = chosen_row(ranks)
    rows = [("alpha", f"mean {scoring}", "std", "")]
    rows += [(f"{alpha:.10g}", f"{mean:.6f}", f"{std:.6f}", "(chosen)" if k == chosen else "")
             for k, (alpha, mean, std) in enumerate(zip(alphas, means, stds))]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return ["  ".join(cell.rjust(width) for cell, width in zip(row, widths)) + (f"  {row[3]}" if row[3] else "")
            for row in rows]


def report_search(search):
    """The chosen alpha and every alpha's scores of a fitted search, on stderr (before the run's summary)."""
    results = search.cv_results_
    print(f"nbfast: --alpha auto: alpha {search.alpha_:.10g}, the best mean {search.scoring} over "
          f"{search.n_splits_} folds", file=sys.stderr)
    for line in score_table(search.scoring, results["param_alpha"], results["mean_test_score"],
                            results["std_test_score"], results["rank_test_score"]):
        print(f"  {line}", file=sys.stderr)
