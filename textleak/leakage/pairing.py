"""Does a "synthetic" set pair up with the originals? A cheap test for sanitized sets that lost rows.

Unaligned evaluation (``alignment="none"``) is for synthetic data: an original with no counterpart
is simply not released. Used on a sanitized set that lost rows it would let the lost originals count
as private (issue 27: 0.025 -> 0.301). Row numbers cannot tell the two apart; the texts can: a
sanitized record keeps most of its original's wording, a synthetic one does not copy one distinct
original each.

The test (:func:`text_pairing`): each released record's word bigrams (lower-cased ``\\w+`` tokens)
are looked up in an inverted index of the originals' bigrams; its best original is the one holding the
largest share of them (containment). A record *pairs* when its best original holds at least
``MIN_CONTAINMENT`` (0.5) of its bigrams, at least ``MIN_RATIO`` (2) times the runner-up's share, and
no other released record pairs with the same original. Originals with the same bigrams (duplicate
records) are one candidate, which as many released records as it has copies may pair with: a copy is
not a runner-up, or a set of duplicated records could never pair and would pass as synthetic. The set
*pairs one-to-one* when at least ``MIN_SHARE`` (0.8) of its records pair. Measured on the MedQA sample: records with their numbers
changed hold 0.66-0.97 of their own original's bigrams (runner-up at most 0.22), records with every
fourth word masked 0.53-0.59 (at most 0.18), another patient's record at most 0.28; a toy synthetic
sentence mixing facts of two people 0.40 (runner-up 0.30). Cost: linear in the total text plus the
postings of the shared bigrams. Records of fewer than two words never pair. Paraphrasing sanitizers
(LLM rewrites) may keep too little wording to pair: for them the ids are the only proof. A synthetic
set whose records are near copies of distinct originals (a memorising generator) pairs too, and is
refused unaligned: pair each record with its source by id instead.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

_WORD = re.compile(r"\w+")
MIN_CONTAINMENT = 0.5
MIN_RATIO = 2.0
MIN_SHARE = 0.8


@dataclass
class Pairing:
    """Result of :func:`text_pairing`: ``paired`` of ``n_released`` records each have a distinct original
    (by position in ``matches``: released index -> original index) holding at least ``min_containment``
    of their word bigrams."""

    n_released: int
    paired: int
    matches: dict[int, int]

    @property
    def one_to_one(self) -> bool:
        return self.n_released > 0 and self.paired >= MIN_SHARE * self.n_released


def _grams(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + 2]) for i in range(len(words) - 1)}


def text_pairing(originals: Sequence[str], released: Sequence[str], min_containment: float = MIN_CONTAINMENT) -> Pairing:
    """How many released records pair with a distinct original by their wording (module docstring)."""
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    copies: dict[frozenset, list[int]] = defaultdict(list)  # identical originals: one candidate, its copies in order
    for i, text in enumerate(originals):
        grams = frozenset(_grams(text))
        copies[grams].append(i)
        if len(copies[grams]) == 1:
            for g in grams:
                index[g].append(i)
    first = {group[0]: group for group in copies.values()}
    best: dict[int, int] = {}
    for j, text in enumerate(released):
        grams = _grams(text)
        if not grams:
            continue
        counts: Counter[int] = Counter()
        for g in grams:
            counts.update(index.get(g, ()))
        top = counts.most_common(2)
        runner_up = top[1][1] if len(top) > 1 else 0
        if not top or top[0][1] < min_containment * len(grams) or top[0][1] < MIN_RATIO * runner_up:
            continue
        best[j] = top[0][0]
    owners = Counter(best.values())
    taken: Counter[int] = Counter()
    matches = {}
    for j, i in best.items():
        if owners[i] <= len(first[i]):  # each released record its own copy of the original
            matches[j] = first[i][taken[i]]
            taken[i] += 1
    return Pairing(len(released), len(matches), matches)
