"""The longest common subsequence and ROUGE-L, exactly as ``rouge_score`` computes them, but fast.

The LCS length is computed with the bit-parallel algorithm of Hyyrö (2004) on Python integers, which
gives the same length as the dynamic programme in ``rouge_score`` at a fraction of the cost.
:class:`LCSIndex` keeps one sequence's bit masks so that many queries against it (linking by ROUGE-L)
pay for them once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


class LCSIndex:
    """Bit masks of one token sequence, for repeated LCS queries against it."""

    __slots__ = ("masks", "full", "length")

    def __init__(self, tokens: Sequence[str]):
        # one mask per distinct token, each built once (OR-ing 1 << i into a growing integer for every
        # token made building the index quadratic in its length: seconds for a 2 MB record)
        positions: dict[str, list[int]] = {}
        for i, tok in enumerate(tokens):
            positions.setdefault(tok, []).append(i)
        nbytes = (len(tokens) + 7) // 8
        masks: dict[str, int] = {}
        for tok, pos in positions.items():
            if len(pos) <= 8:
                mask = 0
                for i in pos:
                    mask |= 1 << i
            else:
                buf = bytearray(nbytes)
                for i in pos:
                    buf[i >> 3] |= 1 << (i & 7)
                mask = int.from_bytes(buf, "little")
            masks[tok] = mask
        self.masks = masks
        self.full = (1 << len(tokens)) - 1
        self.length = len(tokens)

    def lcs(self, other: Sequence[str]) -> int:
        """Length of the longest common subsequence of the indexed sequence and ``other``."""
        if not self.length or not other:
            return 0
        v, full, masks = self.full, self.full, self.masks
        for tok in other:
            u = v & masks.get(tok, 0)
            v = ((v + u) | (v - u)) & full
        return self.length - bin(v).count("1")


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (bit-parallel: one big-integer step per token of one
    sequence, on integers as wide as the other). The longer sequence is indexed, unless it is much
    longer than the other: then the shorter is, so a short record against a huge one costs time
    linear in the huge one (one narrow step per token), not the square of it."""
    if len(a) < len(b):
        a, b = b, a
    if len(a) > 64 * max(1, len(b)):
        a, b = b, a
    return LCSIndex(a).lcs(b)


@dataclass(frozen=True)
class RougeL:
    precision: float
    recall: float
    fmeasure: float


def rouge_l(target: "Sequence[str] | str", prediction: "Sequence[str] | str") -> RougeL:
    """ROUGE-L with ``rouge_score``'s conventions: recall = LCS / len(target), precision = LCS /
    len(prediction); strings are tokenised with :func:`textleak.text.rouge_tokens`."""
    from textleak.text.tokens import rouge_tokens

    t = rouge_tokens(target) if isinstance(target, str) else list(target)
    p = rouge_tokens(prediction) if isinstance(prediction, str) else list(prediction)
    if not t or not p:
        return RougeL(0.0, 0.0, 0.0)
    lcs = lcs_length(t, p)
    precision, recall = lcs / len(p), lcs / len(t)
    f = 0.0 if lcs == 0 else 2 * precision * recall / (precision + recall)
    return RougeL(precision, recall, f)
