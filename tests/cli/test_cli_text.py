"""`nbfast train` / `nbfast predict` on raw text (lines, TSV, JSONL), and the vectorizer stored in model files."""

import bz2
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.crafting import _layout, _raw_header, _with_header, idf_as_numbers

import nbfast
from nbfast import persist
from nbfast.cli import main
from nbfast.text import HashingVectorizer, TfidfVectorizer

make_pipeline = pytest.importorskip("sklearn.pipeline").make_pipeline

N_FEATURES = 2**12
WORDS = [
    "cheap", "pills", "now", "meeting", "noon", "Café", "naïve", "ΕΛΛΗΝΙΚΆ", "σοφία", "東京", "日本語", "x_1",
    "don't", "2024", "OK", "Straße", "İstanbul", "ÉCOLE", "ok", "a", "b9", "über", "ŒUVRE", "ǅemal",
]  # fmt: skip
CLASSES = ["eggs", "ham", "spam"]


@pytest.fixture(scope="module")
def corpus():
    """Documents (Unicode, punctuation, empty and whitespace-only ones) and string labels, class-dependent."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 240)
    documents = []
    for label in y:
        p = np.roll(np.linspace(1, 3, len(WORDS)), 8 * label)
        words = rng.choice(WORDS, size=rng.integers(0, 12), p=p / p.sum())
        documents.append(" ".join(words) + rng.choice(["", ".", " !", ",  \t"]))
    documents[5], documents[17] = "", "   "
    return documents, np.array(CLASSES)[y]


def write_tsv(path, documents, labels):
    text = "".join(f"{label}\t{doc}\n" for label, doc in zip(labels, documents))
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "wt", encoding="utf-8", newline="") as f:
        f.write(text)
    return path


def write_jsonl(path, documents, labels, label_field="label", text_field="text"):
    with open(path, "w", encoding="utf-8") as f:
        for label, doc in zip(labels, documents):
            f.write(json.dumps({"id": 1, label_field: label, text_field: doc}, ensure_ascii=bool(len(doc) % 2)) + "\n")
    return path


def write_lines(path, documents):
    path.write_text("".join(doc + "\n" for doc in documents), encoding="utf-8")
    return path


def run_cli(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


def read_csv(path):
    """(header, labels as str, probabilities as float64) of a predict CSV (labels hold no commas here)."""
    rows = [line.split(",") for line in path.read_text(encoding="utf-8").splitlines()]
    return rows[0], [row[0] for row in rows[1:]], np.array([[float(v) for v in row[1:]] for row in rows[1:]])


def reference(documents, labels, *, ngram_max=1, binary=False, lowercase=True, n_features=N_FEATURES):
    vectorizer = HashingVectorizer(n_features=n_features, ngram_range=(1, ngram_max), binary=binary,
                                   lowercase=lowercase, norm=None, alternate_sign=False)
    return make_pipeline(vectorizer, nbfast.MultinomialNB()).fit(documents, labels)


def assert_one_line_error(status, err, *fragments):
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], err


# ------------------------------------------------------------------- train + predict
NAMES = ["train.tsv", "train.tsv.gz", "train.jsonl"]
OPTIONS = [{"ngram_max": 2, "binary": True}, {"lowercase": False}]


@pytest.mark.parametrize("name, chunk_size, options", [(name, chunk_size, {}) for name in NAMES
                                                       for chunk_size in (1, 37, 10_000)]
                         + [(name, chunk_size, options) for name in NAMES for chunk_size in (37, 10_000)
                            for options in OPTIONS])
def test_text_in_chunks_equals_the_in_memory_pipeline(tmp_path, capsys, corpus, name, chunk_size, options):
    documents, labels = corpus
    write = write_jsonl if "jsonl" in name else write_tsv
    data = write(tmp_path / name, documents, labels)
    flags = {"ngram_max": ["--ngram-max", 2], "binary": ["--binary"], "lowercase": ["--no-lowercase"]}
    flags = [flag for option in options for flag in flags[option]]
    model_path, out = tmp_path / "model.nbf", tmp_path / "out.csv"
    status, err = run_cli(capsys, "train", data, "-o", model_path, "--n-features", N_FEATURES,
                          "--chunk-size", chunk_size, *flags)
    assert status == 0, err
    assert f"trained MultinomialNB (3 classes, {N_FEATURES} features)" in err and "240 rows" in err
    status, err = run_cli(capsys, "predict", model_path, data, "-o", out, "--proba", "--chunk-size", chunk_size)
    assert status == 0, err

    expected = reference(documents, labels, **options)
    model = nbfast.load(model_path)
    np.testing.assert_array_equal(model.classes_, CLASSES)
    np.testing.assert_array_equal(model.feature_count_, expected[-1].feature_count_)
    header, predicted, proba = read_csv(out)
    assert header == ["label"] + [f"proba_{c}" for c in CLASSES]
    np.testing.assert_array_equal(predicted, expected.predict(documents))
    np.testing.assert_array_equal(proba, expected.predict_proba(documents))  # 17 digits: bit-identical
    assert len(set(predicted)) > 1  # the corpus is not degenerate


def test_lines_file_for_predict_and_npy_output(tmp_path, capsys, corpus):
    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--n-features", N_FEATURES, "--ngram-max", 2)[0] == 0
    expected = reference(documents, labels, ngram_max=2)
    lines = write_lines(tmp_path / "docs.txt", documents[::-1])
    status, err = run_cli(capsys, "predict", tmp_path / "m", lines, "-o", tmp_path / "p.npy", "--proba",
                          "--chunk-size", 50)
    assert status == 0, err
    records = np.load(tmp_path / "p.npy")
    assert len(records) == len(documents)  # empty lines are documents too: rows match lines
    np.testing.assert_array_equal(records["label"], expected.predict(documents[::-1]))
    np.testing.assert_array_equal(records["proba"], expected.predict_proba(documents[::-1]))
    # --format overrides the extension; CRLF line ends are not part of the documents
    crlf = tmp_path / "docs.data"
    crlf.write_bytes("".join(doc + "\r\n" for doc in documents).encode())
    assert run_cli(capsys, "predict", tmp_path / "m", crlf, "-o", tmp_path / "o.csv", "--format", "lines")[0] == 0
    np.testing.assert_array_equal(read_csv(tmp_path / "o.csv")[1], expected.predict(documents))


@pytest.mark.parametrize("output", ["out.csv", "out.npy"])
def test_predict_writes_the_same_bytes_whatever_the_threads_making_blocks(tmp_path, capsys, monkeypatch, corpus,
                                                                         output):
    """Blocks are vectorized, scored and formatted by several threads at once and written in the input's order:
    the output is that of one thread, byte for byte; an error in a later block is still the one reported."""
    import tempfile

    import nbfast.readers._block as block_module

    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--vectorizer", "tfidf")[0] == 0
    spools, make_spool = [], tempfile.TemporaryFile  # where .npy rows wait: closed even after an error
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda: spools.append(make_spool()) or spools[-1])
    outputs = []
    for n_threads in (1, 2, 3):
        monkeypatch.setattr(block_module, "effective_n_threads", lambda n_threads=n_threads: n_threads)
        out = tmp_path / f"{n_threads}-{output}"
        status, err = run_cli(capsys, "predict", tmp_path / "m", data, "-o", out, "--proba", "--chunk-size", 7)
        assert status == 0, err
        outputs.append(out.read_bytes())
        bad = tmp_path / "bad.tsv"
        bad.write_text(data.read_text(encoding="utf-8") + "no tab here\n", encoding="utf-8")
        status, err = run_cli(capsys, "predict", tmp_path / "m", bad, "-o", out, "--chunk-size", 7)
        assert_one_line_error(status, err, f"{bad} line 241: no tab (expected label<TAB>text)")
        assert out.read_bytes() == outputs[-1]  # the failed run left the earlier output as it was
    assert outputs[0] == outputs[1] == outputs[2]
    assert all(spool.closed for spool in spools) and len(spools) == (6 if output.endswith(".npy") else 0)
    if output.endswith(".csv"):  # each probability as Python's "%.17g" writes it
        with persist.ModelFile(tmp_path / "m") as model_file:
            model, vectorizer = model_file.model(), model_file.vectorizer()
        proba = model.predict_proba(vectorizer.transform(documents))
        rows = [f"{model.classes_[row.argmax()]}," + ",".join(f"{p:.17g}" for p in row) for row in proba]
        header = ",".join(["label"] + [f"proba_{c}" for c in CLASSES])
        assert outputs[0].decode() == "\n".join([header, *rows]) + "\n"


def test_jsonl_custom_fields_numeric_labels_and_default_n_features(tmp_path, capsys, corpus):
    documents, labels = corpus
    y = np.searchsorted(CLASSES, labels) * 5 - 3  # labels -3, 2, 7
    data = write_jsonl(tmp_path / "d.jsonl.bz2", documents, y.tolist(), label_field="y", text_field="body")
    data.write_bytes(bz2.compress(data.read_bytes()))
    status, err = run_cli(capsys, "train", data, "-o", tmp_path / "m", "--label-field", "y", "--text-field", "body")
    assert status == 0, err
    model = nbfast.load(tmp_path / "m")
    assert model.n_features_in_ == 2**20 and model.classes_.dtype.kind == "i"
    expected = reference(documents, y, n_features=2**20)
    # predict reads no label field: records without one are fine
    unlabeled = tmp_path / "u.jsonl"
    unlabeled.write_text("".join(json.dumps({"body": doc}) + "\n" for doc in documents), encoding="utf-8")
    status, err = run_cli(capsys, "predict", tmp_path / "m", unlabeled, "-o", tmp_path / "o.npy", "--text-field", "body")
    assert status == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), expected.predict(documents))


def test_unicode_tokens_reach_the_model(tmp_path, capsys):
    documents = ["東京 日本語 ΣΟΦΊΑ", "Café naïve", "東京 東京", "café CAFÉ straße"] * 3
    labels = ["ja", "fr", "ja", "fr"] * 3
    data = write_tsv(tmp_path / "u.tsv", documents, labels)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--n-features", N_FEATURES)[0] == 0
    probe = write_lines(tmp_path / "probe.txt", ["日本語", "CAFÉ", "σοφία", ""])
    assert run_cli(capsys, "predict", tmp_path / "m", probe, "-o", tmp_path / "o.csv", "--proba")[0] == 0
    _, predicted, proba = read_csv(tmp_path / "o.csv")
    assert predicted[:3] == ["ja", "fr", "ja"]  # lowercased: CAFÉ is café, σοφία is ΣΟΦΊΑ
    expected = reference(documents, labels)
    np.testing.assert_array_equal(proba, expected.predict_proba(["日本語", "CAFÉ", "σοφία", ""]))


def test_model_file_keeps_the_vectorizer_for_info_and_python(tmp_path, capsys, corpus):
    documents, labels = corpus
    data = write_tsv(tmp_path / "d.tsv", documents, labels)
    run_cli(capsys, "train", data, "-o", tmp_path / "m", "--n-features", 512, "--binary", "--no-lowercase")
    vectorizer = persist.load_vectorizer(tmp_path / "m")
    assert vectorizer.get_params() == HashingVectorizer(
        n_features=512, binary=True, lowercase=False, norm=None, alternate_sign=False).get_params()
    assert main(["info", str(tmp_path / "m")]) == 0
    out = capsys.readouterr().out
    assert "vectorizer:     HashingVectorizer(" in out and "n_features=512" in out and "binary=True" in out


# ------------------------------------------------------------------------- errors
@pytest.mark.parametrize("name, bad, message", [
    ("d.tsv", "spam no tab here", "line 4: no tab (expected label<TAB>text): 'spam no tab here'"),
    ("d.tsv", "\tno label", "line 4: empty label"),
    ("d.jsonl", '{"label": "spam", "text": "unterminated}', "line 4: malformed JSON"),
    ("d.jsonl", '["spam", "text"]', "line 4: expected a JSON object, got an array"),
    ("d.jsonl", '{"label": "spam"}', "line 4: field 'text' is missing"),
    ("d.jsonl", '{"label": "spam", "text": 3}', "line 4: field 'text' is a number, not a string"),
    ("d.jsonl", '{"text": "no label"}', "line 4: field 'label' is missing"),
    ("d.jsonl", '{"label": null, "text": "x"}', "line 4: field 'label' is null, not a string or a number"),
    ("d.jsonl", '{"label": 3, "text": "x"}', "line 4: label is a number, earlier labels are strings"),
    ("d.jsonl", "", "line 4: malformed JSON"),
])  # fmt: skip
@pytest.mark.parametrize("chunk_size", [1, 2, 100])  # 1: the bad line a block of its own
def test_malformed_line_is_one_line_with_its_number(tmp_path, capsys, corpus, name, bad, message, chunk_size):
    documents, labels = corpus
    path = (write_jsonl if name.endswith("jsonl") else write_tsv)(tmp_path / name, documents[:6], labels[:6])
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + bad + "\n" + "".join(lines[3:]), encoding="utf-8")
    status, err = run_cli(capsys, "train", path, "-o", tmp_path / "m", "--chunk-size", chunk_size)
    assert_one_line_error(status, err, f"nbfast train: error: {path} {message}")
    assert not (tmp_path / "m").exists()


def test_invalid_utf8_names_its_line(tmp_path, capsys):
    path = tmp_path / "d.txt"
    path.write_bytes(b"fine\nalso fine\nbad \xff byte\n")
    persist_model = tmp_path / "m"
    write_tsv(tmp_path / "t.tsv", ["a b", "c d"], ["x", "y"])
    assert run_cli(capsys, "train", tmp_path / "t.tsv", "-o", persist_model, "--n-features", 64)[0] == 0
    status, err = run_cli(capsys, "predict", persist_model, path, "-o", tmp_path / "o.csv")
    assert_one_line_error(status, err, f"{path} line 3: not valid UTF-8")
    assert not (tmp_path / "o.csv").exists() and not (tmp_path / "o.csv.partial").exists()


def test_text_with_a_model_trained_on_feature_vectors_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "d.svm").write_bytes(b"1 1:2 3:1\n2 2:1\n")
    assert run_cli(capsys, "train", tmp_path / "d.svm", "-o", tmp_path / "m")[0] == 0
    assert persist.load_vectorizer(tmp_path / "m") is None
    docs = write_lines(tmp_path / "docs.txt", ["some text"])
    status, err = run_cli(capsys, "predict", tmp_path / "m", docs, "-o", tmp_path / "o.csv")
    assert_one_line_error(status, err, f"{docs} is read as text", "was not trained on text")
    assert not (tmp_path / "o.csv").exists()


def test_option_errors(tmp_path, capsys, corpus):
    documents, labels = corpus
    docs = write_lines(tmp_path / "docs.txt", documents)
    assert_one_line_error(*run_cli(capsys, "train", docs, "-o", tmp_path / "m"), "holds no labels to train on",
                          "--format tsv or jsonl")
    (tmp_path / "d.svm").write_bytes(b"1 1:2\n")
    assert_one_line_error(*run_cli(capsys, "train", tmp_path / "d.svm", "-o", tmp_path / "m", "--ngram-max", 2,
                                   "--binary"), "--ngram-max, --binary apply only to text input")
    tsv = write_tsv(tmp_path / "d.tsv", documents, labels)
    assert main(["train", str(tsv), "-o", str(tmp_path / "m"), "--ngram-max", "3"]) == 2  # argparse: usage + error
    assert "argument --ngram-max: invalid choice: 3" in capsys.readouterr().err


def test_entry_point_prints_no_traceback(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"label": "a", "text": "x"}\n{oops\n')
    result = subprocess.run([sys.executable, "-m", "nbfast.cli", "train", str(tmp_path / "bad.jsonl"), "-o",
                             str(tmp_path / "m")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith(f"nbfast train: error: {tmp_path / 'bad.jsonl'} line 2: malformed JSON (")
    assert result.stderr.strip().endswith("'{oops' (read as jsonl by its extension .jsonl; --format reads it as "
                                          "another)")
    assert len(result.stderr.strip().splitlines()) == 1


# --------------------------------------------------------------- model file format
def test_vectorizer_round_trips_and_old_files_have_none(tmp_path):
    X = HashingVectorizer(n_features=64, alternate_sign=False, ngram_range=(1, 2), dtype=np.float32).transform(
        ["a bb cc", "dd ee"])
    model = nbfast.MultinomialNB().fit(X, [0, 1])
    vectorizer = HashingVectorizer(n_features=64, alternate_sign=False, ngram_range=(1, 2), dtype=np.float32,
                                   stop_words=["bb"], norm="l1")
    nbfast.save(model, tmp_path / "m", vectorizer=vectorizer)
    loaded = persist.load_vectorizer(tmp_path / "m")
    assert loaded.get_params() == vectorizer.get_params() and loaded.ngram_range == (1, 2)
    assert loaded.dtype is np.float32
    np.testing.assert_array_equal(nbfast.load(tmp_path / "m").feature_count_, model.feature_count_)
    assert persist.read_info(tmp_path / "m")["vectorizer"].startswith("HashingVectorizer(")
    for path in sorted(Path(__file__).parents[1].glob("data/*.nbf")):
        assert persist.load_vectorizer(path) is None and persist.read_info(path)["vectorizer"] is None


def test_save_refuses_vectorizers_it_cannot_store(tmp_path):
    model = nbfast.MultinomialNB().fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(TypeError, match="not supported"):
        nbfast.save(model, tmp_path / "m", vectorizer=HashingVectorizer(n_features=4, preprocessor=str.upper))
    with pytest.raises(ValueError, match="makes 8 features, the model has 4"):
        nbfast.save(model, tmp_path / "m", vectorizer=HashingVectorizer(n_features=8))
    with pytest.raises(TypeError, match="is not one of nbfast.text.s HashingVectorizer"):
        nbfast.save(model, tmp_path / "m", vectorizer=nbfast.MultinomialNB())
    assert not (tmp_path / "m").exists()


def _set_vectorizer(**changes):
    def edit(header):
        for key, value in changes.items():
            target = header["vectorizer"] if key == "class" else header["vectorizer"]["params"]
            target[key] = value
    return edit


@pytest.mark.parametrize("edit, message", [
    (_set_vectorizer(**{"class": "CountVectorizer"}), "only nbfast.text.s HashingVectorizer, CountVectorizer"),
    (_set_vectorizer(bogus=1), "no parameters ['bogus']"),
    (_set_vectorizer(dtype="object"), "invalid vectorizer dtype"),
    (_set_vectorizer(n_features=8), "makes 8 features, the model has 4"),
    (_set_vectorizer(norm="l3"), "invalid vectorizer: The 'norm' parameter of HashingVectorizer must be"),
    (_set_vectorizer(preprocessor={"__ndarray__": 0}), "invalid array reference"),
    (_set_vectorizer(preprocessor={"__estimator__": {"class": "MultinomialNB", "params": {}}}), "plain JSON"),
    (lambda header: header.update(vectorizer=[1]), "invalid vectorizer entry"),
])  # fmt: skip
def test_bad_vectorizer_entry_is_a_model_format_error(tmp_path, edit, message):
    model = nbfast.MultinomialNB().fit(np.eye(4), [0, 1, 0, 1])
    nbfast.save(model, tmp_path / "m", vectorizer=HashingVectorizer(n_features=4, alternate_sign=False))
    (tmp_path / "bad").write_bytes(_with_header((tmp_path / "m").read_bytes(), edit))
    with pytest.raises(persist.ModelFormatError, match=message.replace("[", r"\[").replace("]", r"\]")):
        persist.load_vectorizer(tmp_path / "bad")


@pytest.mark.parametrize("depth, message", [(900, "nested too deeply"),
                                            (100_000, "unreadable header|far more JSON objects")])
def test_deeply_nested_vectorizer_entry_is_a_model_format_error(tmp_path, depth, message):
    model = nbfast.MultinomialNB().fit(np.eye(4), [0, 1, 0, 1])
    nbfast.save(model, tmp_path / "m", vectorizer=HashingVectorizer(n_features=4, alternate_sign=False))
    raw = (tmp_path / "m").read_bytes()
    header, _, _, data_start = _layout(raw)
    header["vectorizer"]["params"]["stop_words"] = "DEEP"
    text = json.dumps(header).replace('"DEEP"', "[" * depth + "]" * depth)
    (tmp_path / "bad").write_bytes(_raw_header(raw, text) + raw[data_start:])
    with pytest.raises(persist.ModelFormatError, match=message):
        persist.load_vectorizer(tmp_path / "bad")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_idf_weights_are_stored_exactly_and_read_from_format_2_numbers(tmp_path, dtype):
    """Format 3 stores the idf weights as the base64 of their float64 bytes; files of format 2, which hold them as
    JSON numbers, load the same vectorizer."""
    documents = ["aa bb cc", "cc dd", "aa dd ee", "ee ee ff", "bb"]
    vectorizer = TfidfVectorizer(dtype=dtype).fit(documents)
    model = nbfast.MultinomialNB().fit(vectorizer.transform(documents), [0, 1, 0, 1, 1])
    nbfast.save(model, tmp_path / "m", vectorizer=vectorizer)
    raw = (tmp_path / "m").read_bytes()
    header = _layout(raw)[0]
    assert header["format_version"] == persist.FORMAT_VERSION == 3 and set(header["vectorizer"]["idf"]) == {
        "float64_base64"}

    def as_format_2(header):
        header["format_version"] = 2
        idf_as_numbers(header["vectorizer"])

    (tmp_path / "v2").write_bytes(_with_header(raw, as_format_2))
    for path in (tmp_path / "m", tmp_path / "v2"):
        loaded = persist.load_vectorizer(path)
        assert loaded.idf_.dtype == vectorizer.idf_.dtype
        np.testing.assert_array_equal(loaded.idf_, vectorizer.idf_)
        X, expected = loaded.transform(documents), vectorizer.transform(documents)
        assert X.dtype == expected.dtype and (X != expected).nnz == 0


@pytest.mark.parametrize("place", [
    lambda header: idf_as_numbers(header["vectorizer"]).__setitem__(2, "MARK"),  # in a table of floats (format 2)
    lambda header: header["vectorizer"]["params"].update(stop_words=[["x", {"k": [0.5, 2, "MARK"]}]]),
])
def test_infinite_number_in_a_vectorizer_entry_is_a_model_format_error(tmp_path, place):
    """json reads 1e400 as infinity: a header holding one, in a table of floats or deep in lists, is refused."""
    vectorizer = TfidfVectorizer().fit(["aa bb", "cc dd", "aa dd"])
    model = nbfast.MultinomialNB().fit(vectorizer.transform(["aa bb", "cc dd"]), [0, 1])
    nbfast.save(model, tmp_path / "m", vectorizer=vectorizer)
    raw = (tmp_path / "m").read_bytes()
    header, _, _, data_start = _layout(raw)
    place(header)
    (tmp_path / "bad").write_bytes(_raw_header(raw, json.dumps(header).replace('"MARK"', "1e400")) + raw[data_start:])
    with pytest.raises(persist.ModelFormatError, match="the number 1e400 is not a finite float64"):
        persist.load_vectorizer(tmp_path / "bad")


def test_predict_reads_the_model_header_once(tmp_path, capsys, corpus, monkeypatch):
    from nbfast.persist import _model_file

    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--vectorizer", "tfidf")[0] == 0
    reads = []
    read_header = _model_file._read_header
    monkeypatch.setattr(_model_file, "_read_header", lambda f: reads.append(f) or read_header(f))
    assert run_cli(capsys, "predict", tmp_path / "m", data, "-o", tmp_path / "o.csv")[0] == 0
    assert len(reads) == 1


def test_predict_reads_the_input_while_the_model_loads(tmp_path, capsys, corpus, monkeypatch):
    import threading

    from nbfast.persist import ModelFile
    from nbfast.readers import text

    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--vectorizer", "tfidf")[0] == 0
    first_block = threading.Event()
    vectorized, load = text.document_rows, ModelFile.model

    def vectorizing(*args):
        rows = vectorized(*args)
        first_block.set()
        return rows

    def loading(self, **kwargs):
        assert first_block.wait(timeout=30), "the input was not read and vectorized while the model loaded"
        return load(self, **kwargs)

    monkeypatch.setattr(text, "document_rows", vectorizing)
    monkeypatch.setattr(ModelFile, "model", loading)
    assert run_cli(capsys, "predict", tmp_path / "m", data, "-o", tmp_path / "o.csv")[0] == 0
    expected = nbfast.load(tmp_path / "m").predict(persist.load_vectorizer(tmp_path / "m").transform(documents))
    np.testing.assert_array_equal(read_csv(tmp_path / "o.csv")[1], expected)


@pytest.mark.parametrize("model", ["multinomial", "complement"])
def test_training_on_text_and_predicting_import_no_scipy_sparse(tmp_path, capsys, corpus, model):
    """The vectorizer's rows are counted and scored as they are: no scipy matrix, so scipy.sparse (whose import
    costs more than all of nbfast's) is never imported; the model is the one trained from scipy matrices."""
    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    lines = write_lines(tmp_path / "new.txt", documents)
    code = ("import sys\n"
            "from nbfast.cli import main\n"
            f"assert main(['train', {str(data)!r}, '-o', {str(tmp_path / 'm')!r}, '--vectorizer', 'tfidf', "
            f"'--model', {model!r}, '--chunk-size', '70']) == 0\n"
            "assert 'scipy.sparse' not in sys.modules, 'scipy.sparse was imported by train'\n"
            f"assert main(['predict', {str(tmp_path / 'm')!r}, {str(lines)!r}, '--proba', "
            f"'-o', {str(tmp_path / 'o.csv')!r}]) == 0\n"
            "assert 'scipy.sparse' not in sys.modules, 'scipy.sparse was imported by predict'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    fitted, X = nbfast.load(tmp_path / "m"), persist.load_vectorizer(tmp_path / "m").transform(documents)
    expected = type(fitted)().fit(X, np.asarray(labels).astype(fitted.classes_.dtype))
    np.testing.assert_array_equal(fitted.feature_count_, expected.feature_count_)
    np.testing.assert_array_equal(fitted.class_count_, expected.class_count_)
    _, predicted, proba = read_csv(tmp_path / "o.csv")
    np.testing.assert_array_equal(predicted, fitted.predict(X))
    np.testing.assert_array_equal(proba, fitted.predict_proba(X))


def test_predict_reads_the_header_and_starts_without_the_estimators(tmp_path, capsys, corpus):
    """The estimators load with the model's arrays, while the input is read: not at start-up."""
    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--vectorizer", "tfidf")[0] == 0
    code = ("import sys\n"
            "import nbfast.cli.predict\n"
            "from nbfast.persist import ModelFile\n"
            f"with ModelFile({str(tmp_path / 'm')!r}) as model_file:\n"
            "    model_file.vectorizer(), model_file.training_input()\n"
            "    assert 'nbfast.naive_bayes' not in sys.modules, 'the estimators were imported'\n"
            "    model_file.model()\n"
            "assert 'nbfast.naive_bayes' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_text_model_saved_without_its_vectorizer_names_both_ways_to_store_one(tmp_path, capsys, corpus):
    documents, labels = corpus
    vectorizer = HashingVectorizer(n_features=N_FEATURES, alternate_sign=False, norm=None)
    model = nbfast.MultinomialNB().fit(vectorizer.transform(documents), labels)
    nbfast.save(model, tmp_path / "m.nbf")  # no vectorizer=
    docs = write_lines(tmp_path / "docs.txt", documents)
    status, err = run_cli(capsys, "predict", tmp_path / "m.nbf", docs, "-o", tmp_path / "o.csv")
    assert_one_line_error(status, err, f"{docs} is read as text", "`nbfast train`",
                          "nbfast.save(model, path, vectorizer=vectorizer)")
