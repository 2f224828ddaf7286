"""The judge contract: rate each original claim against one (linked, sanitized) document.

Ratings follow seed 000: 1 = the document states the same information, 2 = similar / partially,
3 = unsupported. The normalised score is (rating - 1) / 2, so 0 is full leakage and 1 is private.
A claim whose answer could not be parsed after retries is ``status="unparsed"`` with ``score=None``:
it is reported, never scored as unsupported (fail toward leakage).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

UNPARSED = "unparsed"
OK = "ok"


@dataclass
class ClaimRating:
    rating: int | None  # 1, 2, 3, or None when unparsed
    score: float | None  # in [0, 1]; may be an expectation (log-prob judge); None when unparsed
    status: str = OK
    detail: dict[str, Any] = field(default_factory=dict)  # samples, label distribution, similarity, ...

    def to_dict(self) -> dict[str, Any]:
        return {"rating": self.rating, "score": self.score, "status": self.status, **({"detail": self.detail} if self.detail else {})}


def normalise(rating: int) -> float:
    return (rating - 1) / 2.0


class Judge(ABC):
    """Configuration in ``__init__`` (no model loading there); models load lazily on first call."""

    name: str = "judge"

    @abstractmethod
    def rate(self, claims: Sequence[Sequence[str]], documents: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[ClaimRating]]:
        """``claims[i]`` are rated against ``documents[i]``; returns one rating per claim, in order.
        ``seeds[i]`` (default: i) seeds any sampling for pair i."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """Judge name, model and settings: every report carries it."""


def threshold_rating(similarity: float | None, t1: float, t2: float, cap: int, measure: str, span: str | None) -> ClaimRating:
    """Rating of a claim from its best span's similarity: >= t1 same (1), >= t2 similar (2), else 3.

    ``cap`` is the best rating the number guard allows (1 when the claim's numbers appear in the span).
    ``similarity`` None means the document was empty: nothing in it supports the claim.
    """
    if similarity is None:
        return ClaimRating(3, normalise(3), OK, {"reason": "empty document"})
    raw = 1 if similarity >= t1 else 2 if similarity >= t2 else 3
    rating = max(raw, cap)
    detail: dict[str, Any] = {measure: similarity, "span": span}
    if rating != raw:
        detail["number_guard"] = f"claim numbers missing from the best span: {raw} -> {rating}"
    return ClaimRating(rating, normalise(rating), OK, detail)
