"""Coarser forms of a specific value: "Node 20" or "20.x" for version 20.11.1, "10.x" or 10.42.0.0/16 for the
address 10.42.7.19, "in March" or "mid-March" for 3 March 2025, "about 3am" for 03:12, and a number as a range in
words: "more than a dozen" for 14 restarts, "tens of terabytes" for 38 TB, "in my mid-twenties" for 26 years old,
"upwards of CA$150k" for CA$185k. A text that writes
such a form generalises the value (seed 000's rating 2, "similar"), so a claim that states the value is not
unsupported by it. Used by the judges' written-values rule (:func:`textleak.judges.values.value_verdict`).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache

from textleak.text.clock import CLOCK, hour24
from textleak.text.dates import MONTH_NUMBERS, find_dates
from textleak.text.quantities import SCALE_WORDS, find_quantities

# digit runs are bounded (a part of more than 9 digits is no version, and int() refuses 4,300 digits)
# a version or an address: three or more dotted parts ("20.11.1", "10.42.7.19"), or two after a product's name or a
# "v" ("Python 3.11", "Ubuntu 22.04", "v2.4"); a decimal such as "6.1" or "38.5" after "is" is a measurement, not one
_DOTTED = re.compile(r"(?<![\w.])(?:(?P<name>[A-Za-z][\w.+-]*)\s+)?(?P<v>v)?(?P<num>\d{1,9}(?:\.\d{1,9}){1,3})(?![\w]|\.\d)")
_PREFIX = re.compile(r"(?<![\w.])v?(?P<num>\d{1,9}(?:\.\d{1,9})*)(?P<wild>(?:\.[xX*])+)?(?P<net>/\d{1,2})?(?![\w]|\.\d)")
_MONTH = re.compile(r"\b(" + "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True)) + r")\b\.?(?:\s+(\d{4}))?", re.IGNORECASE)
_NOT_NAMES = frozenset("the a an this that these those it its he she his her they their i my we our you your".split())
_HOUR = re.compile(r"(?<![\w:.])(\d{1,2})\s*(?:([ap])\.?m\.?|o['’]clock)(?![\w])", re.IGNORECASE)


@dataclass(frozen=True)
class Specific:
    """A specific value of a claim that a text may write more coarsely: ``kind`` version (dotted parts),
    date (year or None, month, day), time (hour), or number (``amount`` in the canonical unit of ``dimension``:
    a quantity's, "age" for an age in years, "" for a count)."""

    text: str
    kind: str
    parts: tuple[int, ...]
    name: str = ""
    amount: float = 0.0
    dimension: str = ""


# --- numbers written as a range: "more than a dozen" for 14, "tens of terabytes" for 38 TB, "in my mid-twenties" for 26
_DECADES = {"teens": 10, "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60, "seventies": 70,
            "eighties": 80, "nineties": 90}
_AGE_RANGE = re.compile(r"\bin\s+(?:my|his|her|their|your)\s+(?:(early|mid|late)[\s-]*)?(teens|twenties|thirties|forties|fifties|sixties|"
                        r"seventies|eighties|nineties|[1-9]0\W?s)\b", re.IGNORECASE)
_CLAIM_AGE = re.compile(r"\b(\d{1,3})(?:\s+|-)years?(?:\s+|-)old\b|\baged?\s+(\d{1,3})\b|\b(\d{1,3})-year-old\b", re.IGNORECASE)
_COUNT = re.compile(r"(?<![\w.,/:$£€-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k|thousand|million|bn|billion)?(?![\w.,/:%-])", re.IGNORECASE)
_POWERS = {"tens": 10, "hundreds": 100, "thousands": 1e3, "millions": 1e6, "billions": 1e9}
# (pattern, low, high) for ranges stated in words; "of thousands" after "tens"/"hundreds" scales them
_WORD_RANGES = [
    (re.compile(r"\b(?:more\s+than|over|upwards\s+of)\s+a\s+dozen\b", re.IGNORECASE), 13, 24),
    (re.compile(r"\b(?:a\s+(?:few|couple\s+of)|several|many)\s+dozens?\b|\bdozens\b", re.IGNORECASE), 20, 99),
    (re.compile(r"\b(?:about|around|roughly|nearly|almost)?\s*a\s+dozen\b", re.IGNORECASE), 10, 14),
    (re.compile(r"\ba\s+couple(?:\s+of)?\b", re.IGNORECASE), 2, 3),
    (re.compile(r"\ba\s+few\b", re.IGNORECASE), 2, 5),
    (re.compile(r"\ba\s+handful(?:\s+of)?\b", re.IGNORECASE), 3, 7),
    (re.compile(r"\bseveral\b", re.IGNORECASE), 3, 9),
]
_POWER_RANGE = re.compile(r"\b(tens|hundreds|thousands|millions|billions)(?:\s+of\s+(thousands|millions))?\b", re.IGNORECASE)
_APPROX = re.compile(r"\b(about|around|roughly|approximately|approx\.?|close\s+to|nearly|almost|some|circa|~|over|more\s+than|upwards\s+of|"
                     r"at\s+least|above|in\s+excess\s+of|under|less\s+than|below|fewer\s+than|sub-?|up\s+to)\s*", re.IGNORECASE)
_UNIT_AFTER = re.compile(r"\s*([A-Za-z$£€₹]+\$?)")


@lru_cache(maxsize=65536)
def specific_values(claim: str) -> tuple[Specific, ...]:
    """The claim's versions and addresses, calendar dates with a day, clock times, and numbers (ages, quantities,
    counts) not inside one of those."""
    out: list[Specific] = []
    taken: list[tuple[int, int]] = []  # where the versions, dates and times are written: their digits are no counts
    for m in _DOTTED.finditer(claim):
        parts = tuple(int(p) for p in m.group("num").split("."))
        name = m.group("name") or ""
        if len(parts) >= 3 or m.group("v") or (name[:1].isupper() and name.lower() not in MONTH_NUMBERS):
            # the product's name: the last capitalised word before the number ("Node" in "Node.js version is 20.11.1")
            named = [w for w in re.findall(r"\b([A-Z][A-Za-z]*)[\w.+-]*", claim[: m.start("num")]) if w.lower() not in _NOT_NAMES]
            out.append(Specific((m.group("v") or "") + m.group("num"), "version", parts, named[-1] if named else ""))
            taken.append((m.start("num"), m.end("num")))
    for d in find_dates(claim, foreign=False):  # a claim's months are English ("2 Mayo Clinic sites" is no date)
        for year, month, day in d.readings:
            out.append(Specific(d.text, "date", (year or 0, month, day)))
        taken.append((d.start, d.end))
    for m in CLOCK.finditer(claim):
        hour, half = int(m.group(1)), (m.group(3) or "").lower()[:1]
        if hour <= 23:
            out.append(Specific(m.group(0), "time", (hour24(hour, half),)))
            taken.append((m.start(), m.end()))
    out.extend(_claim_numbers(claim, taken))
    return tuple(out)


def _count(m: re.Match) -> float:
    """A :data:`_COUNT` match's value, its scale word applied ("3.5k" -> 3500)."""
    return float(m.group(1).replace(",", "")) * SCALE_WORDS.get((m.group(2) or "").lower(), 1.0)


def _claim_numbers(claim: str, taken: list[tuple[int, int]]) -> list[Specific]:
    """The claim's age, quantities with their unit or currency, and counts (not years, not inside another value)."""
    out: list[Specific] = []

    def free(a: int, b: int) -> bool:
        return not any(x < b and a < y for x, y in taken)

    for m in _CLAIM_AGE.finditer(claim):
        age = next(g for g in m.groups() if g)
        out.append(Specific(m.group(0), "number", (), amount=float(age), dimension="age"))
        taken.append((m.start(), m.end()))
    for q in find_quantities(claim):
        if free(q.start, q.end):
            if q.dimension != "temperature":  # "febrile" for 38.5 C is the number guard's and the model's business
                out.append(Specific(q.text, "number", (), amount=q.value, dimension=q.dimension))
            taken.append((q.start, q.end))
    for m in _COUNT.finditer(claim):
        if not free(m.start(), m.end()):
            continue
        value = _count(m)
        if m.group(2) is None and "." not in m.group(1) and 1900 <= value <= 2100:
            continue  # a year
        if value >= 2:
            out.append(Specific(m.group(0), "number", (), amount=value))
    return out


def coarser_written(value: Specific, sentence: str) -> bool:
    """Whether ``sentence`` writes ``value`` more coarsely (and does not write it in full or another value
    of its kind in the same place: that is the same fact or a contradiction, for the other rules)."""
    if value.kind == "version":
        return _coarser_version(value, sentence)
    if value.kind == "date":
        return _coarser_date(value, sentence)
    if value.kind == "number":
        return _coarser_number(value, sentence)
    return _coarser_time(value, sentence)


def _coarser_number(value: Specific, sentence: str) -> bool:
    """A range in words that holds the claim's number (its age, its amount in the claim's unit or currency, or
    its count), where the sentence does not write the number itself."""
    amount = value.amount
    if value.dimension == "age":
        for m in _AGE_RANGE.finditer(sentence):
            word = m.group(2).lower()
            decade = _DECADES.get(word) or int(re.sub(r"\D", "", word))
            part = (m.group(1) or "").lower()
            if decade == 10:  # the teens: 13-19
                low, high = {"early": (13, 15), "mid": (14, 17), "late": (17, 19)}.get(part, (13, 19))
            else:
                low, high = decade, decade + 9
                if part == "early":
                    high = low + 3
                elif part == "mid":
                    low, high = low + 3, low + 7
                elif part == "late":
                    low = low + 6
            if low <= amount <= high:
                return True
        return False
    ranges = _written_ranges(sentence)
    if not any(dimension == value.dimension and low <= amount <= high for low, high, dimension, _, _ in ranges):
        return False
    # another number of the same kind written outside the ranges: a contradiction or another fact, for the other rules
    inside = [(a, b) for _, _, _, a, b in ranges]
    return not any(d == value.dimension and n != amount and not any(a <= at < b for a, b in inside) for n, d, at in _written_numbers(sentence))


@lru_cache(maxsize=8192)
def _written_numbers(sentence: str) -> tuple[tuple[float, str, int], ...]:
    """(amount, dimension, offset) of each quantity and count of 2 or more written in digits in ``sentence``."""
    quantities = find_quantities(sentence)
    out = [(q.value, q.dimension, q.start) for q in quantities]
    for m in _COUNT.finditer(sentence):
        if not any(q.start <= m.start() < q.end for q in quantities):
            value = _count(m)
            if value >= 2:
                out.append((value, "", m.start()))
    return tuple(out)


def _unit_of(sentence: str, end: int) -> tuple[str, float] | None:
    """The dimension and factor of the unit written right after ``end`` ("terabytes", "GB", "seconds"), if any."""
    m = _UNIT_AFTER.match(sentence, end)
    if not m:
        return None
    q = find_quantities("1 " + m.group(1))
    return (q[0].dimension, q[0].value) if q and q[0].text.endswith(m.group(1)) else None


@lru_cache(maxsize=8192)
def _written_ranges(sentence: str) -> tuple[tuple[float, float, str, int, int], ...]:
    """(low, high, dimension, start, end) of each range the sentence states in words: "a dozen", "tens of terabytes",
    "close to 50 GB", "upwards of CA$150k", "sub-1 GB"; none when it writes no such range."""
    out: list[tuple[float, float, str, int, int]] = []
    for pattern, low, high in _WORD_RANGES:
        for m in pattern.finditer(sentence):
            unit = _unit_of(sentence, m.end())
            out.append(((low * unit[1], high * unit[1], unit[0]) if unit else (low, high, "")) + (m.start(), m.end()))
    for m in _POWER_RANGE.finditer(sentence):
        scale = _POWERS[m.group(1).lower()] * (_POWERS[m.group(2).lower()] if m.group(2) else 1)
        end = m.end()
        rest = re.match(r"\s+of\b", sentence[end:])
        unit = _unit_of(sentence, end + rest.end()) if rest else None
        low, high = scale, scale * 10 - 1e-9
        out.append(((low * unit[1], high * unit[1], unit[0]) if unit else (low, high, "")) + (m.start(), m.end()))
    for m in _APPROX.finditer(sentence):
        cue = re.sub(r"\s+", " ", m.group(1).lower()).rstrip("-").rstrip()
        rest = sentence[m.end():]
        q = find_quantities(rest[:40])
        if q and q[0].start == 0:
            number, dimension, end = q[0].value, q[0].dimension, m.end() + q[0].end
        else:
            c = _COUNT.match(rest)
            if not c:
                continue
            number, dimension, end = _count(c), "", m.end() + c.end()
        if dimension == "temperature" or number <= 0:
            continue
        if cue in ("over", "more than", "upwards of", "at least", "above", "in excess of"):
            out.append((number, 3 * number, dimension, m.start(), end))
        elif cue in ("under", "less than", "below", "fewer than", "sub", "up to"):
            out.append((number / 3, number, dimension, m.start(), end))
        else:
            out.append((0.75 * number, 1.25 * number, dimension, m.start(), end))
    return tuple(out)


def _coarser_version(value: Specific, sentence: str) -> bool:
    parts = value.parts
    for m in _PREFIX.finditer(sentence):
        found = tuple(int(p) for p in m.group("num").split("."))
        if m.group("net") and len(parts) == 4 and len(found) == 4:
            try:
                if ipaddress.ip_address(".".join(map(str, parts))) in ipaddress.ip_network(m.group("num") + m.group("net"), strict=False):
                    return True
            except ValueError:
                pass
            continue
        if len(found) >= len(parts) or parts[: len(found)] != found:
            continue
        if m.group("wild") or len(found) >= 2:
            return True  # "10.x", "5.12" for 5.12.3
        # a bare first part counts only after the value's own name: "Node 20" for Node.js 20.11.1
        before = sentence[: m.start()].rstrip()
        if value.name and re.search(rf"\b{re.escape(value.name)}(?:\.\w+)?$", before, re.IGNORECASE):
            return True
    return False


def _coarser_date(value: Specific, sentence: str) -> bool:
    year, month, _ = value.parts
    if any(month == mo for d in find_dates(sentence) for _, mo, _ in d.readings):
        return False  # a full date in that month: the same day or another one, not a coarser form
    for m in _MONTH.finditer(sentence):
        word = m.group(1)
        if word.lower() in ("may", "march") and not word[0].isupper():
            continue  # the verbs
        if MONTH_NUMBERS[word.lower()] == month and (not m.group(2) or not year or int(m.group(2)) == year):
            return True
    return False


def _coarser_time(value: Specific, sentence: str) -> bool:
    if CLOCK.search(sentence):
        return False  # a clock time written in full: the same or another, not a coarser form
    hour = value.parts[0]
    for m in _HOUR.finditer(sentence):
        h, half = int(m.group(1)), (m.group(2) or "").lower()
        if h <= 23 and (hour24(h, half) == hour if half else h % 12 == hour % 12):
            return True
    return False
