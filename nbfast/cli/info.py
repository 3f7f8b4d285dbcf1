"""``nbfast info PATH``: describe a model file from its header, without loading its arrays.

Every string the file stores is shown through :func:`~nbfast.persist._info.shorten`: control characters
escaped, long fields cut, so that a crafted file cannot drive the terminal or fake a line.
"""

from nbfast.cli._alpha_search import score_table
from nbfast.cli._errors import positive_int
from nbfast.cli.explain import shown_feature_names, unnamed_note
from nbfast.explanation import top_features
from nbfast.persist import load, load_vectorizer, read_info
from nbfast.persist._info import shorten

_MAX_ITEMS = 20


def add_arguments(parser):
    parser.add_argument("path", help="a model file written by nbfast.save")
    parser.add_argument("--top-features", type=positive_int, metavar="N",
                        help="also list, for every class, the N features that most raise its log-odds (loads the "
                             "model)")


def _listed(items, display):
    """The first _MAX_ITEMS items as ``display`` shows them, then how many more there are (the header is a
    stranger's: it may hold a million of them)."""
    shown = ", ".join(display(item) for item in items[:_MAX_ITEMS])
    return shown + (f", ... ({len(items) - _MAX_ITEMS} more)" if len(items) > _MAX_ITEMS else "")


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
    if info["search"] is not None:
        _print_search(info["search"])
    if info["training_input"] is not None:
        print(f"trained on:     {info['training_input']}")
    if info["vectorizer"] is not None:
        print(f"vectorizer:     {info['vectorizer']}")
    if args.top_features:
        print()
        _print_top_features(args.path, args.top_features)
    return 0


def _print_search(search):
    """The scores of a cross-validated search (a CV estimator's), a row per alpha (the first
    :data:`~nbfast.persist._info.MAX_SEARCH_ROWS`: the count of the others follows)."""
    folds = "cross-validation" if search["n_splits"] is None else f"{search['n_splits']}-fold cross-validation"
    print(f"alpha search:   {folds}, scored by {search['scoring']}")
    for line in score_table(search["scoring"], search["param_alpha"], search["mean_test_score"],
                            search["std_test_score"], search["rank_test_score"]):
        print(f"                {line}")
    shown = len(search["param_alpha"])
    if search["n_alphas"] > shown:
        print(f"                ... ({search['n_alphas'] - shown:,} more alphas)")


def _print_top_features(path, n):
    """The top features of every class, their names (a vocabulary's terms, the model's feature names: stored
    strings too) shown through ``shorten`` (class labels are shown by ``repr``)."""
    model, vectorizer = load(path), load_vectorizer(path)
    top = top_features(model, n=n, feature_names=shown_feature_names(model, vectorizer))
    print(f"features that most raise each class's log-odds against the other classes (top {n}):")
    if not top.named:
        print(unnamed_note(vectorizer))
    print(top.text())
