"""Sentence segmentation (NLTK's punkt needs a data download; this splitter needs nothing).

Claims, judges, the lexical baseline and span abstraction all split with this one function.
"""

from __future__ import annotations

import re

_ABBREVIATIONS = {
    "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "eg", "ie", "approx",
    "no", "fig", "inc", "ltd", "co", "dept", "mt", "min", "max", "hr", "hrs", "wk", "wks", "mo", "yr",
    "yrs", "u.s", "a.m", "p.m", "cf", "al", "ca", "ft", "temp",
}
_CANDIDATE_BOUNDARY = re.compile(r"([.!?])([\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9])")
_CANDIDATE_BOUNDARY_ANY_CASE = re.compile(r"([.!?])([\"')\]]*)\s+(?=[\"'(\[]?[A-Za-z0-9])")
_ABBREVIATION_BEFORE = re.compile(r"(?:^|[\s(])([A-Za-z][A-Za-z.]*)\.$")
_NUMBER_BEFORE = re.compile(r"\d\s*$")
# "P.O. Box": the one dotted abbreviation kept whole by what follows it (a degree, "Ph.D.", may end a sentence:
# "I have a Ph.D. Doesn't help.")
_PO_BOX = re.compile(r"box\b", re.IGNORECASE)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*|)[\"')\]]*$")


_WINDOW = 100  # characters before a period searched for its word


def _number_before(line: str, end: int) -> bool:
    """Whether ``line[:end]`` ends with a digit and optional whitespace (``_NUMBER_BEFORE``), in time
    proportional to the whitespace walked over, not to ``end``."""
    k = end
    while k > 0 and line[k - 1].isspace():
        k -= 1
    return k > 0 and _NUMBER_BEFORE.match(line[k - 1]) is not None


def _line_boundaries(line: str, lowercase_starts: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each sentence candidate in one line, before trimming whitespace."""
    out, start = [], 0
    for m in (_CANDIDATE_BOUNDARY_ANY_CASE if lowercase_starts else _CANDIDATE_BOUNDARY).finditer(line):
        if lowercase_starts and line[m.end():m.end() + 1].islower():
            before = _WORD_BEFORE.search(line[max(0, m.start(1) - 40): m.start(1)]).group(1)
            if "." in before or (before[:1].isupper() and len(before) <= 4) or (m.start(1) > 0 and line[m.start(1) - 1] in ".!?"):
                continue  # "Ph.D. in", "Corp. reported", "Mrs. lee", "... and", "??? secret": no sentence ends there
        if m.group(1) == ".":
            # the word before the period, looked for in a bounded window (a search over the whole line
            # prefix made one long line cost quadratic time); a word longer than the window is no abbreviation
            word = _ABBREVIATION_BEFORE.search(line, max(0, m.start(1) - _WINDOW), m.start(1) + 1)
            if word:
                w = word.group(1).lower()
                # a single letter is an initial ("J. Smith"), unless it is a unit after a number ("38.5 C.")
                initial = len(w) == 1 and w.isalpha() and not _number_before(line, word.start(1))
                dotted = w == "p.o" and _PO_BOX.match(line, m.end()) is not None
                if w in _ABBREVIATIONS or initial or dotted:
                    continue
        out.append((start, m.end(2)))
        start = m.end()
    out.append((start, len(line)))
    return out


def sentence_spans(text: str, lowercase_starts: bool = False) -> list[tuple[int, int]]:
    """Character ranges of the sentences of ``text``, whitespace trimmed.

    Line breaks always end a sentence; ``.``, ``!`` or ``?`` followed by space and an upper-case letter
    or digit ends one unless the word before is a known abbreviation, a single initial ("J. Smith",
    but not a unit after a number, "38.5 C."), "P.O." before "Box", or the period is part of a decimal.
    ``lowercase_starts=True`` also ends a sentence before a lower-case letter (chat text: "thanks. i
    have ..."), with the same abbreviation checks.
    """
    spans: list[tuple[int, int]] = []
    offset = 0
    for piece in text.splitlines(keepends=True):
        line = piece.splitlines()[0] if piece.splitlines() else ""
        for a, b in _line_boundaries(line, lowercase_starts):
            chunk = line[a:b]
            stripped = chunk.strip()
            if stripped:
                lead = len(chunk) - len(chunk.lstrip())
                spans.append((offset + a + lead, offset + a + lead + len(stripped)))
        offset += len(piece)
    return spans


def split_sentences(text: str, lowercase_starts: bool = False) -> list[str]:
    """The sentences of ``text`` as strings (see :func:`sentence_spans`)."""
    return [text[a:b] for a, b in sentence_spans(text, lowercase_starts)]
