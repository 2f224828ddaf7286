"""Quantities with units, read the way a reader reads them: 38.5 C is 101.3 F, 80 kg is 176 lb,
24 months is 2 years, 5m40s is 340 seconds, 5'10" is 178 cm, $2k is $2,000.

:func:`find_quantities` finds numbers with a unit in a text and gives each its value in one canonical
unit per dimension (temperature in C, mass in kg, length in m, time spans in days, volume in L,
data sizes in bytes, money in its currency). :func:`same_quantity` compares two of them with the rounding a reader
allows (1.5%, or the last written digit). :func:`rewrite_units` rewrites a text's quantities into
the units of given reference quantities when they state the same amount, so a judge that compares
words and numbers sees "38.5 C" where the released text wrote "101.3 F". One table of units lives
here; the judges read quantities only through this module.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from textleak.text.rewrite import rewrite_as

# unit spelling -> (dimension, factor to the canonical unit, offset); temperature is the one affine case
_UNITS: dict[str, tuple[str, float]] = {}


def _add(dimension: str, factor: float, *names: str) -> None:
    for n in names:
        _UNITS[n] = (dimension, factor)


_add("mass", 1.0, "kg", "kgs", "kilogram", "kilograms", "kilo", "kilos")
_add("mass", 0.001, "g", "gram", "grams", "gm", "gms")
_add("mass", 0.45359237, "lb", "lbs", "pound", "pounds")
_add("mass", 0.028349523, "oz", "ounce", "ounces")
_add("mass", 6.35029318, "st", "stone", "stones")
_add("length", 0.01, "cm", "cms", "centimeter", "centimeters", "centimetre", "centimetres")
_add("length", 0.001, "mm", "millimeter", "millimeters", "millimetre", "millimetres")
_add("length", 1.0, "meter", "meters", "metre", "metres")
_add("length", 1000.0, "km", "kms", "kilometer", "kilometers", "kilometre", "kilometres")
_add("length", 0.0254, "in", "inch", "inches", '"', "\u2033")
_add("length", 0.3048, "ft", "foot", "feet", "'", "\u2032")
_add("length", 1609.344, "mi", "mile", "miles")
_add("time", 1 / 86400, "s", "sec", "secs", "second", "seconds")
_add("time", 1 / 1440, "min", "mins", "minute", "minutes")
_add("time", 1 / 24, "h", "hr", "hrs", "hour", "hours")
_add("time", 1.0, "d", "day", "days")
_add("time", 7.0, "wk", "wks", "week", "weeks")
_add("time", 30.4375, "mo", "mos", "month", "months")
_add("time", 365.25, "y", "yr", "yrs", "year", "years")
_add("volume", 1.0, "l", "liter", "liters", "litre", "litres")
_add("volume", 0.001, "ml", "milliliter", "milliliters", "millilitre", "millilitres", "cc")
_add("temperature", 1.0, "c", "°c", "celsius", "degc", "degrees c", "degrees celsius", "° c")
_add("temperature", 1.0, "f", "°f", "fahrenheit", "degf", "degrees f", "degrees fahrenheit", "° f")
_add("data", 1.0, "b", "byte", "bytes")
_add("data", 1e3, "kb", "kilobyte", "kilobytes")
_add("data", 1e6, "mb", "megabyte", "megabytes")
_add("data", 1e9, "gb", "gigabyte", "gigabytes")
_add("data", 1e12, "tb", "terabyte", "terabytes")
_add("data", 2.0 ** 10, "kib", "ki")
_add("data", 2.0 ** 20, "mib", "mi")
_add("data", 2.0 ** 30, "gib", "gi")
_add("data", 2.0 ** 40, "tib", "ti")
# lab units where the analyte does not change the factor
_add("mass_concentration", 10.0, "g/dl")
_add("mass_concentration", 1.0, "g/l")
_CURRENCY = {"rs": "inr", "$": "usd", "usd": "usd", "dollars": "usd", "dollar": "usd", "£": "gbp", "gbp": "gbp", "pounds sterling": "gbp",
             "€": "eur", "eur": "eur", "euros": "eur", "euro": "eur", "¥": "jpy", "₹": "inr", "inr": "inr", "rupees": "inr",
             "r$": "brl", "brl": "brl", "reais": "brl", "₦": "ngn", "ngn": "ngn", "naira": "ngn", "cad": "cad", "c$": "cad",
             "aud": "aud", "a$": "aud", "chf": "chf", "zar": "zar", "₱": "php", "php": "php", "pesos": "php", "jpy": "jpy", "yen": "jpy",
             "zł": "pln", "zl": "pln", "pln": "pln", "złotych": "pln", "zloty": "pln", "zlotys": "pln", "kr": "kr", "sek": "sek", "nok": "nok",
             "dkk": "dkk", "kč": "czk", "czk": "czk", "ron": "ron", "₺": "try", "try": "try", "₩": "krw", "krw": "krw",
             "₽": "rub", "rub": "rub", "₴": "uah", "uah": "uah", "mxn": "mxn", "kes": "kes", "ksh": "kes", "aed": "aed", "sgd": "sgd",
             "huf": "huf", "ca$": "cad", "us$": "usd", "au$": "aud", "nz$": "nzd", "hk$": "hkd", "sg$": "sgd", "s$": "sgd"}
_AMBIGUOUS_AFTER_SPACE = frozenset({"in", "s", "d", "y", "h", "st", "mo", "l", "b", "mi", "ki", "gi", "ti"})
#: scale words after an amount ("28.5k", "3.5 lakh", "2 million") and their factors (also read by :mod:`textleak.text.coarse`)
SCALE_WORDS = {"lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "lpa": 1e5, "crore": 1e7, "cr": 1e7, "k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}

_NUM = r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"  # Indian grouping too: 3,50,000
_unit_names = sorted((u for u in _UNITS if u not in ("'", '"', "\u2032", "\u2033")), key=len, reverse=True)
_UNIT_RE = "|".join(re.escape(u) for u in _unit_names)
# a time span in several units, largest first, as logs and people write it: "5m40s", "2h30m", "1h 20min", "2d3h"
_SPAN_UNIT = r"days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s"
_COMPOUND_SPAN = re.compile(rf"(?<![\w.])(?:\d{{1,9}}\s?(?:{_SPAN_UNIT})\s?){{1,3}}\d{{1,9}}\s?(?:{_SPAN_UNIT})(?![\w])", re.IGNORECASE)
_SPAN_PART = re.compile(rf"(\d{{1,9}})\s?({_SPAN_UNIT})", re.IGNORECASE)
_SPAN_DAYS = {"d": 1.0, "h": 1 / 24, "m": 1 / 1440, "s": 1 / 86400}
# 5'10", 5 ft 10 in, 5 feet 10 inches
_FEET_INCHES = re.compile(rf"(?<![\w.])(\d+)\s*(?:'|\u2032|ft\.?|feet|foot)\s*(\d+(?:\.\d+)?)\s*(?:\"|\u2033|''|in\.?|inch(?:es)?)?(?![\w])", re.IGNORECASE)
_QUANTITY = re.compile(rf"(?<![\w.])({_NUM})\s*(?:-\s*)?(°\s*[cf]|{_UNIT_RE}|'|\u2032|\"|\u2033)(?![\w/])", re.IGNORECASE)
_DATA_SUFFIX = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([KMGT])(i)?(?![\w])")
# money amounts as they are written around the world: "1.234,56 €", "R$ 12.400,00", "2 046,80 $" (dots or
# spaces between thousands, a comma before two decimals), beside the English forms
# (groups bounded: a long run of digit groups is no amount, and unbounded ones made long numeric dumps quadratic)
_MONEY_NUM = rf"\d{{1,3}}(?:[.\u00a0\u202f ]\d{{3}}){{1,4}},\d{{1,2}}(?!\d)|\d{{1,3}}(?:\.\d{{3}}){{1,4}}(?![\d,])|\d+,\d{{2}}(?![\d,])|{_NUM}"
# spaces or apostrophes between thousands without decimals ("3 200 zł", "CHF 2'400"): spaces only before the
# currency ("$45 120 seats" is $45 and 120 seats), apostrophes either side
_MONEY_NUM_BEFORE = rf"\d{{1,3}}(?:[\u00a0\u202f ]\d{{3}}){{1,4}}(?![\d,.])|\d{{1,3}}(?:['\u2019]\d{{3}}){{1,4}}(?![\d,])|{_MONEY_NUM}"
_MONEY_NUM_AFTER = rf"\d{{1,3}}(?:['\u2019]\d{{3}}){{1,4}}(?![\d,])|{_MONEY_NUM}"
_SYMBOL = r"CA\$|US\$|AU\$|NZ\$|HK\$|SG\$|R\$|C\$|A\$|S\$|[$£€¥₹₦₱₺₩₽₴]"
_SCALE = r"k|m|mn|bn|cr|thousand|million|billion|lakhs?|lacs?|crore|lpa"
_CODES = "usd|gbp|eur|inr|brl|ngn|cad|aud|chf|zar|jpy"
# codes that are also English words ("try", "ron", "rub", "kes"): in capitals only
_CAPITAL_CODES = "PLN|SEK|NOK|DKK|CZK|RON|TRY|KRW|RUB|UAH|MXN|KES|AED|SGD|HUF"
_MONEY = re.compile(rf"(?<![\w.])({_SYMBOL}|(?i:{_CODES}|rs\.?|php|ksh)\s|(?-i:{_CAPITAL_CODES})\s)\s*({_MONEY_NUM_AFTER})\s*({_SCALE})?(?![\w])|"
                    rf"(?<![\w.])({_MONEY_NUM_BEFORE})(?:\s*({_SCALE}))?\s*({_SYMBOL}|{_CODES}|(?-i:{_CAPITAL_CODES})|zł|zl|złotych|zlotys?|kr|kč|dollars?|euros?|rupees|reais|naira|pesos|yen)(?![\w])|"
                    rf"(?<![\w.])({_NUM})\s*(lpa)(?![\w])", re.IGNORECASE)
# a bare amount with a scale word and no currency ("rent 28.5k", "850k monthly", "3.5 lac"): read as its value
_BARE_AMOUNT = re.compile(rf"(?<![\w.])({_NUM})\s*(k|lakhs?|lacs?|lpa|crore|cr|thousand|grand)(?![\w])", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """A number with its unit as written (``text`` at ``start:end``), its ``value`` in the canonical
    unit of its ``dimension``, and ``decimals``, the written precision (for rounding)."""

    start: int
    end: int
    text: str
    value: float
    dimension: str
    unit: str
    decimals: int


def _number(s: str, money: bool = False) -> tuple[float, int]:
    s = re.sub(r"[\u00a0\u202f '\u2019]", "", s)
    if money and re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+,\d{1,2}", s):  # 1.234,56 € and 84,37 €: a decimal comma
        s = s.replace(".", "").replace(",", ".")
    s = s.replace(",", "")
    return float(s), len(s.split(".", 1)[1]) if "." in s else 0


def _canonical_unit(unit: str) -> str:
    u = re.sub(r"\s+", " ", unit.lower().replace("°", "° ").replace("°  ", "° ")).strip()
    if u in ("° c", "°c"):
        return "c"
    if u in ("° f", "°f"):
        return "f"
    return {"degrees c": "c", "degrees celsius": "c", "celsius": "c", "degc": "c", "degrees f": "f",
            "degrees fahrenheit": "f", "fahrenheit": "f", "degf": "f"}.get(u, u)


def _merged(intervals: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Starts and ends of the union of ``[a, b)`` intervals, sorted and disjoint (for bisection)."""
    starts: list[int] = []
    ends: list[int] = []
    for a, b in sorted(intervals):
        if starts and a <= ends[-1]:
            ends[-1] = max(ends[-1], b)
        else:
            starts.append(a)
            ends.append(b)
    return starts, ends


@lru_cache(maxsize=65536)
def find_quantities(text: str) -> tuple[Quantity, ...]:
    """Every number with a known unit in ``text`` (feet-and-inches and money included), in order."""
    out: list[Quantity] = []
    starts: list[int] = []  # feet-and-inches matches: in order and disjoint, so one bisection finds the one
    ends: list[int] = []    # that could hold a position (a scan of all of them made long texts quadratic)
    for m in _FEET_INCHES.finditer(text):
        feet, inches = float(m.group(1)), float(m.group(2))
        if inches >= 12:
            continue
        out.append(Quantity(m.start(), m.end(), m.group(0), feet * 0.3048 + inches * 0.0254, "length", "ft-in", 0))
        starts.append(m.start())
        ends.append(m.end())
    for m in _COMPOUND_SPAN.finditer(text):
        parts = [(int(n), unit.lower()[0]) for n, unit in _SPAN_PART.findall(m.group(0))]
        order = [list(_SPAN_DAYS).index(u) for _, u in parts]
        if len(parts) >= 2 and order == sorted(set(order)):  # each unit once, largest first: "5m40s", not "5m 5m"
            out.append(Quantity(m.start(), m.end(), m.group(0), sum(n * _SPAN_DAYS[u] for n, u in parts), "time", "compound", 0))
    starts, ends = _merged([(q.start, q.end) for q in out])
    for m in _QUANTITY.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < ends[k]:
            continue
        unit = _canonical_unit(m.group(2))
        if unit not in _UNITS or m.group(2) == "G":  # "29G" is a size (df), never grams
            continue
        value, decimals = _number(m.group(1))
        dimension, factor = _UNITS[unit]
        if dimension == "temperature":
            value = (value - 32) * 5 / 9 if unit == "f" else value
            if not -30 <= value <= 60:  # "5 F" a grade or a size, not a temperature
                continue
        else:
            value *= factor
        if unit in _AMBIGUOUS_AFTER_SPACE and not m.group(0)[len(m.group(1)):][:1].isalpha() and m.group(0)[len(m.group(1)):][:1] != "-":
            # "3 in the morning", "at 2 s", "5 d": a one-letter or word unit after a space is not a unit
            continue
        out.append(Quantity(m.start(), m.end(), m.group(0), value, dimension, unit, decimals))
    starts, ends = _merged([(q.start, q.end) for q in out])
    for m in _DATA_SUFFIX.finditer(text):  # "29G", "500M", "2560Mi" as df, docker and Kubernetes write sizes
        k = bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < ends[k]:
            continue
        value, decimals = _number(m.group(1))
        unit = (m.group(2) + (m.group(3) or "")).lower() + ("" if m.group(3) else "b")
        out.append(Quantity(m.start(), m.end(), m.group(0), value * _UNITS[unit][1], "data", unit, decimals))
    starts, ends = _merged([(q.start, q.end) for q in out])
    for m in _MONEY.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < ends[k]:
            continue
        if m.group(1):
            symbol, number, mult = m.group(1), m.group(2), m.group(3)
        elif m.group(4):
            number, mult, symbol = m.group(4), m.group(5), m.group(6)
        else:  # "32 LPA": lakh rupees a year
            number, mult, symbol = m.group(7), m.group(8), "inr"
        symbol = symbol.strip().rstrip(".")
        currency = _CURRENCY.get(symbol.lower()) or _CURRENCY.get(symbol.lower().rstrip("s"))
        if currency is None:
            continue
        value, decimals = _number(number, money=True)
        value *= SCALE_WORDS.get((mult or "").lower(), 1.0)
        out.append(Quantity(m.start(), m.end(), m.group(0), value, "money:" + currency, "money", decimals))
    out.sort(key=lambda q: q.start)
    return tuple(out)


@lru_cache(maxsize=65536)
def bare_amounts(text: str) -> tuple[float, ...]:
    """Amounts written with a scale word and no currency ("rent 28.5k", "3.5 lac", "two grand" aside):
    a reader who knows the claim's currency reads them as money."""
    out = []
    for m in _BARE_AMOUNT.finditer(text):
        scale = m.group(2).lower()
        scale = {"lakhs": "lakh", "lacs": "lac", "grand": "thousand"}.get(scale, scale)
        out.append(_number(m.group(1))[0] * SCALE_WORDS[scale])
    return tuple(out)


_KRONOR = frozenset({"money:kr", "money:sek", "money:nok", "money:dkk"})  # "45 000 kr" is the NOK, SEK or DKK amount


def same_quantity(a: Quantity, b: Quantity, rel: float = 0.015, near: bool = False) -> bool:
    """Whether two quantities state the same amount: same dimension, and in another unit values within ``rel`` of
    each other (the rounding of a conversion: 80 kg is 176 lb; data sizes: 1 GB and 1 GiB are read as the same, as
    people write them); in the same unit (in any spelling: "kg", "kilograms"; one currency) equal values, or with
    ``near`` within ``rel`` too (EUR 1,245 is near EUR 1,240: a small change, not the same amount)."""
    if a.dimension != b.dimension and not {a.dimension, b.dimension} <= _KRONOR:
        return False
    if a.dimension == "data":
        rel = 0.075
    if a.value == b.value:
        return True
    scale = max(abs(a.value), abs(b.value))
    if scale == 0:
        return False
    if a.dimension == "temperature":
        return abs(a.value - b.value) <= max(0.06, 0.5 * 10 ** -min(a.decimals, b.decimals) * (5 / 9 if "f" in (a.unit, b.unit) else 1))
    if not near and _UNITS.get(a.unit, a.unit) == _UNITS.get(b.unit, b.unit):
        return abs(a.value - b.value) <= 1e-9 * scale  # the same unit: no conversion to forgive, so 80 kg is not 81 kg
    return abs(a.value - b.value) <= rel * scale


def rewrite_units(text: str, references: Iterable[Quantity]) -> str:
    """``text`` with each quantity that states the same amount as a reference quantity in another
    unit written as the reference writes it (the same unit in another spelling is left alone)."""
    refs = list(references)
    if not refs:
        return text
    return rewrite_as(text, find_quantities(text), refs, lambda q, r: r.unit != q.unit and same_quantity(q, r))


def quantities_of(texts: Sequence[str]) -> list[Quantity]:
    """The quantities of several texts together (the references for :func:`rewrite_units`)."""
    return [q for t in texts for q in find_quantities(t)]
