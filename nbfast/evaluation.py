"""How good a fitted classifier is on labelled data: the figures of ``sklearn.metrics``, counted chunk by chunk.

:func:`evaluate` gives accuracy, per-class precision, recall, F1 and support,
their macro and weighted averages, the log-loss and the confusion matrix, as
``classification_report``, ``confusion_matrix`` and ``log_loss`` compute them
on the same predictions, and the expected calibration error with the
reliability diagram it summarizes.  They all derive from the confusion matrix,
the sum of the per-row losses and per-bin counts of confidence, so
:class:`EvaluationCounts` accumulates those over chunks at memory independent
of the number of rows (``nbfast evaluate`` streams files through it).

Labels the model never saw are counted as errors (the model cannot predict
them; their probability is 0, clipped as ``log_loss`` clips) and listed in
:attr:`Evaluation.unseen_labels`.
"""

import numbers
import warnings

import numpy as np

from nbfast import _sparse as sp
from nbfast._compat import pyplot
from nbfast._validation import check_is_fitted

#: Rows scored at a time by :func:`evaluate`: the (rows, n_classes) probabilities of one chunk are alive at once.
CHUNK_SIZE = 10_000
#: Above this many labels, the confusion matrix of ``to_dict`` lists its nonzero cells instead of every cell.
_MAX_DENSE_LABELS = 1000
_METRICS = ("precision", "recall", "f1-score")
#: Equal-width bins of confidence (the largest posterior) for the calibration error and the reliability diagram.
RELIABILITY_BINS = 15


def _python(value):
    """A label as a plain Python value (numpy scalars to int, float, str, ...)."""
    return value.item() if isinstance(value, np.generic) else value


def _json_list(values):
    """An array as a JSON list, NaN as null."""
    return [None if value != value else value for value in values.tolist()]


def _sorted_order(labels):
    """The order that sorts ``labels`` (scikit-learn's unique_labels sorts them); by kind, then value, for a mix."""
    try:
        return sorted(range(len(labels)), key=labels.__getitem__)
    except TypeError:
        return sorted(range(len(labels)), key=lambda i: (type(labels[i]).__name__, str(labels[i])))


def _divide(numerator, denominator, zero_division):
    """numerator / denominator, ``zero_division`` where the denominator is 0 (scikit-learn's _prf_divide)."""
    numerator, denominator = np.asarray(numerator, dtype=np.float64), np.asarray(denominator, dtype=np.float64)
    zero = denominator == 0
    result = numerator / np.where(zero, 1.0, denominator)
    result[np.broadcast_to(zero, result.shape)] = zero_division
    return result


def _nanaverage(values, weights=None):
    """The (weighted) mean of the values that are not NaN (scikit-learn's _nanaverage)."""
    keep = ~np.isnan(values)
    if not keep.any():
        return float("nan")
    if weights is None or not np.any(weights[keep]):
        return float(np.mean(values[keep]))
    return float(np.average(values[keep], weights=weights[keep]))


def reliability_counts(confidence, correct, n_bins=RELIABILITY_BINS):
    """Per equal-width bin of confidence in [0, 1]: rows, correct rows and summed confidence, shape (3, n_bins)."""
    bins = np.minimum((np.asarray(confidence) * n_bins).astype(np.intp), n_bins - 1)
    return np.stack([np.bincount(bins, weights=weights, minlength=n_bins)
                     for weights in (None, np.asarray(correct, dtype=np.float64), confidence)]).astype(np.float64)


def calibration_error(counts):
    """The expected calibration error of :func:`reliability_counts`: the mean |accuracy - confidence| over bins,
    weighted by their rows (Naeini et al., AAAI 2015; Guo et al., ICML 2017)."""
    return float(np.abs(counts[1] - counts[2]).sum() / counts[0].sum())


class EvaluationCounts:
    """The counts an evaluation derives from, accumulated chunk by chunk.

    Parameters
    ----------
    model : fitted classifier
        With ``classes_``, ``predict`` and ``predict_proba`` (every nbfast
        estimator).

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import MultinomialNB
    >>> from nbfast.evaluation import EvaluationCounts
    >>> X, y = np.array([[2, 0], [0, 2], [1, 1]]), np.array(["a", "b", "a"])
    >>> counts = EvaluationCounts(MultinomialNB().fit(X, y))
    >>> counts.update(X[:2], y[:2]).update(X[2:], y[2:]).result().accuracy
    1.0
    """

    def __init__(self, model):
        check_is_fitted(model)
        self.model = model
        self.classes = np.asarray(model.classes_)
        self._index = {label: i for i, label in enumerate(self.classes.tolist())}
        self._unseen = {}  # label -> row of the confusion matrix (after the classes), in order of appearance
        self._confusion = sp.csr_array((len(self.classes), len(self.classes)), dtype=np.int64)
        self._loss, self.n_samples = 0.0, 0
        self._reliability = np.zeros((3, RELIABILITY_BINS))

    def update(self, X, y):
        """Score X with the model and count it against the true labels ``y``.

        Returns
        -------
        self : EvaluationCounts
        """
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must be a 1-D array of {X.shape[0]} labels (one per row of X); got shape {y.shape}.")
        if y.shape[0] == 0:
            return self
        predicted = np.searchsorted(self.classes, self.model.predict(X))
        return self.add(y, predicted, self.model.predict_proba(X))

    def add(self, y, predicted, proba):
        """Count rows already scored: true labels, predicted class indices, probabilities (n_rows, n_classes).
        A row without a posterior (NaN probabilities) raises ValueError.

        Returns
        -------
        self : EvaluationCounts
        """
        proba = np.asarray(proba)
        undefined = np.isnan(proba).any(axis=1)
        if undefined.any():
            raise ValueError(f"{int(undefined.sum())} row(s) have no posterior, the first row "
                             f"{int(np.argmax(undefined)) + 1} of these {len(undefined)}: the model gives every class "
                             "probability 0 (values beyond what float64 can score, or contradictory evidence)")
        true = self._true_rows(y)
        n_rows, n_classes = true.shape[0], len(self.classes)
        cells = sp.csr_array((np.ones(n_rows, dtype=np.int64), (true, predicted)), shape=self._confusion.shape)
        self._confusion = self._confusion + cells
        # log_loss: -log of the true class's probability clipped to [eps, 1 - eps]; an unseen label's is 0
        eps = np.finfo(proba.dtype).eps
        known = true < n_classes
        p_true = np.zeros(n_rows, dtype=proba.dtype)
        p_true[known] = proba[np.flatnonzero(known), true[known]]
        self._loss -= float(np.sum(np.log(np.clip(p_true, eps, 1 - eps))))
        self._reliability += reliability_counts(proba.max(axis=1), true == predicted)
        self.n_samples += n_rows
        return self

    def _true_rows(self, y):
        """The confusion-matrix row of each label: its class index, or a row after the classes for an unseen label."""
        try:
            values, inverse = np.unique(y, return_inverse=True)
        except TypeError as exc:
            raise ValueError(f"Labels in y cannot be compared with each other: {exc}") from None
        rows = np.empty(len(values), dtype=np.intp)
        for position, label in enumerate(values.tolist()):
            row = self._index.get(label)
            if row is None:
                row = self._unseen.get(label)
            if row is None:
                row = self._unseen[label] = len(self.classes) + len(self._unseen)
                self._confusion.resize((row + 1, len(self.classes)))
            rows[position] = row
        return rows[inverse.reshape(-1)]

    def result(self, *, zero_division=0.0):
        """The :class:`Evaluation` of everything counted so far.

        Parameters
        ----------
        zero_division : {0.0, 1.0, nan}, default=0.0
            The precision (recall, F1) of a label never predicted (never true,
            neither), as scikit-learn's ``zero_division`` (whose default "warn"
            gives 0 with a warning).
        """
        if not (isinstance(zero_division, numbers.Real) and (zero_division in (0, 1) or np.isnan(zero_division))):
            raise ValueError(f"zero_division must be 0.0, 1.0 or nan; got {zero_division!r}.")
        if self.n_samples == 0:
            raise ValueError("Nothing to evaluate: no labelled rows were given.")
        n_classes = len(self.classes)
        labels = self.classes.tolist() + list(self._unseen)
        true_sum = np.asarray(self._confusion.sum(axis=1)).reshape(-1)
        pred_sum = np.zeros(len(labels), dtype=np.int64)
        pred_sum[:n_classes] = np.asarray(self._confusion.sum(axis=0)).reshape(-1)
        # scikit-learn's labels: those that are true or predicted, sorted
        order = [i for i in _sorted_order(labels) if true_sum[i] or pred_sum[i]]
        rows = np.array(order, dtype=np.intp)
        columns = rows[rows < n_classes]
        confusion = self._confusion[rows][:, columns]
        position = np.full(len(labels), -1)
        position[rows] = np.arange(len(rows))
        square = sp.csr_array(
            (confusion.data, position[columns][confusion.indices], confusion.indptr),
            shape=(len(rows), len(rows)),
        )
        return Evaluation(
            labels=[labels[i] for i in order], confusion=square, log_loss=self._loss / self.n_samples,
            unseen_labels={label: int(true_sum[row]) for label, row in self._unseen.items()},
            model_classes=self.classes.tolist(), reliability=self._reliability.copy(), zero_division=zero_division,
        )


class Evaluation:
    """The figures of one evaluation: see :func:`evaluate`.

    Attributes
    ----------
    labels : list
        Every label that is true or predicted somewhere, sorted: the rows and
        columns of the confusion matrix (scikit-learn's ``unique_labels``).
    confusion_matrix : ndarray of shape (n_labels, n_labels)
        Row: true label, column: predicted label (``sklearn.metrics.confusion_matrix``).
    confusion_sparse : scipy.sparse.csr_array
        The same, sparse (for many classes).
    n_samples : int
    accuracy : float
        Labels never seen by the model count as errors.
    precision, recall, f1, support : ndarray of shape (n_labels,)
    macro_avg, weighted_avg : dict
        ``precision``, ``recall``, ``f1-score`` and ``support`` averaged over
        the labels (weighted by their support), as ``classification_report``.
    log_loss : float
        ``sklearn.metrics.log_loss`` of the probabilities over the model's
        classes, an unseen label having probability 0 (clipped).
    unseen_labels : dict
        Label -> number of rows, for the labels the model never saw.
    model_classes : list
        The model's classes.
    expected_calibration_error : float
        How far the confidence of the predictions (their largest posterior)
        is from their accuracy: the mean over 15 equal-width bins of
        confidence of ``|accuracy - mean confidence|``, weighted by the bins'
        rows; 0 for calibrated posteriors (see :func:`nbfast.calibrate`).
    reliability : dict
        The reliability diagram it summarizes: ``bin_edges`` (16), and per bin
        ``count``, ``accuracy`` and ``confidence`` (the mean confidence; both
        NaN for an empty bin).
    """

    def __init__(self, labels, confusion, log_loss, unseen_labels, model_classes, reliability,
                 zero_division=0.0):
        self.labels, self.confusion_sparse, self.log_loss = labels, confusion, float(log_loss)
        self.unseen_labels, self.model_classes, self.zero_division = unseen_labels, model_classes, zero_division
        self.expected_calibration_error = calibration_error(reliability)
        count = reliability[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            self.reliability = {"bin_edges": np.linspace(0.0, 1.0, len(count) + 1), "count": count.astype(np.int64),
                                "accuracy": reliability[1] / count, "confidence": reliability[2] / count}
        tp = confusion.diagonal().astype(np.int64)
        self.support = np.asarray(confusion.sum(axis=1)).reshape(-1).astype(np.int64)
        predicted = np.asarray(confusion.sum(axis=0)).reshape(-1).astype(np.int64)
        self.n_samples = int(self.support.sum())
        self.accuracy = float(tp.sum() / self.n_samples)
        self.precision = _divide(tp, predicted, zero_division)
        self.recall = _divide(tp, self.support, zero_division)
        self.f1 = _divide(2 * tp, self.support + predicted, zero_division)
        self.macro_avg, self.weighted_avg = ({
            "precision": _nanaverage(self.precision, weights),
            "recall": _nanaverage(self.recall, weights),
            "f1-score": _nanaverage(self.f1, weights),
            "support": self.n_samples,
        } for weights in (None, self.support))

    @property
    def confusion_matrix(self):
        return self.confusion_sparse.toarray()

    @property
    def n_errors(self):
        return self.n_samples - int(self.confusion_sparse.diagonal().sum())

    def classification_report(self):
        """The figures as ``sklearn.metrics.classification_report(..., output_dict=True)`` gives them."""
        report = {str(label): {"precision": float(p), "recall": float(r), "f1-score": float(f), "support": int(s)}
                  for label, p, r, f, s in zip(self.labels, self.precision, self.recall, self.f1, self.support)}
        report["accuracy"] = self.accuracy
        report["macro avg"], report["weighted avg"] = dict(self.macro_avg), dict(self.weighted_avg)
        return report

    def to_dict(self):
        """Every figure as JSON values.

        ``confusion_matrix`` is a list of rows; above 1000 labels it is None
        and ``confusion_cells`` lists the nonzero cells as
        ``[true index, predicted index, count]`` (indices into ``labels``).
        """
        dense = len(self.labels) <= _MAX_DENSE_LABELS
        coo = self.confusion_sparse.tocoo()
        return {
            "n_samples": self.n_samples,
            "accuracy": self.accuracy,
            "log_loss": self.log_loss,
            "expected_calibration_error": self.expected_calibration_error,
            "reliability": {key: _json_list(values) for key, values in self.reliability.items()},
            "labels": [_python(label) for label in self.labels],
            "classification_report": self.classification_report(),
            "confusion_matrix": self.confusion_matrix.tolist() if dense else None,
            "confusion_cells": None if dense else np.column_stack([coo.row, coo.col, coo.data]).tolist(),
            "unseen_labels": {str(label): count for label, count in self.unseen_labels.items()},
            "model_classes": [_python(label) for label in self.model_classes],
        }

    def __repr__(self):
        unseen = f", unseen_labels={len(self.unseen_labels)}" if self.unseen_labels else ""
        return (f"Evaluation(n_samples={self.n_samples}, accuracy={self.accuracy:.4f}, "
                f"macro_f1={self.macro_avg['f1-score']:.4f}, log_loss={self.log_loss:.4f}, "
                f"ece={self.expected_calibration_error:.4f}, "
                f"labels={len(self.labels)}{unseen})")

    # ------------------------------------------------------------------ text
    def report(self, *, max_classes=30, max_matrix=12, digits=4):
        """A text report: per-class figures, averages, log-loss and the confusion matrix.

        Above ``max_classes`` labels only the ``max_classes`` of lowest F1 are
        listed; above ``max_matrix`` labels the confusion matrix is summarized
        by its largest off-diagonal cells (the most frequent confusions).
        """
        names = [str(label) for label in self.labels]
        shown = range(len(names))
        lines = []
        if len(names) > max_classes:
            shown = sorted(np.argsort(self.f1, kind="stable")[:max_classes])
            lines.append(f"{len(names)} labels: the {max_classes} of lowest F1 are listed (to_dict() lists them all)")
        width = max([len(names[i]) for i in shown] + [len("weighted avg")])
        columns = [(h, max(len(h), digits + 3) + 2) for h in ("precision", "recall", "f1-score")]
        support_width = len("support") + 2
        lines += [" " * width + "".join(f"{h:>{w}}" for h, w in columns) + f"{'support':>{support_width}}", ""]

        def row(name, values, support):
            cells = "".join(f"{v:>{w}.{digits}f}" for v, (_, w) in zip(values, columns))
            return f"{name:>{width}}{cells}{support:>{support_width}}"

        for i in shown:
            lines.append(row(names[i], (self.precision[i], self.recall[i], self.f1[i]), int(self.support[i])))
        lines.append("")
        blank = " " * (columns[0][1] + columns[1][1])
        lines.append(f"{'accuracy':>{width}}{blank}{self.accuracy:>{columns[2][1]}.{digits}f}"
                     f"{self.n_samples:>{support_width}}")
        for name, avg in (("macro avg", self.macro_avg), ("weighted avg", self.weighted_avg)):
            lines.append(row(name, [avg[m] for m in _METRICS], avg["support"]))
        lines += ["", f"log-loss: {self.log_loss:.{digits}f}",
                  f"expected calibration error: {self.expected_calibration_error:.{digits}f}", ""]
        lines += self._matrix_text(names, max_matrix)
        return "\n".join(lines)

    def _matrix_text(self, names, max_matrix):
        if len(names) <= max_matrix:
            counts = self.confusion_matrix
            width = max(max(len(n) for n in names), len(str(counts.max())))
            lines = ["confusion matrix (rows: true label, columns: predicted):",
                     " " * width + "".join(f" {n:>{width}}" for n in names)]
            lines += [f"{name:>{width}}" + "".join(f" {c:>{width}}" for c in row) for name, row in zip(names, counts)]
            return lines
        coo = self.confusion_sparse.tocoo()
        off = coo.row != coo.col
        rows, cols, counts = coo.row[off], coo.col[off], coo.data[off]
        top = np.lexsort((cols, rows, -counts))[:max_matrix]
        lines = [f"most frequent confusions ({len(names)} labels, {len(counts)} confused pairs):"]
        for k in top:
            share = counts[k] / self.support[rows[k]]
            lines.append(f"  {names[rows[k]]} -> {names[cols[k]]}: {counts[k]} ({share:.1%} of {names[rows[k]]})")
        return lines

    # ------------------------------------------------------------------ plot
    def plot(self, path=None, *, title=None):
        """Draw the confusion matrix, normalized per true label, and the reliability diagram.

        Needs matplotlib.  The confusion matrix is readable from 2 to 60
        labels: every label is named, cells are annotated up to 15 labels;
        beyond 60 labels the axes are left unnamed.  The reliability diagram
        shows, per bin of confidence, the accuracy of its rows against the
        diagonal of perfect calibration, and the share of rows in each bin.

        Parameters
        ----------
        path : str or path-like, default=None
            The image file (``.png``, ``.svg``, ``.pdf``: matplotlib's formats).
        title : str, default=None
            The figure's title (default: the number of rows, the accuracy and
            the expected calibration error).

        Returns
        -------
        figure : matplotlib.figure.Figure or None
            Without ``path``, the figure, open (to show in a notebook or draw
            on); with ``path``, None: the figure is written and closed.
        """
        plt = pyplot("Evaluation.plot")
        size = float(np.clip(2.5 + 0.22 * len(self.labels), 4.5, 16.0))
        fig, (matrix, reliability) = plt.subplots(
            1, 2, figsize=(size + 6.0, size), gridspec_kw={"width_ratios": [size + 1.2, 4.8]})
        try:
            self._draw_confusion(fig, matrix)
            self._draw_reliability(reliability)
            fig.suptitle(title or f"{self.n_samples:,} rows: accuracy {self.accuracy:.3f}, "
                                  f"expected calibration error {self.expected_calibration_error:.3f}", fontsize=11)
            fig.tight_layout()
            if path is None:
                return fig
            fig.savefig(path, dpi=100)
        except BaseException:
            plt.close(fig)
            raise
        plt.close(fig)
        return None

    def _draw_confusion(self, fig, ax):
        counts = self.confusion_matrix.astype(np.float64)
        share = _divide(counts, counts.sum(axis=1, keepdims=True), 0.0)
        n = len(self.labels)
        image = ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0, interpolation="nearest")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="share of the true label's rows")
        names = [str(label) for label in self.labels]
        if n <= 60:
            font = float(np.clip(12 - n / 6, 6, 10))
            ax.set_xticks(range(n), names, rotation=90 if n > 6 or max(map(len, names)) > 6 else 0, fontsize=font)
            ax.set_yticks(range(n), names, fontsize=font)
        else:
            ax.set_xticks([])
            ax.set_yticks([])
        if n <= 15:
            for (i, j), value in np.ndenumerate(share):
                if counts[i, j]:
                    ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8,
                            color="white" if value > 0.5 else "black")
        ax.set_xlabel("predicted label")
        ax.set_ylabel("true label")
        ax.set_title("Confusion matrix, normalized per true label", fontsize=10)

    def _draw_reliability(self, ax):
        edges, count = self.reliability["bin_edges"], self.reliability["count"]
        centers, width = (edges[:-1] + edges[1:]) / 2, edges[1] - edges[0]
        seen = count > 0
        ax.bar(centers[seen], self.reliability["accuracy"][seen], width=width * 0.9, color="tab:blue",
               label="accuracy of the bin's rows")
        ax.bar(centers[seen], count[seen] / count.sum(), width=width * 0.5, color="tab:gray", alpha=0.6,
               label="share of the rows")
        ax.plot([0, 1], [0, 1], color="black", linestyle="--", linewidth=1, label="perfect calibration")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("confidence (largest posterior)")
        ax.set_ylabel("accuracy")
        ax.set_title(f"Reliability, expected calibration error {self.expected_calibration_error:.3f}", fontsize=10)
        ax.legend(loc="upper left", fontsize=8)


def _row_chunks(X, chunk_size):
    """X in chunks of rows (sparse matrices and arrays are sliced; anything else is one chunk)."""
    if not (sp.issparse(X) or isinstance(X, np.ndarray)) or X.shape[0] <= chunk_size:
        yield 0, X
        return
    for start in range(0, X.shape[0], chunk_size):
        yield start, X[start:start + chunk_size]


def evaluate(model, X, y, *, zero_division=0.0):
    """Accuracy, per-class precision / recall / F1 / support, averages, log-loss and confusion matrix of a model.

    The figures equal scikit-learn's ``classification_report``,
    ``confusion_matrix`` and ``log_loss`` (``labels=model.classes_``) on the
    model's predictions; X is scored in chunks of rows, so only one chunk's
    probabilities are alive at a time.  A label the model never saw is counted
    as an error, named in ``unseen_labels`` and in a UserWarning.

    Parameters
    ----------
    model : fitted classifier
        Any nbfast estimator (or a classifier with ``classes_``, ``predict``
        and ``predict_proba``).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        The true labels.
    zero_division : {0.0, 1.0, nan}, default=0.0
        The value of an ill-defined precision, recall or F1 (see
        :meth:`EvaluationCounts.result`).

    Returns
    -------
    evaluation : Evaluation
        The figures, with ``to_dict()``, ``report()`` and ``plot(path)``.

    Examples
    --------
    >>> import numpy as np
    >>> import nbfast
    >>> X = np.array([[3, 0], [0, 3], [2, 1], [1, 2]])
    >>> model = nbfast.MultinomialNB().fit(X, ["ham", "spam", "ham", "spam"])
    >>> nbfast.evaluate(model, X, ["ham", "spam", "spam", "spam"]).accuracy
    0.75
    """
    if not (sp.issparse(X) or hasattr(X, "shape")):  # lists of rows
        X = np.asarray(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be a 1-D array of {X.shape[0]} labels (one per row of X); got shape {y.shape}.")
    counts = EvaluationCounts(model)
    for start, chunk in _row_chunks(X, CHUNK_SIZE):
        counts.update(chunk, y[start:start + chunk.shape[0]])
    evaluation = counts.result(zero_division=zero_division)
    if evaluation.unseen_labels:
        unseen = list(evaluation.unseen_labels)
        warnings.warn(f"{len(unseen)} label(s) in y the model never saw, counted as errors: {unseen[:10]}",
                      UserWarning, stacklevel=2)
    return evaluation
