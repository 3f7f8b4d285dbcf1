"""A real text corpus from a Debian package index: ``python benchmarks/real_corpus.py PACKAGES OUT.tsv``.

Each binary package of a Debian ``Packages`` index (as apt keeps it under
``/var/lib/apt/lists/``, plain or lz4-compressed) becomes one document labelled
by its ``Section:`` (``admin``, ``libdevel``, ``python``, ...): the text is the
package name, its ``Description:`` (the short description, and the long one
where the index holds it) and its debtags (``Tag:``).  Sections with fewer than
``--min-docs`` packages are dropped.  Bookworm's main index for amd64 gives
63,440 packages; with the default ``--min-docs 100``, 63,083 documents in 50
sections.  Nothing is downloaded: the file is read from the path given.

The output is one document a line, ``label<TAB>text``, in the index's order;
:func:`load` reads it back.  No randomness: the same index gives the same file.
"""

import argparse
import collections
import os
import shutil
import subprocess

#: The index apt keeps on a Debian bookworm machine (main, amd64).
DEFAULT_INDEX = "/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4"


def read_index(path):
    """The text of a Packages index, decompressing a ``.lz4`` file with the ``lz4`` package or command."""
    if not path.endswith(".lz4"):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    try:
        import lz4.frame
    except ImportError:
        if shutil.which("lz4") is None:
            raise RuntimeError(f"{path} is lz4-compressed: install the lz4 command or the python lz4 package, "
                               "or pass a decompressed copy") from None
        raw = subprocess.run(["lz4", "-dc", path], check=True, capture_output=True).stdout
    else:
        with lz4.frame.open(path, "rb") as f:
            raw = f.read()
    return raw.decode("utf-8", errors="replace")


def packages(text):
    """(section, document) of every package of an index's text that has both."""
    for stanza in text.split("\n\n"):
        fields, name = {}, None
        for line in stanza.splitlines():
            if line.startswith((" ", "\t")):
                if name is not None:  # a continuation line: the long description, or more tags
                    fields[name] += " " + line.strip(" \t.")
            elif ":" in line:
                name, value = line.split(":", 1)
                fields[name] = value.strip()
        section, description = fields.get("Section"), fields.get("Description")
        if section and description:
            section = section.rsplit("/", 1)[-1]  # contrib/games, non-free/net: the section itself
            text = " ".join(filter(None, (fields.get("Package", ""), description, fields.get("Tag", ""))))
            yield section, " ".join(text.split())  # one line, single spaces (no tabs)


def build(path=DEFAULT_INDEX, min_docs=100):
    """(labels, documents) of the index at ``path``, sections of fewer than ``min_docs`` packages dropped."""
    rows = list(packages(read_index(path)))
    counts = collections.Counter(section for section, _ in rows)
    kept = [(section, text) for section, text in rows if counts[section] >= min_docs]
    return [section for section, _ in kept], [text for _, text in kept]


def write(labels, documents, out):
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(f"{label}\t{text}\n" for label, text in zip(labels, documents))


def cached(path="debian_packages.tsv", index=DEFAULT_INDEX, min_docs=100):
    """(labels, documents) of the file at ``path``, written first from ``index`` when it does not exist."""
    if not os.path.exists(path):
        write(*build(index, min_docs), path)
    return load(path)


def load(path):
    """(labels, documents) of a file written by this script."""
    labels, documents = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            label, text = line.rstrip("\n").split("\t", 1)
            labels.append(label)
            documents.append(text)
    return labels, documents


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index", nargs="?", default=DEFAULT_INDEX, help="a Debian Packages file (.lz4 or plain)")
    parser.add_argument("out", nargs="?", default="debian_packages.tsv", help="where to write label<TAB>text")
    parser.add_argument("--min-docs", type=int, default=100, help="drop sections with fewer packages")
    args = parser.parse_args()
    labels, documents = build(args.index, args.min_docs)
    write(labels, documents, args.out)
    print(f"{len(documents):,} documents, {len(set(labels))} sections -> {args.out}")


if __name__ == "__main__":
    main()
