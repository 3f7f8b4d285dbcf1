"""The scores of a cross-validated search's alphas on its test rows, and their ranks (see
:mod:`nbfast.naive_bayes._cv`)."""

import numpy as np

from nbfast._kernels import scoring
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads
from nbfast.naive_bayes._count import _CountNB
from nbfast.naive_bayes._counts import count_nonzeros
from nbfast.naive_bayes._fold_counts import LogTable, score_side_by_side
from nbfast.naive_bayes._tables import as_table


def rank_scores(means):
    """GridSearchCV's ranks of the mean scores: 1 for the best, ties sharing the lowest, NaN last."""
    from scipy.stats import rankdata  # imported here: scipy.stats takes longer to import than nbfast

    if np.isnan(means).all():
        return np.ones(means.shape[0], dtype=np.int32)
    means = np.nan_to_num(means, nan=np.nanmin(means) - 1)
    return rankdata(-means, method="min").astype(np.int32, copy=False)


#: Bytes of the stacked tables of one scoring pass, and of its output per chunk of rows.
_STACK_BYTES = 1 << 28
_OUTPUT_BYTES = 1 << 26
#: Bytes of the test rows' scores of the alphas scored together (blocks of alphas, each reduced to its scores before
#: the next): memory does not grow with alphas x rows (10,000 alphas on 20,000 rows once took 2.5 GB).
_ROW_BYTES = 1 << 24


def searches_alphas_at_once(cls):
    """Whether the models of class ``cls`` give the compact tables of several alphas at once."""
    return issubclass(cls, _CountNB) and cls._searches_alphas_at_once


def scores_of_alphas(model, alphas, smoothing, X, rows, y_index, sample_weight, scoring):
    """The score of ``model`` (fitted on the training rows) with each alpha on the test rows ``rows`` of X (as
    the model's ``_check_X`` returns it; their classes' indices ``y_index``), weighted by their
    ``sample_weight`` (None: unweighted).  ``smoothing`` holds each alpha as the model's ``_check_alpha``
    returned it (checked once, by the search).

    Each alpha's tables are built from the same statistics.  A compact model that gives the tables of several
    alphas at once (``_search_terms``) scores all of them in one pass over the test rows, in place
    (:func:`_compact_scores`).  The count models scored by one dense linear table are scored together, in
    place: their tables side by side, one pass of the fused kernel over the test rows per block of alphas
    (:func:`_block_size`); the others (CategoricalNB, other compact tables, missing values) by their own
    scoring of a copy of the test rows, once per alpha.  Either way each row's joint log-likelihood is the one
    ``predict`` and ``predict_proba`` compute, and an alpha's rows are reduced to its score as soon as they
    are scored.
    """
    mode = Output.ARGMAX if scoring == "accuracy" else Output.PROBA
    sign = 1.0 if scoring == "accuracy" else -1.0

    def score(per_row):  # the weighted mean of an alpha's per-row scores, over the whole test set at once
        return sign * float(np.average(per_row, weights=sample_weight))

    compact_scores = _compact_scores(model, alphas, smoothing, X, rows, y_index, mode, score)
    if compact_scores is not None:
        return compact_scores
    scores = [None] * len(alphas)

    def reduce(a, values):
        scores[a] = score(_per_row(values, mode, y_index))

    def score_side_by_side(block):
        binarize, threshold = model._kernel_threshold()
        for index, values in _stacked_scores(X, rows, block, binarize, threshold, mode):
            reduce(index, values)
        return []

    block = []  # (alpha index, table, bias) of the alphas to score side by side
    test_X = None  # the copy of the test rows, made when a model's own scoring needs it
    for a, alpha in enumerate(alphas):
        model.set_params(alpha=float(alpha))
        model._derive_params({**model._fitted_params(), "alpha": smoothing[a]})  # this alpha's tables, same statistics
        terms = _linear_table(model, X[:0], mode)
        if terms is None:
            test_X = X[rows] if test_X is None else test_X
            reduce(a, model._score(test_X, mode))
            continue
        block.append((a, *terms))
        if len(block) == _block_size(terms[0], rows.shape[0], mode):
            block = score_side_by_side(block)
    if block:
        score_side_by_side(block)
    return scores


def _compact_scores(model, alphas, smoothing, X, rows, y_index, mode, score):
    """``score`` of each alpha's per-row scores, from the compact tables of the alphas side by side (a block
    of them at a time, within _STACK_BYTES), each block in one pass over the rows; None when ``model`` does
    not give such tables for these alphas (see ``_searches_alphas_at_once``)."""
    if not (searches_alphas_at_once(type(model)) and model._is_compact()):
        return None
    for alpha in alphas:
        model.set_params(alpha=float(alpha))
        if not model._has_compact_table():
            return None
    counts = model._counts()
    n_classes = len(model.classes_)
    if mode == Output.ARGMAX:
        take = np.empty(0, dtype=np.intp)
    else:  # the class whose posterior a row's log loss reads: with two classes the scorer passes the second's
        take = np.ones_like(y_index) if n_classes == 2 else y_index
    # a block's tables and their temporaries (a few arrays of a value per entry or feature and alpha)
    per_block = max(1, _STACK_BYTES // (32 * (counts.nnz + counts.n_features)))
    scores = []
    for start in range(0, len(smoothing), per_block):
        terms = model._search_terms(LogTable(smoothing[start:start + per_block]))
        if terms is None:
            return None
        values = score_side_by_side(X, rows, counts, *terms, mode, take)
        for column in values.T:
            scores.append(score(column == y_index if mode == Output.ARGMAX else
                                _log_losses(column, y_index, n_classes == 2)))
    return scores


def _block_size(table, n_rows, mode):
    """How many alphas of tables like ``table`` to score side by side: their tables within _STACK_BYTES, and
    their rows' scores (a label, or a posterior per class: the kernel's output and its copy by alpha, 16 bytes
    each) within _ROW_BYTES; at least one."""
    per_row = 16 if mode == Output.ARGMAX else 16 * table.shape[1]
    return max(1, min(_STACK_BYTES // table.nbytes, _ROW_BYTES // max(1, per_row * n_rows)))


def _linear_table(model, X, mode):
    """(table, bias) with which ``model._score(X, mode)`` would run the fused kernel on a dense table, or None
    when it scores otherwise (which depends on the model and the type of X, not on its rows: X may have
    none)."""
    if not isinstance(model, _CountNB) or model._ignores_missing():
        return None
    if model._score_outside_the_linear_form(X, mode) is not None:
        return None
    table, bias = model._linear_terms()[:2]
    if as_table(table).compact_form() is not None:
        return None
    return table, np.ascontiguousarray(bias, dtype=np.float64)


def _stacked_scores(X, rows, entries, binarize, threshold, mode):
    """(alpha index, ``mode``'s scores of the rows ``rows`` of X) of each (alpha index, table, bias) entry, their
    tables side by side in one pass of the kernel over the rows, in chunks of rows (see :func:`_block_size` for
    how many entries to give it at once)."""
    n_classes = entries[0][1].shape[1]
    table = np.hstack([entry[1] for entry in entries])
    bias = np.concatenate([entry[2] for entry in entries])
    shape = (len(entries), rows.shape[0]) + (() if mode == Output.ARGMAX else (n_classes,))
    results = np.empty(shape, np.int64 if mode == Output.ARGMAX else np.float64)  # each entry's, contiguous
    chunk = max(1, _OUTPUT_BYTES // (8 * table.shape[1]))
    for start in range(0, rows.shape[0], chunk):
        listed = rows[start:start + chunk]
        labels = np.empty(listed.shape[0] * len(entries) if mode == Output.ARGMAX else 0, dtype=np.int64)
        out = np.empty((0, 0) if mode == Output.ARGMAX else (listed.shape[0], table.shape[1]))
        n_threads = effective_n_threads(count_nonzeros(X, listed) + listed.shape[0] * table.shape[1])
        scoring.score_csr(X.data, X.indices, X.indptr, table, bias, binarize, threshold, mode, out, labels,
                          n_threads, n_classes, listed)
        stop = start + listed.shape[0]
        for g in range(len(entries)):
            results[g, start:stop] = labels[g::len(entries)] if mode == Output.ARGMAX else \
                out[:, g * n_classes:(g + 1) * n_classes]
    for entry, values in zip(entries, results):
        yield entry[0], values


def _per_row(scores, mode, y_index):
    """Each test row's part of the score, as scikit-learn's scorers compute it: whether the predicted class
    is the true one (accuracy), or the log loss of the true class's clipped posterior (neg_log_loss)."""
    if mode == Output.ARGMAX:
        return scores == y_index
    binary = scores.shape[1] == 2  # the scorer passes P(second class)
    return _log_losses(scores[:, 1] if binary else scores[np.arange(scores.shape[0]), y_index], y_index, binary)


def _log_losses(taken, y_index, binary):
    """The log loss of each row's clipped posterior of its true class, from ``taken``: that posterior, or the
    second class's when ``binary`` (log_loss then takes the first's as 1 minus it)."""
    true = np.where(y_index == 1, taken, 1 - taken) if binary else taken
    eps = np.finfo(np.float64).eps
    return -np.log(np.clip(true, eps, 1 - eps))
