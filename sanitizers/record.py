"""The two baselines of seed 000 (App. A.2): No Sanitization and Remove All Information."""

from __future__ import annotations

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
