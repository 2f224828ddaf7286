"""Calendar dates in any of the ways people write them: "14 February 2025", "February 14th, 2025",
"14/02/2025", "2025-02-14", "Feb 14". A numeric date whose day and month could be either way round
("03/04/2025") keeps both readings, so a claim matches it in either convention (toward leakage).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

_MONTHS = {m: i + 1 for i, m in enumerate("january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
#: month names and their three-letter forms -> month number (also read by :mod:`textleak.text.coarse`)
MONTH_NUMBERS = _MONTHS
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4}|'\d{2})"
_PATTERNS = [
    ("ymd", re.compile(r"(?<![\d/.-])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d/.-]*\d)")),
    ("xyz", re.compile(r"(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?![\d/.-]*\d)")),
    ("mdy", re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?\b", re.IGNORECASE)),
    ("dmy", re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE)),
]


@dataclass(frozen=True)
class CalendarDate:
    """A date as written (``text`` at ``start:end``) and its readings: (year or None, month, day)."""

    start: int
    end: int
    text: str
    readings: frozenset[tuple[int | None, int, int]]


def _year(text: str | None) -> int | None:
    if not text:
        return None
    text = text.lstrip("'")
    y = int(text)
    return y + (2000 if y < 50 else 1900) if len(text) == 2 else y


def _valid(y: int | None, m: int, d: int) -> bool:
    try:
        date(y or 2000, m, d)
        return True
    except ValueError:
        return False


@lru_cache(maxsize=65536)
def find_dates(text: str) -> tuple[CalendarDate, ...]:
    """Every calendar date written in ``text`` (see the module docstring), in order."""
    out: list[CalendarDate] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            readings: set[tuple[int | None, int, int]] = set()
            if kind == "ymd":
                readings.add((int(m.group(1)), int(m.group(2)), int(m.group(3))))
            elif kind == "xyz":
                a, b, y = int(m.group(1)), int(m.group(2)), _year(m.group(3))
                readings |= {(y, b, a), (y, a, b)}
            elif kind == "mdy":
                readings.add((_year(m.group(3)), _MONTHS[m.group(1).lower().rstrip(".")], int(m.group(2))))
            else:
                readings.add((_year(m.group(3)), _MONTHS[m.group(2).lower().rstrip(".")], int(m.group(1))))
            readings = {r for r in readings if _valid(*r)}
            if readings:
                out.append(CalendarDate(m.start(), m.end(), m.group(0), frozenset(readings)))
                taken.append((m.start(), m.end()))
    out.sort(key=lambda d: d.start)
    return tuple(out)


def same_date(a: CalendarDate, b: CalendarDate) -> bool:
    """Whether some reading of ``a`` is a reading of ``b`` (a missing year matches any year)."""
    for ya, ma, da in a.readings:
        for yb, mb, db in b.readings:
            if ma == mb and da == db and (ya is None or yb is None or ya == yb):
                return True
    return False
