"""``nbfast info PATH``: describe a model file from its header, without loading its arrays."""

from nbfast.persist import read_info
from nbfast.persist._info import shorten

_MAX_SHOWN = 20


def add_arguments(parser):
    parser.add_argument("path", help="a model file written by nbfast.save")


def _listed(items, display):
    """The first _MAX_SHOWN items as ``display`` shows them, then how many more there are (the header is a
    stranger's: it may hold a million of them)."""
    shown = ", ".join(display(item) for item in items[:_MAX_SHOWN])
    return shown + (f", ... ({len(items) - _MAX_SHOWN} more)" if len(items) > _MAX_SHOWN else "")


def run(args):
    info = read_info(args.path)
    classes = info["classes"]
    print(f"file:           {args.path}")
    print(f"format version: {info['format_version']} (written by nbfast {info['nbfast_version']})")
    print(f"class:          {info['class']}")
    print("parameters:     " + (_listed(list(info["params"].items()), lambda kv: f"{kv[0]}={kv[1]}") or "(none)"))
    print(f"classes ({len(classes)}):    " + _listed(classes, lambda c: shorten(repr(c), 60)))
    print(f"features:       {shorten(str(info['n_features_in']), 60)}" + (" (named)" if info["has_feature_names"]
                                                                        else ""))
    print(f"arrays:         {info['n_arrays']}, {info['data_nbytes']:,} bytes")
    if info["vectorizer"] is not None:
        print(f"vectorizer:     {info['vectorizer']}")
    return 0
