"""Tokens: ``rouge_score``'s tokenisation (the one ROUGE tokenizer of the package) and word windows."""

from __future__ import annotations

import re
from functools import lru_cache

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
# scripts rouge_score drops entirely (it keeps a-z and 0-9 only): ideographs, kana, hangul and Thai one
# character per token (no spaces between words), other non-Latin letters as words. Accented Latin letters
# are not here: rouge_score drops them ("cafe" from "café" gives "caf") and so do we.
_CHAR_SCRIPTS = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD_SCRIPTS = "\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u0900-\u0dff\u10a0-\u10ff"
_TOKENS_ANY_SCRIPT = re.compile(rf"[a-z0-9]+|[{_CHAR_SCRIPTS}]|[{_WORD_SCRIPTS}]+")


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem import porter

    return porter.PorterStemmer()


@lru_cache(maxsize=200_000)
def _stem(token: str) -> str:
    return _porter().stem(token)


def rouge_tokens(text: str, stem: bool = True) -> list[str]:
    """``rouge_score.tokenize.tokenize`` (lower-case alphanumeric runs, Porter stemming of words longer
    than 3 characters) with a memoised stemmer; ``tests`` pin the equality with ``rouge_score``.

    One extension, for text in scripts rouge_score drops entirely: Chinese, Japanese, Korean and Thai
    characters become one token each and Cyrillic, Greek, Arabic, Hebrew, Indic and similar words one
    token per word, so a verbatim non-English claim is not scored as unsupported (which would read as
    privacy). ASCII and Latin-script text is tokenised exactly as rouge_score does."""
    lowered = text.lower()
    if lowered.isascii():
        tokens = _NON_ALNUM.sub(" ", lowered).split()
    else:
        tokens = _TOKENS_ANY_SCRIPT.findall(lowered)
    if stem:
        tokens = [_stem(t) if len(t) > 3 and t.isascii() else t for t in tokens]
    return [t for t in tokens if t]


def word_windows(sentence: str, size: int = 8, stride: int = 4) -> list[str]:
    """Runs of ``size`` words every ``stride`` words; none when the sentence is that short already."""
    words = sentence.split()
    if size <= 0 or len(words) <= size:
        return []
    return [" ".join(words[k : k + size]) for k in range(0, len(words) - size + stride, stride)]
