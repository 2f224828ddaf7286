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

Masking breaks bigrams: a record with every second word replaced by "[MASK]" keeps almost none of
its original's bigrams (at most 0.15 on the MedQA sample), yet every word it kept is its original's.
So a record of ``MIN_WORDS`` or more distinct words also pairs by its *words* (:func:`_word_match`):
when one original holds at least ``MIN_WORD_CONTAINMENT`` of them, ``MIN_WORD_MARGIN`` more than any
other original (originals with the same words are one candidate, as above). Placeholders
(``[MASK]``, ``<PERSON>``, ``{NAME}``) are not words. A masked record keeps only its original's
words, while a synthetic record, or one made from the same template with other values, brings words
of its own: its other values, which is why records sharing a template do not pair; the margin keeps
a short record of common words from pairing with whichever original holds them all. Cost: the
postings of each record's rarest words (a fifth of them), and one set intersection per original
found there.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

_WORD = re.compile(r"\w+")
_PLACEHOLDER = re.compile(r"\[[\w -]+\]|<[\w -]+>|\{[\w -]+\}")

# The thresholds, in one place. Chosen on the MedQA sample, PUPA's first 200 queries and real synthetic
# sets, and re-measured by ``benchmarks/pairing_calibration.py`` (its output: benchmarks/results/pairing_calibration.md).
# Bigram test (the first three): see the module docstring for the figures it was set on.
MIN_CONTAINMENT = 0.5  # share of a released record's bigrams its original holds
MIN_RATIO = 2.0  # ... and at least this many times the runner-up's share
MIN_SHARE = 0.8  # share of released records that must pair for the set to pair one-to-one
# Word test (masked releases), placeholders left out of the words: a masked record holds only its original's
# words (share 1.0 for MedQA, PUPA and template vignettes with every 2nd, 3rd or 4th word "[MASK]"); 0.9 leaves
# room for a few words a sanitizer adds. Records that did not come from an original stay below: DP synthetic
# MedQA (epsilon 3) at most 0.56, DP synthetic PUPA (epsilon 3) 0.79, template vignettes against other vignettes
# (textleak.data.vignettes, 8-500 against 4-500 others, two seeds) 0.78-0.89, rising with the number of
# vignettes, and then close to their runner-up. A non-private (epsilon inf) MedQA generator copies a few records
# verbatim: 9 of its 49 pair, far below MIN_SHARE. The margin: masked vignettes' runner-up holds up to 0.94 of
# their words (margin 0.06: 94 of 100 pair at 200 vignettes, 227 of 250 at 500; 811 of 1000 at 2000, near
# MIN_SHARE); near-duplicate originals (PUPA) leave none. Instead of the margin, a floor of 2 words no other
# original has left masked vignettes unpaired once their values repeat across records (0 of 50 at 100).
MIN_WORD_CONTAINMENT = 0.9  # share of a released record's distinct words that are words of its original
MIN_WORD_MARGIN = 0.1  # ... and at most this share minus the margin held by any other original
MIN_WORDS = 4  # records with fewer distinct words do not pair by words

PAIRED = (f"keep the wording of a distinct original (at least {MIN_CONTAINMENT:.0%} of their word bigrams, or "
          f"{MIN_WORD_CONTAINMENT:.0%} of their words, {MIN_WORD_MARGIN:.0%} more than any other original holds)")
"""What a paired record does, for the refusals that name it: "N of the M released records each " + PAIRED."""


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


def _words(text: str) -> set[str]:
    """Distinct lower-cased words, placeholders (``[MASK]``, ``<PERSON>``, ``{NAME}``) left out: they are no wording."""
    return set(_WORD.findall(_PLACEHOLDER.sub(" ", text).lower()))


def _word_match(words: set[str], vocab: dict[int, frozenset[str]], postings: dict[str, list[int]]) -> int | None:
    """The candidate holding at least ``MIN_WORD_CONTAINMENT`` of ``words`` and ``MIN_WORD_MARGIN`` more of
    them than any other, or None. A candidate within the margin of that share misses fewer than a share
    ``1 - MIN_WORD_CONTAINMENT + MIN_WORD_MARGIN`` of the words, so it holds one of any more words than
    that: only the candidates holding one of that many of the rarest words are compared."""
    if len(words) < MIN_WORDS:
        return None
    rarest = sorted(words, key=lambda w: len(postings.get(w, ())))[: int((1 - MIN_WORD_CONTAINMENT + MIN_WORD_MARGIN) * len(words)) + 1]
    shares = sorted(((len(words & vocab[i]) / len(words), i) for i in {i for w in rarest for i in postings.get(w, ())}),
                    reverse=True) + [(0.0, -1)] * 2
    (top, best), (runner_up, _) = shares[0], shares[1]
    return best if top >= MIN_WORD_CONTAINMENT and top - runner_up >= MIN_WORD_MARGIN - 1e-9 else None


def text_pairing(originals: Sequence[str], released: Sequence[str], min_containment: float = MIN_CONTAINMENT) -> Pairing:
    """How many released records pair with a distinct original by their wording (module docstring)."""
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    copies: dict[frozenset, list[int]] = defaultdict(list)  # identical originals: one candidate, its copies in order
    same_words: dict[frozenset, list[int]] = defaultdict(list)  # the word test's candidates: originals with the same words
    for i, text in enumerate(originals):
        grams = frozenset(_grams(text))
        copies[grams].append(i)
        if len(copies[grams]) == 1:
            for g in grams:
                index[g].append(i)
        same_words[frozenset(_words(text))].append(i)
    first = {group[0]: group for group in copies.values()}
    word_groups = {group[0]: group for group in same_words.values()}
    vocab = {group[0]: words for words, group in same_words.items()}
    postings: dict[str, list[int]] = defaultdict(list)
    for words, group in same_words.items():
        for w in words:
            postings[w].append(group[0])
    best: dict[int, list[int]] = {}  # released record -> the originals (copies) it pairs with
    for j, text in enumerate(released):
        grams = _grams(text)
        if not grams:
            continue
        by_words = _word_match(_words(text), vocab, postings)
        if by_words is not None:
            best[j] = word_groups[by_words]
            continue
        counts: Counter[int] = Counter()
        for g in grams:
            counts.update(index.get(g, ()))
        top = counts.most_common(2)
        runner_up = top[1][1] if len(top) > 1 else 0
        if not top or top[0][1] < min_containment * len(grams) or top[0][1] < MIN_RATIO * runner_up:
            continue
        best[j] = first[top[0][0]]
    owners = Counter(tuple(group) for group in best.values())
    used: set[int] = set()
    matches = {}
    for j, group in best.items():
        if owners[tuple(group)] <= len(group):  # each released record its own copy of the original
            free = next((i for i in group if i not in used), None)
            if free is not None:
                matches[j] = free
                used.add(free)
    return Pairing(len(released), len(matches), matches)
