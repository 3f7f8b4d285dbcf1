"""``nbfast info PATH``: describe a model file from its header, without loading its arrays."""

from nbfast.persist import read_info

_MAX_CLASSES_SHOWN = 20


def add_arguments(parser):
    parser.add_argument("path", help="a model file written by nbfast.save")


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
    return 0
