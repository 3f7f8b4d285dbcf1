"""The first pass of a vocabulary fit on Spark: every partition's terms counted, the counts added up exactly.

Each partition's Python worker counts its Arrow batches' terms in place as
the vectorizer finds them, before any pruning
(:class:`nbfast.text._counted_parts.CountedParts`: each term's document and
term frequency), and ships one Arrow table of them; the tables are added up
term by term (integers: exact in any order), each term placed where it first
occurs, on the driver or as a tree on the executors; the vectorizer is then
fitted on the sums, by the pruning code of a local fit.  Only terms and
counts travel, never the documents.
"""

import functools
import io

import numpy as np

from nbfast import _compat
from nbfast._params import check_parameters
from nbfast.spark._common import limit_threads, reduce_partitions, refuse_nulls
from nbfast.text._counted_parts import CountedParts

__all__ = ["check_vocabulary_fit", "fit_vocabulary"]

#: Each term's first occurrence, as (partition index << RANK_BITS) + its rank within the partition.
RANK_BITS = 32


def check_vocabulary_fit(vectorizer):
    """Refuse, on the driver, invalid parameters (as ``fit`` would) and a vectorizer whose vocabulary cannot be
    learned from counted partitions."""
    check_parameters(vectorizer)
    try:
        CountedParts(vectorizer)
    except ValueError:
        raise ValueError(f"this {type(vectorizer).__name__} cannot learn its vocabulary from counted partitions: a "
                         "fixed vocabulary, settings that scikit-learn's vectorizer runs (a custom analyzer, "
                         "tokenizer, preprocessor or token_pattern, say), or max_features with a dtype other than "
                         "int32, int64 or float64 need the documents themselves. Fit it on a sample of them first, "
                         "or use nbfast.text.HashingVectorizer, which needs no vocabulary.") from None


def _table(terms, document_frequencies, counts, first):
    pa = _compat.pyarrow()
    return pa.table({"term": pa.array(terms, pa.string()), "df": pa.array(document_frequencies, pa.int64()),
                     "tf": pa.array(counts, pa.int64()), "first": pa.array(first, pa.int64())})


def _added_up(tables):
    """One table of the terms of ``tables``: document frequencies and counts summed, the first occurrence the
    earliest; terms in the order they first appear in the tables."""
    pa = _compat.pyarrow()
    table = pa.concat_tables(tables).group_by("term", use_threads=False).aggregate(
        [("df", "sum"), ("tf", "sum"), ("first", "min")])
    return table.rename_columns(["term", "df", "tf", "first"])


def _to_bytes(table, n_documents):
    pa = _compat.pyarrow()
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema.with_metadata({"n_documents": str(n_documents)})) as writer:
        writer.write_table(table)
    return sink.getvalue()


def _from_bytes(data):
    table = _compat.pyarrow().ipc.open_stream(data).read_all()
    return table, int(table.schema.metadata[b"n_documents"])


def _merge(parts):
    """The statistics of several partitions' (IPC bytes) as those of one."""
    tables, n_documents = zip(*map(_from_bytes, parts))
    return _to_bytes(_added_up(tables), sum(n_documents))


def _partition_terms(batches, *, vectorizer, input_col):
    """mapInArrow's function: one row with the partition's term statistics, or none for an empty partition."""
    pa = _compat.pyarrow()
    context = _compat.pyspark().TaskContext.get()
    partition = context.partitionId() if context is not None else 0
    limit_threads()
    parts, counted = CountedParts(vectorizer), False
    for batch in batches:
        if batch.num_rows == 0:
            continue
        column = batch.column(input_col)
        refuse_nulls(column, input_col)
        parts.add(parts.count(column))  # in the partition's order
        counted = True
    if counted:
        terms, df, tf, n_documents = CountedParts.statistics(parts.merged(vectorizer))
        first = (np.int64(partition) << RANK_BITS) + np.arange(len(terms), dtype=np.int64)
        table = _table(terms, np.asarray(df), np.asarray(tf), first)  # terms in their order of first occurrence
        yield pa.RecordBatch.from_arrays([pa.array([_to_bytes(table, n_documents)], pa.binary())], names=["part"])


def fit_vocabulary(vectorizer, df, input_col):
    """Fit the unfitted CountVectorizer or TfidfVectorizer ``vectorizer`` in place on ``df``'s column
    ``input_col`` (strings), as ``vectorizer.fit`` on all its rows would: one Spark job."""
    types = _compat.pyspark("sql.types")
    function = functools.partial(_partition_terms, vectorizer=_compat.clone(vectorizer), input_col=input_col)
    parts = df.select(input_col).mapInArrow(
        function, types.StructType([types.StructField("part", types.BinaryType(), False)]))
    table, n_documents = _from_bytes(reduce_partitions(parts, _merge))
    table = table.sort_by("first")  # the corpus' order of first occurrence, as vocabulary_ keeps it
    parts = CountedParts(vectorizer)
    parts.add(CountedParts.from_statistics(table.column("term").to_pylist(), table.column("df").to_numpy(),
                                           table.column("tf").to_numpy(), n_documents))
    return vectorizer.fit(parts)
