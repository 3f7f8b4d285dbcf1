"""``nbfast bench --cli``: whole processes on raw text, ``nbfast train`` / ``nbfast predict`` against a
scikit-learn + pandas script.

A corpus of short documents (:func:`nbfast.datasets.make_text_documents` with a
few to about 15 words per document, 40 classes and a Zipf vocabulary of 50,000
words) is written as label<TAB>text files: ``--n-samples`` documents to label
and a tenth as many to train on.  Each side then runs as its own process,
alternately, ``--repeats`` times, and the medians are reported, with each
process's peak resident memory (``getrusage`` of the child):

* ``nbfast train TRAIN.tsv --vectorizer tfidf -o MODEL.nbf`` and
  ``nbfast predict MODEL.nbf DOCS.tsv -o LABELS.csv``;
* ``benchmarks/sklearn_text_cli.py`` of the source tree (pandas reads the
  file, ``make_pipeline(TfidfVectorizer(), MultinomialNB())`` is fitted and
  saved with joblib; predict loads it and labels chunks of 100,000 documents).

The two label files must be identical.

``--documents FILE`` times real text instead: the ``label<TAB>text`` lines of FILE are the training file, and
the same lines, repeated up to ``--n-samples``, the documents to label.

Before timing, nbfast's bytecode is written where it is missing or stale, as
installing a package does: scikit-learn and pandas are installed with theirs,
while a source checkout run with ``PYTHONDONTWRITEBYTECODE=1`` would compile
every nbfast module again in every timed process.
"""

import compileall
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import nbfast
from nbfast.cli.bench._harness import DOCS_PER_S, LIBRARY, PEAK_MIB, SECONDS, SPEEDUP, column, machine_info, print_rows
from nbfast.datasets import make_text_documents

#: The script of the scikit-learn side, in the source tree (it is not installed with the package).
SKLEARN_SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "sklearn_text_cli.py"
DEFAULTS = {"n_samples": 940_000, "n_classes": 40}
#: The corpus: short documents (Poisson lengths, at least one word), a Zipf vocabulary.
CORPUS = {"mean_length": 8, "n_words": 50_000, "class_separation": 0.3}
TRAIN_FRACTION = 10  # one training document per TRAIN_FRACTION documents to label
# Options of the other benchmarks, refused with --cli: (attribute, flag).
OTHER_OPTIONS = (("estimator", "--estimator"), ("dtype", "--dtype"), ("batch_size", "--batch-size"),
                 ("plot", "--plot"), ("corpus", "--corpus"), ("n_features", "--n-features"), ("text", "--text"))
_OWN_RATE = re.compile(r"\(([\d,]+) rows/s\)")  # the rate in nbfast's closing line


def run(args):
    """Time the whole-process benchmark and print its table (or JSON with ``--json``); return the exit status."""
    _check_args(args)
    log = sys.stderr if args.json else sys.stdout
    if not compile_package(Path(nbfast.__file__).parent):
        print("nbfast's bytecode could not all be written: its processes compile what is missing as they start",
              file=log, flush=True)
    with tempfile.TemporaryDirectory(prefix="nbfast-bench-") as folder:
        folder = Path(folder)
        if args.documents:
            print(f"Copying {args.documents} to train on, and repeating it to {args.n_samples:,} documents to label "
                  "...", file=log, flush=True)
            corpus = copy_corpus(folder, args.documents, args.n_samples)
        else:
            print(f"Writing {args.n_samples:,} documents to label and {args.n_samples // TRAIN_FRACTION:,} to train "
                  f"on, {args.n_classes} classes ...", file=log, flush=True)
            corpus = write_corpus(folder, args.n_samples, args.n_classes, args.seed)
        report = {"machine": {**machine_info(None, None), "busy": args.busy}, "corpus": corpus,
                  "repeats": args.repeats, "results": []}
        if args.threads:
            report["scaling"] = time_scaling(folder, args.threads, args.repeats, corpus, log)
            _print(report, args.json, print_scaling)
            return 0
        commands = _commands(folder)
        sides = [side for side in ("nbfast", "scikit-learn") if side in commands["train"]]
        for operation in ("train", "predict"):
            print(f"timing {operation}: {' and '.join(sides)}, alternately, {args.repeats} runs each ...", file=log,
                  flush=True)
            report["results"].extend(time_processes(operation, commands[operation], args.repeats,
                                                    corpus["n_train" if operation == "train" else "n_predict"]))
        if "scikit-learn" in sides:
            report["labels_identical"] = (folder / "nbfast.csv").read_bytes() == (folder / "scikit-learn.csv").read_bytes()
    _print(report, args.json, print_table)
    return 0 if report.get("labels_identical", True) else 1


def _print(report, as_json, print_report):
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)


def _check_args(args):
    given = [flag for name, flag in OTHER_OPTIONS if getattr(args, name, None) not in (None, False)]
    if given:
        raise ValueError(f"{', '.join(given)}: not an option of --cli (which times whole nbfast and scikit-learn "
                         "processes on raw text)")
    if args.documents and args.n_classes is not None:
        raise ValueError("--n-classes: the classes of --documents are its labels")
    for name, value in DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.n_samples < TRAIN_FRACTION or args.n_classes < 2:
        raise ValueError(f"--cli needs --n-samples of at least {TRAIN_FRACTION} and --n-classes of at least 2")


def compile_package(folder):
    """Write the bytecode of every module under ``folder`` where it is missing or stale (``compileall``, as
    installing a package does), whatever ``PYTHONDONTWRITEBYTECODE`` says; whether all of it could be."""
    return bool(compileall.compile_dir(folder, quiet=2))


def write_corpus(folder, n_predict, n_classes, seed):
    """Write train.tsv and predict.tsv (label<TAB>text lines, labels ``c00``, ``c01``, ...) in ``folder``."""
    n_train = n_predict // TRAIN_FRACTION
    documents, y = make_text_documents(n_train + n_predict, n_classes, random_state=seed, **CORPUS)
    names = np.array([f"c{label:02d}" for label in range(n_classes)])[y].tolist()
    for name, rows in (("train.tsv", slice(0, n_train)), ("predict.tsv", slice(n_train, None))):
        with open(folder / name, "w", encoding="utf-8") as f:
            f.write("".join(f"{label}\t{text}\n" for label, text in zip(names[rows], documents[rows])))
    return {"n_train": n_train, "n_predict": n_predict, "n_classes": n_classes, "seed": seed, **CORPUS,
            "predict_bytes": os.path.getsize(folder / "predict.tsv")}


def copy_corpus(folder, path, n_predict):
    """Write train.tsv, the ``label<TAB>text`` lines of the file ``path``, and predict.tsv, those lines repeated
    up to ``n_predict`` (ValueError for an empty file or a line without a tab)."""
    lines = Path(path).read_bytes().splitlines()
    if not lines:
        raise ValueError(f"--documents {path}: the file is empty")
    untabbed = next((number for number, line in enumerate(lines, 1) if b"\t" not in line), None)
    if untabbed is not None:
        raise ValueError(f"--documents {path}: line {untabbed} has no tab (the lines are label<TAB>text)")
    (folder / "train.tsv").write_bytes(b"".join(line + b"\n" for line in lines))
    with open(folder / "predict.tsv", "wb") as f:
        for start in range(0, n_predict, len(lines)):
            f.write(b"".join(line + b"\n" for line in lines[:n_predict - start]))
    return {"documents": str(path), "n_train": len(lines), "n_predict": n_predict,
            "n_classes": len({line.split(b"\t", 1)[0].strip() for line in lines}),
            "predict_bytes": os.path.getsize(folder / "predict.tsv")}


def time_scaling(folder, counts, repeats, corpus, log):
    """nbfast's train and predict processes with ``-j`` each of ``counts``, alternately: a row per operation and
    count, with the speed-up over the first count and the serial share (:func:`serial_share`), of the whole
    process and of its work: its time less the start-up, the same command's on an input of a few lines
    (the interpreter, the imports, the model and its output files: what no thread count shrinks)."""
    commands = _commands(folder, with_sklearn=False)
    startup_commands = _startup_commands(folder)
    rows = []
    for operation in ("train", "predict"):  # train first: predict reads its model
        print(f"timing nbfast {operation} with {', '.join(map(str, counts))} thread(s), alternately, {repeats} runs "
              "each, and its start-up ...", file=log, flush=True)
        runs = {n: [] for n in counts}
        startups = []
        for _ in range(repeats):
            for n in counts:
                runs[n].append(run_process(commands[operation]["nbfast"] + ["-j", str(n)])[0])
            startups.append(run_process(startup_commands[operation])[0])
        n_documents = corpus["n_train" if operation == "train" else "n_predict"]
        startup = statistics.median(startups)
        first = statistics.median(runs[counts[0]])
        for n in counts:
            seconds = statistics.median(runs[n])
            work, first_work = max(seconds - startup, 1e-9), max(first - startup, 1e-9)
            rows.append({"operation": operation, "threads": n, "seconds": seconds, "times": runs[n],
                         "docs_per_s": n_documents / seconds, "speedup": first / seconds,
                         "serial_share": serial_share(first, seconds, counts[0], n), "startup_seconds": startup,
                         "work_speedup": first_work / work,
                         "work_serial_share": serial_share(first_work, work, counts[0], n)})
    return rows


def _startup_commands(folder):
    """{operation: argv} of train and predict on a few lines: the start-up of the commands of :func:`_commands`
    (predict reads the model trained on the whole training file)."""
    lines = (folder / "train.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "startup-train.tsv").write_text("".join(lines[:100]), encoding="utf-8")
    (folder / "startup-predict.tsv").write_text(lines[0], encoding="utf-8")
    nbfast = [sys.executable, "-m", "nbfast.cli"]
    return {"train": nbfast + ["train", str(folder / "startup-train.tsv"), "--vectorizer", "tfidf", "-o",
                               str(folder / "startup-model.nbf")],
            "predict": nbfast + ["predict", str(folder / "model.nbf"), str(folder / "startup-predict.tsv"), "-o",
                                 str(folder / "startup.csv")]}


def serial_share(first_seconds, seconds, first_threads, n_threads):
    """The share of a ``first_threads`` run that did not shrink with more threads, as Amdahl's law gives it from
    two runs (the Karp-Flatt metric): ``(r - 1/k) / (1 - 1/k)``, ``r`` the time ratio and ``k`` the ratio of the
    thread counts; None for the same count."""
    k = n_threads / first_threads
    if k == 1:
        return None
    return (seconds / first_seconds - 1 / k) / (1 - 1 / k)


def print_scaling(report):
    corpus, machine = report["corpus"], report["machine"]
    print(f"\nScaling of whole nbfast processes on {_described(corpus)}: {corpus['n_predict']:,} documents to "
          f"label, {corpus['n_train']:,} to train on, {corpus['n_classes']} classes; {machine.get('cpu', 'this machine')}, "
          f"{machine.get('nproc', '?')} CPUs; medians of {report['repeats']} alternate runs"
          f"{', a busy core beside' if machine['busy'] else ''}")

    def share(key):
        return lambda r: "" if r[key] is None else f"{r[key]:.0%}"

    print_rows(report["scaling"], [
        column("operation", "<10"), column("threads", ">7"), SECONDS, DOCS_PER_S,
        column("speed-up", ">10", lambda r: f"{r['speedup']:.2f}x"), column("serial share", ">14", share("serial_share")),
        column("start-up s", ">11", lambda r: f"{r['startup_seconds']:.3f}"),
        column("work speed-up", ">15", lambda r: f"{r['work_speedup']:.2f}x"),
        column("work serial", ">13", share("work_serial_share")),
    ])
    print("speed-up: over the first count; serial share: the part of that run that more threads did not shrink "
          "(Amdahl's law fitted to the two runs); start-up: the same command on a few lines; work: the run less "
          "its start-up")


def _described(corpus):
    """What the documents of ``corpus`` (a report's) are, for a table's title."""
    return f"the text of {corpus['documents']}" if "documents" in corpus else "raw text"


def _commands(folder, with_sklearn=True):
    """{operation: {side: argv}}; the scikit-learn side only when its script and scikit-learn are there."""
    nbfast = [sys.executable, "-m", "nbfast.cli"]
    commands = {
        "train": {"nbfast": nbfast + ["train", str(folder / "train.tsv"), "--vectorizer", "tfidf", "-o",
                                      str(folder / "model.nbf")]},
        "predict": {"nbfast": nbfast + ["predict", str(folder / "model.nbf"), str(folder / "predict.tsv"), "-o",
                                        str(folder / "nbfast.csv")]},
    }
    if not with_sklearn:
        return commands
    if SKLEARN_SCRIPT.is_file() and _sklearn_script_runs():
        script = [sys.executable, str(SKLEARN_SCRIPT)]
        commands["train"]["scikit-learn"] = script + ["train", str(folder / "train.tsv"), "-o",
                                                      str(folder / "model.joblib")]
        commands["predict"]["scikit-learn"] = script + ["predict", str(folder / "model.joblib"),
                                                        str(folder / "predict.tsv"), "-o", str(folder / "scikit-learn.csv")]
    else:
        print(f"scikit-learn side left out: it needs {SKLEARN_SCRIPT} (the source tree), scikit-learn and pandas",
              file=sys.stderr)
    return commands


def _sklearn_script_runs():
    """Whether the scikit-learn script starts (what it imports is installed)."""
    return subprocess.run([sys.executable, str(SKLEARN_SCRIPT), "--help"], capture_output=True).returncode == 0


def run_process(argv):
    """Run ``argv``; return (wall seconds, peak resident bytes, standard error).  A failure raises RuntimeError.

    The command is started by a small Python process that times it and reads its peak memory
    (``getrusage`` of its child): a child of this process would count the memory of the benchmark,
    which holds the corpus, at the fork.
    """
    launched = subprocess.run([sys.executable, "-c", _LAUNCHER, *argv], capture_output=True)
    stderr = launched.stderr.decode(errors="replace")
    if launched.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({launched.returncode}):\n{stderr}")
    seconds, max_rss_kib = launched.stdout.split()
    return float(seconds), int(max_rss_kib) * 1024, stderr


#: What starts, times and measures each command (see run_process); exits with the command's status.
_LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def time_processes(operation, commands, repeats, n_documents):
    """Run each side's command ``repeats`` times, alternately; a result row per side (nbfast's first)."""
    runs = {side: [] for side in commands}
    for _ in range(repeats):
        for side, argv in commands.items():
            runs[side].append(run_process(argv))
    rows = []
    for side, results in runs.items():
        seconds = statistics.median(r[0] for r in results)
        row = {"operation": operation, "library": side, "seconds": seconds, "times": [r[0] for r in results],
               "docs_per_s": n_documents / seconds, "peak_bytes": max(r[1] for r in results)}
        own = [_OWN_RATE.search(r[2]) for r in results]
        if all(own):
            row["own_docs_per_s"] = statistics.median(int(m[1].replace(",", "")) for m in own)
        rows.append(row)
    if len(rows) == 2:
        rows[0]["speedup"] = rows[1]["seconds"] / rows[0]["seconds"]
    return rows


def print_table(report):
    corpus, machine = report["corpus"], report["machine"]
    print(f"\nWhole processes on {_described(corpus)}: {corpus['n_predict']:,} documents to label "
          f"({corpus['predict_bytes'] / 1e6:.0f} MB), {corpus['n_train']:,} to train on, {corpus['n_classes']} "
          f"classes; medians of {report['repeats']} alternate runs{', a busy core beside' if machine['busy'] else ''}")
    own = column("own docs/s", ">12", lambda r: f"{r['own_docs_per_s']:,.0f}" if "own_docs_per_s" in r else "")
    print_rows(report["results"], [column("operation", "<10"), LIBRARY, SECONDS, DOCS_PER_S, own, PEAK_MIB, SPEEDUP])
    if "labels_identical" in report:
        print(f"labels identical: {'yes' if report['labels_identical'] else 'NO'}")
    print("docs/s: whole process, start-up included; own docs/s: the rate nbfast reports for its rows")
