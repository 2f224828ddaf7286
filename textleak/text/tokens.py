"""Tokens: ``rouge_score``'s tokenisation (the one ROUGE tokenizer of the package) and word windows."""

from __future__ import annotations

import re
from functools import lru_cache

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem import porter

    return porter.PorterStemmer()


@lru_cache(maxsize=200_000)
def _stem(token: str) -> str:
    return _porter().stem(token)


def rouge_tokens(text: str, stem: bool = True) -> list[str]:
    """``rouge_score.tokenize.tokenize`` (lower-case alphanumeric runs, Porter stemming of words longer
    than 3 characters) with a memoised stemmer; ``tests`` pin the equality with ``rouge_score``."""
    tokens = _NON_ALNUM.sub(" ", text.lower()).split()
    if stem:
        tokens = [_stem(t) if len(t) > 3 else t for t in tokens]
    return [t for t in tokens if t]


def word_windows(sentence: str, size: int = 8, stride: int = 4) -> list[str]:
    """Runs of ``size`` words every ``stride`` words; none when the sentence is that short already."""
    words = sentence.split()
    if size <= 0 or len(words) <= size:
        return []
    return [" ".join(words[k : k + size]) for k in range(0, len(words) - size + stride, stride)]
