"""The two baselines of seed 000 (App. A.2), No Sanitization and Remove All Information, and a
stress release between them: every number changed, every word kept."""

from __future__ import annotations

import re

from textleak.registry import sanitizers
from textleak.sanitize.base import SanitizeResult, Sanitizer


@sanitizers.register("identity")
class Identity(Sanitizer):
    """No Sanitization: the record unchanged (the lower bound on privacy, upper bound on utility)."""

    name = "identity"
    VERSION = "1"

    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        return [SanitizeResult(t) for t in texts]


@sanitizers.register("remove_all")
class RemoveAll(Sanitizer):
    """Remove All Information: the private text becomes "" (status ``ok``: emptiness is the method
    here, not a failure); the task fields of the record (MedQA question and options) stay."""

    name = "remove_all"
    VERSION = "1"

    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        return [SanitizeResult("") for _ in texts]


def change_numbers(text: str) -> str:
    """Every number (ages, vitals, lab values) changed deterministically, the rest of the text kept:
    ``x -> 2x + 7`` for integers, ``x -> 1.37x + 3`` for decimals (one decimal place)."""
    def shift(m: re.Match) -> str:
        value = m.group(0)
        if "." in value:
            return f"{float(value) * 1.37 + 3:.1f}"
        return str(int(value.replace(",", "")) * 2 + 7)

    return re.sub(r"\d+(?:,\d{3})*(?:\.\d+)?", shift, text)


@sanitizers.register("numbers_changed")
class NumbersChanged(Sanitizer):
    """Every number changed, every word kept (:func:`change_numbers`): a measurement baseline whose
    privacy must land between identity and remove_all, not a sanitizer to release with."""

    name = "numbers_changed"
    VERSION = "1"

    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        return [SanitizeResult(change_numbers(t)) for t in texts]
