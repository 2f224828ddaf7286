"""ROUGE-L, exactly as ``rouge_score`` computes it, but fast enough for linking and large sets.

Tokens come from ``rouge_score``'s own tokenizer (lower-case, alphanumeric runs, Porter stemming of
words longer than 3 characters) with the stemmer memoised; the longest common subsequence is computed
with the bit-parallel algorithm of Hyyrö (2004) on Python integers, which gives the same LCS length as
the dynamic programme in ``rouge_score`` at a fraction of the cost. ``tests/test_linking.py`` pins
the equality with ``rouge_score.rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)``.

Also here: the lexical privacy baseline (seed 000 §2.5): ``1 - ROUGE-L(original, linked record)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem import porter

    return porter.PorterStemmer()


@lru_cache(maxsize=200_000)
def _stem(token: str) -> str:
    return _porter().stem(token)


def rouge_tokens(text: str, stem: bool = True) -> list[str]:
    """``rouge_score.tokenize.tokenize`` with a memoised Porter stemmer."""
    tokens = _NON_ALNUM.sub(" ", text.lower()).split()
    if stem:
        tokens = [_stem(t) if len(t) > 3 else t for t in tokens]
    return [t for t in tokens if t]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (bit-parallel, O(len(b)) big-integer operations)."""
    if not a or not b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    masks: dict[str, int] = {}
    for i, tok in enumerate(a):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for tok in b:
        u = v & masks.get(tok, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


@dataclass(frozen=True)
class RougeL:
    precision: float
    recall: float
    fmeasure: float


def rouge_l(target: Sequence[str] | str, prediction: Sequence[str] | str) -> RougeL:
    """ROUGE-L with ``rouge_score``'s conventions: recall = LCS / len(target), precision = LCS / len(prediction)."""
    t = rouge_tokens(target) if isinstance(target, str) else list(target)
    p = rouge_tokens(prediction) if isinstance(prediction, str) else list(prediction)
    if not t or not p:
        return RougeL(0.0, 0.0, 0.0)
    lcs = lcs_length(t, p)
    precision, recall = lcs / len(p), lcs / len(t)
    f = 0.0 if lcs == 0 else 2 * precision * recall / (precision + recall)
    return RougeL(precision, recall, f)


def lexical_privacy(original: str, linked: str | None, aux_claims: Sequence[str] = (), variant: str = "paper") -> float:
    """The lexical baseline for one record; higher is more private.

    ``variant="paper"`` (default, seed 000 §2.5): ``1 - ROUGE-L F`` between the original record and the
    linked sanitized record. ``variant="release"`` (the released code): drop from the original, for each
    known claim, the sentence with the highest ROUGE-L recall of that claim, then ``1 - ROUGE-L recall``
    with the remaining original as the target. An unlinked record (``linked=None``) or an empty one
    scores 1.0: nothing of the original is in it.
    """
    if variant not in ("paper", "release"):
        raise ValueError(f"lexical privacy variant must be 'paper' or 'release', got {variant!r}")
    if not linked or not linked.strip():
        return 1.0
    if variant == "paper":
        return 1.0 - rouge_l(original, linked).fmeasure
    from textleak.claims import split_sentences

    sentences = split_sentences(original)
    for claim in aux_claims:
        if not sentences:
            break
        claim_tokens = rouge_tokens(claim)
        best = max(range(len(sentences)), key=lambda j: rouge_l(claim_tokens, rouge_tokens(sentences[j])).recall)
        sentences.pop(best)
    remaining = " ".join(sentences)
    if not rouge_tokens(remaining):
        return 1.0
    return 1.0 - rouge_l(remaining, linked).recall
