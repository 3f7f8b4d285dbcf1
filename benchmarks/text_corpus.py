"""A synthetic text corpus for the text benchmarks: short documents of Zipf-distributed
words mixing ASCII, accented Latin, Greek and CJK, with punctuation and digits."""

import numpy as np

ALPHABETS = ["abcdefghijklmnopqrstuvwxyz", "abcdeéèêàçôûüöäß", "αβγδεζηθικλμνξοπρστυφχψω", "的一是不了人我在有他这中大来上个国"]


def make_text_corpus(n_documents=20000, mean_words=40, n_words=20000, random_state=0):
    """Return a list of ``n_documents`` strings of about ``mean_words`` words each."""
    rng = np.random.default_rng(random_state)
    vocabulary = []
    for w in range(n_words):
        alphabet = ALPHABETS[0] if w % 10 < 7 else ALPHABETS[1 + w % 3]
        word = "".join(rng.choice(list(alphabet), size=rng.integers(1, 10)))
        vocabulary.append(word.capitalize() if w % 5 == 0 else word)
    vocabulary = np.array(vocabulary + ["2024", "don't", "e-mail", "foo_bar", "!", ",", "."], dtype=object)
    ranks = np.arange(1, len(vocabulary) + 1)
    p = 1.0 / ranks
    p /= p.sum()
    lengths = rng.poisson(mean_words, size=n_documents)
    words = rng.choice(vocabulary, size=int(lengths.sum()), p=p)
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    return [" ".join(words[bounds[i] : bounds[i + 1]]) for i in range(n_documents)]
