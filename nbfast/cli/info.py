"""``nbfast info PATH``: describe a model file from its header, without loading its arrays."""

from nbfast.cli._errors import positive_int
from nbfast.cli.explain import print_top_features
from nbfast.persist import load, load_vectorizer, read_info
from nbfast.persist._info import shorten

_MAX_SHOWN = 20


def add_arguments(parser):
    parser.add_argument("path", help="a model file written by nbfast.save")
    parser.add_argument("--top-features", type=positive_int, metavar="N",
                        help="also list, for every class, the N features that most raise its log-odds (loads the "
                             "model)")


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
    if info["fitted_numbers"]:
        print("fitted:         " + ", ".join(f"{k}={v:.6g}" for k, v in info["fitted_numbers"].items()))
    if info["training_input"] is not None:
        print(f"trained on:     {info['training_input']}")
    if info["vectorizer"] is not None:
        print(f"vectorizer:     {info['vectorizer']}")
    if args.top_features:
        print()
        print_top_features(load(args.path), load_vectorizer(args.path), args.top_features, as_json=False)
    return 0
