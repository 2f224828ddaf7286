"""Coarser forms of a specific value: "Node 20" or "20.x" for version 20.11.1, "10.x" or 10.42.0.0/16 for the
address 10.42.7.19, "in March" or "mid-March" for 3 March 2025, "about 3am" for 03:12. A text that writes
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
    date (year or None, month, day) or time (hour)."""

    text: str
    kind: str
    parts: tuple[int, ...]
    name: str = ""


@lru_cache(maxsize=65536)
def specific_values(claim: str) -> tuple[Specific, ...]:
    """The claim's versions and addresses, calendar dates with a day, and clock times."""
    out: list[Specific] = []
    for m in _DOTTED.finditer(claim):
        parts = tuple(int(p) for p in m.group("num").split("."))
        name = m.group("name") or ""
        if len(parts) >= 3 or m.group("v") or (name[:1].isupper() and name.lower() not in MONTH_NUMBERS):
            # the product's name: the last capitalised word before the number ("Node" in "Node.js version is 20.11.1")
            named = [w for w in re.findall(r"\b([A-Z][A-Za-z]*)[\w.+-]*", claim[: m.start("num")]) if w.lower() not in _NOT_NAMES]
            out.append(Specific((m.group("v") or "") + m.group("num"), "version", parts, named[-1] if named else ""))
    for d in find_dates(claim):
        for year, month, day in d.readings:
            out.append(Specific(d.text, "date", (year or 0, month, day)))
    for m in CLOCK.finditer(claim):
        hour, half = int(m.group(1)), (m.group(3) or "").lower()[:1]
        if hour <= 23:
            out.append(Specific(m.group(0), "time", (hour24(hour, half),)))
    return tuple(out)


def coarser_written(value: Specific, sentence: str) -> bool:
    """Whether ``sentence`` writes ``value`` more coarsely (and does not write it in full or another value
    of its kind in the same place: that is the same fact or a contradiction, for the other rules)."""
    if value.kind == "version":
        return _coarser_version(value, sentence)
    if value.kind == "date":
        return _coarser_date(value, sentence)
    return _coarser_time(value, sentence)


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
