"""Text pieces the embedding and lexical judges compare a claim with: sentences, adjacent-sentence
windows, and the numbers a claim or span states (for the number/age guard)."""

from __future__ import annotations

import re

from textleak.claims import split_sentences  # one sentence splitter for claims, judges and the lexical baseline

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)|\d+(?:\.\d+)?")
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_WORD_NUMBER = re.compile(
    r"\b(?:(" + "|".join(_TENS) + r")(?:[- ](" + "|".join(k for k in _UNITS if _UNITS[k] < 10 and k != "zero") + r"))?|(" + "|".join(_UNITS) + r"))\b",
    re.IGNORECASE,
)
# decade words ("twenties", "thirties") are generalisations, not numbers: the word pattern ends at \b
# after the exact number word, so "twenties" never matches "twenty".


def word_windows(sentence: str, size: int = 8, stride: int = 4) -> list[str]:
    """Runs of ``size`` words every ``stride`` words; none when the sentence is that short already."""
    words = sentence.split()
    if size <= 0 or len(words) <= size:
        return []
    return [" ".join(words[k : k + size]) for k in range(0, len(words) - size + stride, stride)]


def document_spans(text: str, window: int = 2, word_window: int = 0, word_stride: int = 4) -> list[tuple[str, str]]:
    """``(span, context)`` pairs: every sentence, every run of ``window`` adjacent sentences, and
    (``word_window > 0``) every ``word_window``-word run inside a sentence. ``context`` is the
    sentence (or sentence run) a span comes from. Empty text has no spans."""
    sentences = split_sentences(text)
    spans = [(s, s) for s in sentences]
    if window > 1 and len(sentences) > 1:
        for k in range(len(sentences) - window + 1):
            joined = " ".join(sentences[k : k + window])
            spans.append((joined, joined))
    if word_window > 0:
        spans += [(w, s) for s in sentences for w in word_windows(s, word_window, word_stride)]
    return spans


def _canonical(number: str) -> str:
    value = float(number.replace(",", ""))
    return str(int(value)) if value.is_integer() else repr(value)


def extract_numbers(text: str, count_word_one: bool = True) -> set[str]:
    """Numbers stated in ``text`` (digits, "1,200", "38.5", and number words up to ninety-nine),
    canonicalised so "38.50" == "38.5" and "five" == "5". ``count_word_one=False`` ignores the word
    "one" (mostly a pronoun: "no one", "the one I bought"); the judges use it on the claim side, so
    a claim's "one" never triggers the guard while a span's "one week" still matches a claim's "1 week"."""
    found = {_canonical(m.group(0)) for m in _NUMBER.finditer(text)}
    for m in _WORD_NUMBER.finditer(text):
        tens, unit, single = m.groups()
        if single:
            if not count_word_one and single.lower() == "one":
                continue
            found.add(str(_UNITS[single.lower()]))
        else:
            found.add(str(_TENS[tens.lower()] + (_UNITS[unit.lower()] if unit else 0)))
    return found
