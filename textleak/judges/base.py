"""The judge contract: rate each original claim against one (linked, sanitized) document.

Ratings follow seed 000: 1 = the document states the same information, 2 = similar / partially,
3 = unsupported. The normalised score is (rating - 1) / 2, so 0 is full leakage and 1 is private.
A claim whose answer could not be parsed after retries is ``status="unparsed"`` with ``score=None``:
it is reported, never scored as unsupported (fail toward leakage).

Callers use :meth:`Judge.rate`; a judge implements :meth:`Judge._rate`. ``rate`` checks the input and
applies the one empty-document rule (an empty or whitespace document supports no claim: every claim
is rated 3 without a model call), so ``_rate`` only ever sees non-empty documents with claims.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from textleak.heap import old_objects_frozen

UNPARSED = "unparsed"
OK = "ok"
# a key of ClaimRating.detail: the rating was set by a policy, not by reading the text (released text the judge
# cannot read counts as leaked); it counts as the report counts it, and hand labels never re-estimate it
NOT_JUDGED = "not_judged"


@dataclass
class ClaimRating:
    rating: int | None  # 1, 2, 3, or None when unparsed
    score: float | None  # in [0, 1]; may be an expectation (log-prob judge); None when unparsed
    status: str = OK
    detail: dict[str, Any] = field(default_factory=dict)  # samples, label distribution, similarity, ...

    def to_dict(self) -> dict[str, Any]:
        return {"rating": self.rating, "score": self.score, "status": self.status, **({"detail": self.detail} if self.detail else {})}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ClaimRating":
        return cls(d["rating"], d["score"], d["status"], d.get("detail", {}))


def normalise(rating: int) -> float:
    return (rating - 1) / 2.0


def empty_document_rating() -> ClaimRating:
    """The rating of any claim against an empty document: unsupported."""
    return ClaimRating(3, normalise(3), OK, {"reason": "empty document"})


def check_pairs(claims: Sequence[Sequence[str]], documents: Sequence[str], seeds: Sequence[int] | None = None) -> list[int]:
    """Validate (claims, document) pairs; returns the seeds (default: the pair index)."""
    if len(claims) != len(documents):
        raise ValueError(f"{len(claims)} claim lists for {len(documents)} documents")
    for i, (cs, doc) in enumerate(zip(claims, documents)):
        if not isinstance(doc, str):
            raise TypeError(f"document {i} is {type(doc).__name__}, expected str")
        if isinstance(cs, str) or any(not isinstance(c, str) for c in cs):
            raise TypeError(f"claims of document {i} must be a list of strings")
    out = list(range(len(documents))) if seeds is None else [int(s) for s in seeds]
    if len(out) != len(documents):
        raise ValueError(f"{len(out)} seeds for {len(documents)} documents")
    return out


class Judge(ABC):
    """Configuration in ``__init__`` (no model loading there); models load lazily on first call.

    Capabilities, read by the pipeline and the CLI: ``needs_llm`` (the judge takes an ``llm`` option),
    ``accepts_device`` (it takes ``device`` and ``batch_size`` options for its model).
    """

    name: str = "judge"
    needs_llm: bool = False
    accepts_device: bool = False

    def rate(self, claims: Sequence[Sequence[str]], documents: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[ClaimRating]]:
        """``claims[i]`` are rated against ``documents[i]``; returns one rating per claim, in order.
        ``seeds[i]`` (default: i) seeds any sampling for pair i."""
        seeds = check_pairs(claims, documents, seeds)
        out: list[list[ClaimRating] | None] = [None] * len(documents)
        todo = []
        for i, (cs, doc) in enumerate(zip(claims, documents)):
            if not cs:
                out[i] = []
            elif not doc.strip():
                out[i] = [empty_document_rating() for _ in cs]
            else:
                todo.append(i)
        if todo:
            with old_objects_frozen():
                rated = self._rate([list(claims[i]) for i in todo], [documents[i] for i in todo], [seeds[i] for i in todo])
            if len(rated) != len(todo):
                raise RuntimeError(f"judge {self.name} returned {len(rated)} rating lists for {len(todo)} documents")
            for i, rs in zip(todo, rated):
                if len(rs) != len(claims[i]):
                    raise RuntimeError(f"judge {self.name} returned {len(rs)} ratings for {len(claims[i])} claims")
                out[i] = list(rs)
        return out  # type: ignore[return-value]

    @abstractmethod
    def _rate(self, claims: list[list[str]], documents: list[str], seeds: list[int]) -> list[list[ClaimRating]]:
        """Ratings for non-empty documents with at least one claim each."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """``name``, model and settings: every report carries it, and it keys the ratings cache."""


def threshold_ratings(similarities: "Sequence[float] | np.ndarray", t1: float, t2: float) -> np.ndarray:
    """The one threshold rule: similarity >= t1 -> 1 (same), >= t2 -> 2 (similar), else 3."""
    s = np.asarray(similarities, dtype=float)
    return np.where(s >= t1, 1, np.where(s >= t2, 2, 3))


def threshold_rating(similarity: float, t1: float, t2: float, cap: int, measure: str, span: str | None) -> ClaimRating:
    """Rating of a claim from its best span's similarity (:func:`threshold_ratings`), no better than
    ``cap``, the best rating the number guard allows (1 when the claim's numbers appear in the span)."""
    raw = int(threshold_ratings([similarity], t1, t2)[0])
    rating = max(raw, cap)
    detail: dict[str, Any] = {measure: similarity, "span": span}
    if rating != raw:
        detail["number_guard"] = f"claim numbers missing from the best span: {raw} -> {rating}"
    return ClaimRating(rating, normalise(rating), OK, detail)


def guarded_best_span(similarities: Sequence[float], numbers_present: Sequence[bool], t1: float, t2: float,
                      guard_rating: int = 2) -> tuple[int, int]:
    """(span index, cap) of the span that rates the claim most leaked under the number guard.

    The guard caps a span that lacks the claim's numbers at ``guard_rating``; a span that has them is
    rated by its similarity alone. Taking the most leaked of the two best candidates (the most similar
    span overall, the most similar span with the numbers) means a decoy, a similar record appended to
    the document, cannot hide a verbatim claim by out-scoring the span that states it.
    """
    sims = np.asarray(similarities, dtype=float)
    best = int(np.argmax(sims))
    cap_best = 1 if numbers_present[best] else guard_rating
    with_numbers = [k for k, ok in enumerate(numbers_present) if ok]
    if not with_numbers or numbers_present[best]:
        return best, cap_best
    best_numbers = max(with_numbers, key=lambda k: sims[k])
    rating_best = max(int(threshold_ratings([sims[best]], t1, t2)[0]), cap_best)
    rating_numbers = int(threshold_ratings([sims[best_numbers]], t1, t2)[0])
    return (best_numbers, 1) if rating_numbers < rating_best else (best, cap_best)


def number_cap(claim_numbers: set[str], span_numbers: set[str], guard_rating: int = 2) -> int:
    """Best rating a claim may get given the numbers of its best span: 1 when nothing is missing."""
    if claim_numbers and not claim_numbers <= span_numbers:
        return guard_rating
    return 1
