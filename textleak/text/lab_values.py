"""Laboratory values in the other unit system: "creatinine 133 µmol/L" is "creatinine 1.5 mg/dL".

Conventional (mg/dL, %) and SI units (mmol/L, µmol/L, mmol/mol) differ by a factor that depends on the analyte
(glucose 18.0, creatinine 1/88.4), so, unlike :mod:`textleak.text.quantities`, whose factors depend on the unit
alone, a value is read here together with the analyte named before it. :func:`rewrite_lab_values` writes a text's
value in the unit a claim uses for the same analyte, when the two are equal after conversion within the rounding
of their written digits (or 1.5%); like the rest of the judges' reader's view it only brings a text closer to the
claims. Factors are the standard SI conversion factors (molar masses); HbA1c converts between the DCCT percentage
and the IFCC mmol/mol by the master equation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from textleak.text.rewrite import rewrite_as

_MICRO = r"(?:µ|μ|u|micro)mol/l"
#: analyte -> (how it is named, {unit: factor to the conventional unit}); names in lower case match in any case
_ANALYTES: dict[str, tuple[str, dict[str, float]]] = {
    "glucose": (r"(?i:glucose|blood sugar|sugar)|BSL|BGL|FBG|FPG|RBG|CBG", {"mmol/l": 18.016}),
    "creatinine": (r"(?i:creatinine|creat)|Cr", {"umol/l": 1 / 88.42}),
    "total cholesterol": (r"(?i:(?:total |serum )?cholesterol)|TC", {"mmol/l": 38.67}),
    "ldl": (r"LDL(?:-C)?(?i:(?: |-)cholesterol)?", {"mmol/l": 38.67}),
    "hdl": (r"HDL(?:-C)?(?i:(?: |-)cholesterol)?", {"mmol/l": 38.67}),
    "triglycerides": (r"(?i:triglycerides?)|TGs?", {"mmol/l": 88.57}),
    "bilirubin": (r"(?i:bilirubin|bili)", {"umol/l": 1 / 17.1}),
    "calcium": (r"(?i:(?:total |corrected |adjusted )?calcium)|Ca", {"mmol/l": 4.008}),  # not ionised calcium ("Ca2+"): another value
    "urea": (r"(?i:blood urea nitrogen|urea nitrogen|urea)|BUN", {"mmol/l": 2.801}),
    "uric acid": (r"(?i:uric acid|urate)", {"umol/l": 1 / 59.48, "mmol/l": 1000 / 59.48}),
    "magnesium": (r"(?i:magnesium)|Mg", {"mmol/l": 2.431}),
    "phosphate": (r"(?i:phosphate|phosphorus)|PO4", {"mmol/l": 3.097}),
    "hba1c": (r"HbA1c|(?i:hemoglobin a1c|haemoglobin a1c|glycated ha?emoglobin)|A1c", {"mmol/mol": 0.0}),  # affine: below
}
_UNIT = rf"mg/dl|mg/100 ?ml|mmol/mol|mmol/l|{_MICRO}|%"
_NUMBER = r"\d+(?:\.\d+)?"
_WITH_UNIT = re.compile(rf"(?<![\w.])({_NUMBER})\s*((?i:{_UNIT}))(?![\w])")


@dataclass(frozen=True)
class LabValue:
    """An analyte's value as written: ``start``/``end``/``text`` cover the number and its unit."""

    analyte: str
    start: int
    end: int
    text: str
    unit: str  # canonical spelling: "mg/dl", "mmol/l", "umol/l", "mmol/mol", "%"
    value: float  # in the conventional unit (mg/dL; % for HbA1c)
    step: float  # half the last written digit, in the conventional unit


def _unit(written: str) -> str:
    low = written.lower().replace(" ", "")
    if low == "mg/100ml":
        return "mg/dl"
    return "umol/l" if re.fullmatch(_MICRO, low) else low


def _conventional(analyte: str, unit: str, number: float) -> float | None:
    if analyte == "hba1c":
        return number if unit == "%" else number / 10.929 + 2.15 if unit == "mmol/mol" else None
    if unit == "mg/dl":
        return number
    factor = _ANALYTES[analyte][1].get(unit)
    return number * factor if factor else None


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern:
    names = "|".join(f"(?P<a{k}>{name})" for k, (name, _) in enumerate(_ANALYTES.values()))
    any_name = "|".join(f"(?:{name})" for name, _ in _ANALYTES.values())
    # the analyte, then up to 25 characters without a digit or another analyte's name ("level was", ": ", " (fasting) "),
    # the number and its unit: in "HDL cholesterol and LDL 3.4 mmol/L" the 3.4 is the LDL's
    gap = rf"(?:(?!(?<![\w-])(?:{any_name})(?![\w]))[^\d\n;]){{0,25}}?"
    return re.compile(rf"(?<![\w-])(?:{names})(?![\w]){gap}(?P<number>{_NUMBER})\s*(?P<unit>(?i:{_UNIT}))(?![\w])")


@lru_cache(maxsize=65536)
def find_lab_values(text: str) -> tuple[LabValue, ...]:
    """The analytes' values written in ``text`` with a unit, in order."""
    keys = list(_ANALYTES)
    out = []
    for m in _pattern().finditer(text):
        analyte = next(keys[k] for k in range(len(keys)) if m.group(f"a{k}") is not None)
        unit = _unit(m.group("unit"))
        number = float(m.group("number"))
        value = _conventional(analyte, unit, number)
        if value is None:
            continue
        decimals = len(m.group("number").partition(".")[2])
        half = 0.5 * 10 ** -decimals
        step = abs((_conventional(analyte, unit, number + half) or value) - value)
        out.append(LabValue(analyte, m.start("number"), m.end("unit"), text[m.start("number") : m.end("unit")], unit, value, step))
    return tuple(out)


def same_lab_value(a: LabValue, b: LabValue) -> bool:
    """One analyte, in two units, equal after conversion within the rounding of either written value (or 1.5%)."""
    if a.analyte != b.analyte or a.unit == b.unit:
        return False
    return abs(a.value - b.value) <= max(0.015 * max(abs(a.value), abs(b.value)), a.step + b.step)


def rewrite_lab_values(text: str, claims: Sequence[str]) -> str:
    """``text`` with each lab value that a claim writes in another unit written as the claim writes it."""
    references = [v for c in claims for v in find_lab_values(c)]
    if not references:
        return text
    # a value some claim writes as the text writes it, whatever names it ("The lab reported 133 µmol/L"), stays:
    # rewriting it would take it from that claim
    written = {_number_and_unit(m.group(0)) for c in claims for m in _WITH_UNIT.finditer(c)}
    found = [v for v in find_lab_values(text) if _number_and_unit(v.text) not in written]
    return rewrite_as(text, found, references, same_lab_value)


def _number_and_unit(written: str) -> tuple[str, str]:
    """("133", "umol/l") of "133 µmol/L"."""
    m = _WITH_UNIT.match(written)
    return m.group(1), _unit(m.group(2))
