"""PII scrubbing with Presidio as a ``datasets.map`` transform (the engine is ``textleak.sanitize.presidio``).

    ds = ds.map(PresidioScrubber(), batched=True, input_columns="text", with_indices=True)
"""

from __future__ import annotations

from typing import Any, Sequence

from textleak.registry import sanitizers
from textleak.sanitize.base import SanitizeResult, Sanitizer, screen_text
from textleak.sanitize.presidio import (DEFAULT_ALLOW_LIST, OPERATORS, PresidioConfig, PresidioEngine, describe_engine,
                                        operator_configs, shared_engine)


@sanitizers.register("presidio")
class PresidioScrubber(Sanitizer):
    """Scrub PII spans found by Presidio (spaCy NER + pattern recognizers).

    ``operator``: ``"replace"`` (default, Presidio's own: ``<PERSON>``), ``"mask"`` (each character becomes
    ``*``, as the paper's Azure scrubbing shows it), ``"hash"`` (salted SHA-256), ``"fake"`` (Faker, seeded
    per record). ``entities=None`` scrubs ``textleak.sanitize.presidio.DEFAULT_ENTITIES``; ``score_threshold``
    drops weaker detections; ``spacy_model=None`` picks the best installed English model (never downloads).
    Records longer than ``max_chars`` get status ``too_long`` (spaCy's own limit is 1,000,000).

    Presidio's own configuration, as its users write it: ``operators`` (``anonymize()``'s dict of
    ``OperatorConfig``; overrides ``operator``), ``allow_list`` (never scrubbed; default
    ``DEFAULT_ALLOW_LIST``: units and abbreviations such as "dB" and "AI"), ``entity_thresholds``
    (``{"ORGANIZATION": 0.9}``), ``recognizers`` (extra ``PatternRecognizer`` objects or their dicts),
    ``nlp_configuration`` (the ``NlpEngineProvider`` dict), or ready ``analyzer`` / ``anonymizer`` engines.

    Pickling (``datasets.map`` fingerprints and ``num_proc``): configurations are stored as plain data
    (operators as ``{"operator_name", "params"}``, recognizers as their ``to_dict()``), so equal settings
    give equal fingerprints. A user's *engine object* is not data: the scrubber keeps it out of its
    pickled state and stores its description instead (:func:`describe_engine`: class, NLP models,
    recognizers and their patterns, operators), which is what the fingerprint sees. An unpickled copy
    (``num_proc>1``) therefore has no engine and says so on first use: pass the configurations instead
    of the engine for multi-process maps.
    """

    name = "presidio"
    VERSION = "3"  # 2: Presidio's replace is the default operator; the allow list. 3: options in one PresidioConfig

    def __init__(
        self,
        operator: str = "replace",
        entities: Sequence[str] | None = None,
        score_threshold: float = 0.4,
        spacy_model: str | None = None,
        batch_size: int = 32,
        max_chars: int | None = 100_000,
        output_column: str = "sanitized",
        status_column: str = "sanitize_status",
        seed: int = 0,
        *,
        operators: dict[str, Any] | None = None,
        allow_list: Sequence[str] | None = DEFAULT_ALLOW_LIST,
        entity_thresholds: dict[str, float] | None = None,
        recognizers: Sequence[Any] | None = None,
        nlp_configuration: dict[str, Any] | None = None,
        analyzer: Any = None,
        anonymizer: Any = None,
    ):
        super().__init__(output_column=output_column, status_column=status_column, seed=seed)
        if operator not in OPERATORS:
            raise ValueError(f"unknown operator {operator!r}; choose one of {OPERATORS}")
        self.operator = operator
        self.operators = operator_configs(operators)
        self.max_chars = max_chars
        self.presidio = PresidioConfig(spacy_model=spacy_model, entities=entities, score_threshold=score_threshold,
                                       batch_size=batch_size, allow_list=allow_list, entity_thresholds=entity_thresholds,
                                       recognizers=recognizers or (), nlp_configuration=nlp_configuration)
        # engine objects hold models: kept out of the pickled config, described in it (see the class docstring)
        self._analyzer_object = analyzer
        self._anonymizer_object = anonymizer
        self.analyzer = describe_engine(analyzer) if analyzer is not None else None
        self.anonymizer = describe_engine(anonymizer) if anonymizer is not None else None

    @property
    def engine(self) -> PresidioEngine:
        engine = self.__dict__.get("_engine")
        if engine is None:
            analyzer, anonymizer = self.__dict__.get("_analyzer_object"), self.__dict__.get("_anonymizer_object")
            if (self.analyzer is not None and analyzer is None) or (self.anonymizer is not None and anonymizer is None):
                raise RuntimeError(
                    "this PresidioScrubber was built on your own AnalyzerEngine/AnonymizerEngine, which is not pickled "
                    "(only its description is, for the fingerprint), and this is an unpickled copy (datasets.map with "
                    "num_proc>1?): pass the configurations instead (nlp_configuration=, recognizers=, operators=, "
                    "allow_list=, entity_thresholds=), which every process rebuilds")
            if analyzer is not None or anonymizer is not None:
                engine = PresidioEngine(self.presidio, analyzer=analyzer, anonymizer=anonymizer).load()
            else:
                engine = shared_engine(self.presidio)
            self._engine = engine
        return engine

    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        results: list[SanitizeResult | None] = [screen_text(t, self.max_chars) for t in texts]
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            spans = self.engine.analyze([texts[i] for i in todo])
            for i, s in zip(todo, spans):
                results[i] = SanitizeResult(self.engine.anonymize(texts[i], s, self.operator, seeds[i], self.operators))
        return results  # type: ignore[return-value]

    def sanitize_one_at_a_time(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        """The unbatched path (spaCy called per record), for the side-by-side speed benchmark."""
        out = []
        for t, s in zip(texts, seeds):
            screened = screen_text(t, self.max_chars)
            out.append(screened or SanitizeResult(self.engine.anonymize(t, self.engine.analyze_one(t), self.operator, s, self.operators)))
        return out
