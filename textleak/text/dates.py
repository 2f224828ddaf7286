"""Calendar dates in any of the ways people write them: "14 February 2025", "February 14th, 2025",
"14/02/2025", "2025-02-14", "Feb 14", and day-first in the languages users mix into English ("3 de febrero de
2024", "12. März 2025", "30 kwietnia"). A numeric date whose day and month could be either way round
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
# month names in the languages users mix into English requests, day first as they write them ("3 de febrero de
# 2024", "12. März 2025", "4 juin", "30 kwietnia 2024"): Spanish, French, German, Portuguese, Italian, Dutch,
# Polish and Czech (nominative and genitive), Swedish, Danish and Norwegian, Romanian, Turkish, Indonesian
_FOREIGN_MONTHS = {name: number for number, names in enumerate((
    "enero janvier januar jänner janeiro gennaio januari styczeń stycznia styczen leden ledna ianuarie ocak",
    "febrero février fevrier februar fevereiro febbraio februari luty lutego únor února unor unora februarie şubat subat",
    "marzo mars märz maerz março marco maart marzec marca březen března brezen brezna marts martie maret",
    "abril avril aprile kwiecień kwietnia kwiecien duben dubna aprilie nisan",
    "mayo mai maio maggio mei maj maja květen května kveten kvetna mayıs mayis",
    "junio juin juni junho giugno czerwiec czerwca červen června cerven cervna iunie haziran",
    "julio juillet juli julho luglio lipiec lipca červenec července cervenec cervence iulie temmuz",
    "agosto août aout augustus sierpień sierpnia sierpien srpen srpna augusti ağustos agustos agustus",
    "septiembre setiembre septembre setembro settembre wrzesień września wrzesien wrzesnia září zari septembrie eylül eylul",
    "octubre octobre oktober outubro ottobre październik października pazdziernik pazdziernika říjen října rijen rijna octombrie ekim",
    "noviembre novembre novembro listopad listopada listopadu noiembrie kasım kasim",
    "diciembre décembre decembre dezember dezembro dicembre grudzień grudnia grudzien prosinec prosince decembrie aralık aralik desember",
), start=1) for name in names.split()}
_FOREIGN_MONTH = "(" + "|".join(sorted(_FOREIGN_MONTHS, key=len, reverse=True)) + ")"
# month words that are also English words or names ("2 Mars bars", "3 Mayo Clinic sites", "1. Marco Rossi"): a date
# only with its year or "de" ("4 mai 2024", "3 de mayo")
_AMBIGUOUS_MONTHS = frozenset("mars mayo mai mei maj maja marco marca marzo julio juli augustus agosto kasim kasım nisan ekim mart".split())
_PATTERNS = [
    ("ymd", re.compile(r"(?<![\d/.-])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d/.-]*\d)")),
    ("xyz", re.compile(r"(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?![\d/.-]*\d)")),
    ("mdy", re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?\b", re.IGNORECASE)),
    ("dmy", re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE)),
    ("dmy_foreign", re.compile(rf"\b(\d{{1,2}})(?:\.|º|er)?\s+(?:de\s+)?{_FOREIGN_MONTH}(?:,?\s+(?:de\s+|del\s+)?(\d{{4}}))?(?!\w)", re.IGNORECASE)),
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
def find_dates(text: str, foreign: bool = True) -> tuple[CalendarDate, ...]:
    """Every calendar date written in ``text`` (see the module docstring), in order; ``foreign=False`` reads
    English month names only (a claim's: "2 Mayo Clinic sites" is no date)."""
    out: list[CalendarDate] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        if kind == "dmy_foreign" and not foreign:
            continue
        for m in pattern.finditer(text):
            if kind == "dmy_foreign" and m.group(2).lower() in _AMBIGUOUS_MONTHS and not m.group(3) and " de " not in m.group(0).lower():
                continue
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
            elif kind == "dmy":
                readings.add((_year(m.group(3)), _MONTHS[m.group(2).lower().rstrip(".")], int(m.group(1))))
            else:
                readings.add((_year(m.group(3)), _FOREIGN_MONTHS[m.group(2).lower()], int(m.group(1))))
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
