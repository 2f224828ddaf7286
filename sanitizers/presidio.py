"""PII scrubbing with Presidio as a ``datasets.map`` transform (the engine is ``textleak.sanitize.presidio``).

    ds = ds.map(PresidioScrubber(), batched=True, input_columns="text", with_indices=True)
"""

from __future__ import annotations

from typing import Sequence

from textleak.registry import sanitizers
from textleak.sanitize.base import SanitizeResult, Sanitizer, screen_text
from textleak.sanitize.presidio import OPERATORS, PresidioEngine, shared_engine


@sanitizers.register("presidio")
class PresidioScrubber(Sanitizer):
    """Scrub PII spans found by Presidio (spaCy NER + pattern recognizers).

    ``operator``: ``"mask"`` (default, as the paper's Azure scrubbing: each character becomes ``*``),
    ``"replace"`` (``<PERSON>``), ``"hash"`` (salted SHA-256), ``"fake"`` (Faker, seeded per record).
    ``entities=None`` scrubs ``textleak.sanitize.presidio.DEFAULT_ENTITIES``; ``score_threshold`` drops weaker
    detections; ``spacy_model=None`` picks the best installed English model (never downloads).
    Records longer than ``max_chars`` get status ``too_long`` (spaCy's own limit is 1,000,000).
    """

    name = "presidio"
    VERSION = "1"

    def __init__(
        self,
        operator: str = "mask",
        entities: Sequence[str] | None = None,
        score_threshold: float = 0.4,
        spacy_model: str | None = None,
        batch_size: int = 32,
        max_chars: int | None = 100_000,
        output_column: str = "sanitized",
        status_column: str = "sanitize_status",
        seed: int = 0,
    ):
        super().__init__(output_column=output_column, status_column=status_column, seed=seed)
        if operator not in OPERATORS:
            raise ValueError(f"unknown operator {operator!r}; choose one of {OPERATORS}")
        self.operator = operator
        self.entities = list(entities) if entities is not None else None
        self.score_threshold = float(score_threshold)
        self.spacy_model = spacy_model
        self.batch_size = int(batch_size)
        self.max_chars = max_chars

    @property
    def engine(self) -> PresidioEngine:
        engine = self.__dict__.get("_engine")
        if engine is None:
            engine = shared_engine(self.spacy_model, self.entities, self.score_threshold, batch_size=self.batch_size)
            self._engine = engine
        return engine

    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        results: list[SanitizeResult | None] = [screen_text(t, self.max_chars) for t in texts]
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            spans = self.engine.analyze([texts[i] for i in todo])
            for i, s in zip(todo, spans):
                results[i] = SanitizeResult(self.engine.anonymize(texts[i], s, self.operator, seeds[i]))
        return results  # type: ignore[return-value]

    def sanitize_one_at_a_time(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        """The unbatched path (spaCy called per record), for the side-by-side speed benchmark."""
        out = []
        for t, s in zip(texts, seeds):
            screened = screen_text(t, self.max_chars)
            out.append(screened or SanitizeResult(self.engine.anonymize(t, self.engine.analyze_one(t), self.operator, s)))
        return out
