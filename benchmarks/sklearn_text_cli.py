"""The scikit-learn + pandas side of ``nbfast bench --cli``: the script a user would write.

``python benchmarks/sklearn_text_cli.py train TRAIN.tsv -o MODEL.joblib`` fits
``make_pipeline(TfidfVectorizer(), MultinomialNB())`` on label<TAB>text lines and
saves it with joblib; ``python benchmarks/sklearn_text_cli.py predict MODEL.joblib
DOCS.tsv -o LABELS.csv`` loads it and writes one label per line after a ``label``
header (as ``nbfast predict`` does), reading the documents in chunks of 100,000.
"""

import argparse
import csv

import joblib
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

CHUNK_SIZE = 100_000
_READ = dict(sep="\t", header=None, names=["label", "text"], quoting=csv.QUOTE_NONE, dtype=str,
             keep_default_na=False)


def train(args):
    frame = pd.read_csv(args.input, **_READ)
    pipeline = make_pipeline(TfidfVectorizer(), MultinomialNB()).fit(frame["text"], frame["label"])
    joblib.dump(pipeline, args.output)


def predict(args):
    pipeline = joblib.load(args.model)
    with open(args.output, "w") as out:
        out.write("label\n")
        for chunk in pd.read_csv(args.input, chunksize=CHUNK_SIZE, **_READ):
            pd.Series(pipeline.predict(chunk["text"])).to_csv(out, index=False, header=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    train_parser = commands.add_parser("train")
    train_parser.add_argument("input")
    train_parser.add_argument("-o", "--output", required=True)
    predict_parser = commands.add_parser("predict")
    predict_parser.add_argument("model")
    predict_parser.add_argument("input")
    predict_parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    (train if args.command == "train" else predict)(args)


if __name__ == "__main__":
    main()
