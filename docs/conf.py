"""Sphinx configuration of nbfast's documentation: ``sphinx-build -W -b html docs docs/_build/html``."""

from numpydoc.xref import DEFAULT_LINKS

import nbfast

project = "nbfast"
author = "the nbfast developers"
copyright = "2026, the nbfast developers"
release = version = nbfast.__version__

extensions = [
    "myst_parser",               # the guide's pages are Markdown
    "numpydoc",                  # the docstrings are numpydoc
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples/GALLERY_HEADER.rst", "examples/*.py", "**/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.ipynb", "auto_examples/*.zip"]
templates_path = ["_templates"]
myst_heading_anchors = 3         # [text](page.md#a-heading) links resolve
suppress_warnings = ["myst.header"]  # pages moved from the README keep their heading levels

autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False  # the class template lists the members
numpydoc_class_members_toctree = False
# Types such as "ndarray of shape (n_features_in_,)" become cross-references (as scikit-learn's docs do), not
# reST targets; the words of the phrase are left as text.
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
# numpydoc's default links point into Python's and numpy's inventories: the build never fetches them (it
# needs no network), so those words stay plain object references too.
numpydoc_xref_aliases = {word: word for word in DEFAULT_LINKS}

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "matplotlib_animations": False,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = "nbfast"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = ["_static"]
html_css_files = ["nbfast.css"]  # a wider content column; long code lines scroll
# Pages without children would show an empty "Section Navigation" sidebar: hide it there.
html_sidebars = {"getting-started": [], "performance": [], "architecture": []}


def skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Members inherited from scikit-learn's base classes (parameters, metadata routing) are documented there."""
    if (getattr(obj, "__module__", None) or "").startswith("sklearn."):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_scikit_learn_members)
