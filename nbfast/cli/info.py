"""``nbfast info PATH``: describe a model file from its header, without loading its arrays."""

from nbfast.cli._errors import positive_int
from nbfast.cli.explain import print_top_features
from nbfast.persist import load, load_vectorizer, read_info

_MAX_CLASSES_SHOWN = 20


def add_arguments(parser):
    parser.add_argument("path", help="a model file written by nbfast.save")
    parser.add_argument("--top-features", type=positive_int, metavar="N",
                        help="also list, for every class, the N features that most raise its log-odds (loads the "
                             "model)")


def run(args):
    info = read_info(args.path)
    classes = info["classes"]
    shown = ", ".join(repr(c) for c in classes[:_MAX_CLASSES_SHOWN])
    if len(classes) > _MAX_CLASSES_SHOWN:
        shown += f", ... ({len(classes) - _MAX_CLASSES_SHOWN} more)"
    print(f"file:           {args.path}")
    print(f"format version: {info['format_version']} (written by nbfast {info['nbfast_version']})")
    print(f"class:          {info['class']}")
    print("parameters:     " + (", ".join(f"{k}={v}" for k, v in info["params"].items()) or "(none)"))
    print(f"classes ({len(classes)}):    " + shown)
    print(f"features:       {info['n_features_in']}" + (" (named)" if info["has_feature_names"] else ""))
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
