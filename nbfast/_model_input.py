"""A block of vectorized rows as a model's input: the step between reading (and vectorizing) documents and scoring
them, which every front end that scores by blocks takes (the command line's train, predict, evaluate and explain).

A block is what :mod:`nbfast.readers` yields (:class:`nbfast.readers.Block`): CSR buffers, made by a vectorizer's
kernels for text.  A model that reads those buffers as they are (``_reads_rows``) gets them without a scipy matrix;
one whose input tags refuse sparse input (a :class:`~nbfast.MixedNB` with a scikit-learn part) gets a dense array;
any other a scipy CSR matrix.
"""


def takes_sparse(model):
    """Whether the model takes CSR input (a MixedNB with a scikit-learn part may not)."""
    return model._takes_sparse()


def model_input(block, model, n_features):
    """The block as the model's input: CSR, or dense for a model whose tags refuse sparse input."""
    X = block.to_csr(n_features)
    return X if takes_sparse(model) else X.toarray()


def rows_input(block, model, n_features):
    """The block as input to the model's partial_fit and predictions: its CSR buffers as they are (no scipy
    matrix) for a model that reads them so (``_reads_rows``), else :func:`model_input`."""
    return block.rows(n_features) if model._reads_rows else model_input(block, model, n_features)
