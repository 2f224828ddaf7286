"""Numbers stated in a text (digits and number words), canonicalised: what the judges' number guard
compares between a claim and a span."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)|\d+(?:\.\d+)?")
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_WORD_NUMBER = re.compile(
    r"\b(?:(" + "|".join(_TENS) + r")(?:[- ](" + "|".join(k for k in _UNITS if _UNITS[k] < 10 and k != "zero") + r"))?|(" + "|".join(_UNITS) + r"))\b",
    re.IGNORECASE | re.ASCII,  # ASCII: "fıve" (dotless ı) matches "five" case-insensitively in Unicode mode
)
# decade words ("twenties", "thirties") are generalisations, not numbers: the word pattern ends at \b
# after the exact number word, so "twenties" never matches "twenty".


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
