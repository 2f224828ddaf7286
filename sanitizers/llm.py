"""LLM sanitizers of seed 000 as ``datasets.map`` transforms (the engine is ``textleak.sanitize.llm``).

    ds = ds.map(LLMAnonymizer(llm="openai:gpt-4o@https://api.openai.com/v1"), batched=True,
                input_columns="text", with_indices=True)

``llm`` is a spec for ``textleak.llm.load_llm`` (``embedded``, ``hf:<id>``, ``openai:<model>@<url>``)
or a ``LanguageModel``; a spec string keeps the transform's fingerprint stable across processes.
Every call goes through the LLM cache. ``domain`` picks the prompt wording: ``"medqa"`` (a medical
record) or ``"wildchat"`` (a conversation between a user and an AI chatbot).
"""

from __future__ import annotations

import logging
from typing import Any

from textleak.sanitize import llm as anon
from textleak.llm import LanguageModel
from textleak.llm.base import UsesLLM
from textleak.registry import sanitizers
from textleak.sanitize.base import SanitizeResult, Sanitizer, screen_text

logger = logging.getLogger(__name__)


def _check_hash_parsing(value: str) -> str:
    if value not in anon.HASH_PARSING:
        raise ValueError(f"hash_parsing must be one of {anon.HASH_PARSING}, got {value!r}")
    return value


class _LLMSanitizer(UsesLLM, Sanitizer):
    """Shared plumbing: lazy model, input screening, per-record seeds."""

    needs_llm = True

    def __init__(self, llm: "str | LanguageModel", domain: str, temperature: float, max_new_tokens: int,
                 max_chars: int | None, output_column: str, status_column: str, seed: int):
        super().__init__(output_column=output_column, status_column=status_column, seed=seed)
        self.llm = llm
        self.domain = anon.check_domain(domain)
        self.temperature = float(temperature)
        self.max_new_tokens = int(max_new_tokens)
        self.max_chars = max_chars

    embedded_warning = ("an LLM sanitizer with the embedded Gemma 3 270M base model: fine for trying the pipeline, too "
                        "weak to anonymize; pass llm='hf:<id>' or 'openai:<model>@<url>'")

    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        results: list[SanitizeResult | None] = [screen_text(t, self.max_chars) for t in texts]
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            for i, r in zip(todo, self._run([texts[i] for i in todo], [seeds[i] for i in todo])):
                results[i] = r
        return results  # type: ignore[return-value]

    def _run(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        raise NotImplementedError


@sanitizers.register("llm_anonymizer")
class LLMAnonymizer(_LLMSanitizer):
    """Staab et al. (2024) as seed 000 ran it: adversarial inference of eight attributes, then
    anonymization given the inferences, for ``rounds`` rounds at temperature 0.1.

    ``on_missing_hash``: ``"fail"`` (default; status ``missing_hash``, no text), ``"empty"`` (seed
    000's released code: ""), ``"whole"`` (Staab's code: the whole answer); the last two keep the
    ``missing_hash`` status so they are never silent. ``hash_parsing``: ``"line"`` (default: the
    ``#`` must start a line, so an echoed instruction is not taken for output) or ``"anywhere"``
    (seed 000's released code: after the first ``#``).
    """

    name = "llm_anonymizer"
    VERSION = "1"

    def __init__(self, llm: "str | LanguageModel" = "embedded", domain: str = "medqa", rounds: int = 3,
                 temperature: float = 0.1, max_new_tokens: int = 1024, inference_max_new_tokens: int = 768,
                 on_missing_hash: str = "fail", hash_parsing: str = "line", max_chars: int | None = 32_000,
                 output_column: str = "sanitized", status_column: str = "sanitize_status", seed: int = 0):
        super().__init__(llm, domain, temperature, max_new_tokens, max_chars, output_column, status_column, seed)
        self.hash_parsing = _check_hash_parsing(hash_parsing)
        if int(rounds) < 1:
            raise ValueError("rounds must be >= 1")
        if on_missing_hash not in anon.MISSING_HASH_POLICIES:
            raise ValueError(f"on_missing_hash must be one of {anon.MISSING_HASH_POLICIES}")
        self.rounds = int(rounds)
        self.inference_max_new_tokens = int(inference_max_new_tokens)
        self.on_missing_hash = on_missing_hash

    def _run(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        out = anon.iterative_anonymize(
            self.lm, texts, seeds, domain=self.domain, rounds=self.rounds, temperature=self.temperature,
            max_new_tokens=self.max_new_tokens, inference_max_new_tokens=self.inference_max_new_tokens,
            on_missing_hash=self.on_missing_hash, hash_anywhere=self.hash_parsing == "anywhere",
        )
        return [res for res, _inferences in out]


@sanitizers.register("sanitize_paraphrase")
class SanitizeParaphrase(_LLMSanitizer):
    """Sanitize & Paraphrase: the C.2.1 anonymization prompt (no inference), then the C.2.2 paraphrase."""

    name = "sanitize_paraphrase"
    VERSION = "1"

    def __init__(self, llm: "str | LanguageModel" = "embedded", domain: str = "medqa", temperature: float = 0.1,
                 max_new_tokens: int = 1024, on_missing_hash: str = "fail", hash_parsing: str = "line",
                 max_chars: int | None = 32_000, output_column: str = "sanitized",
                 status_column: str = "sanitize_status", seed: int = 0):
        super().__init__(llm, domain, temperature, max_new_tokens, max_chars, output_column, status_column, seed)
        self.hash_parsing = _check_hash_parsing(hash_parsing)
        if on_missing_hash not in anon.MISSING_HASH_POLICIES:
            raise ValueError(f"on_missing_hash must be one of {anon.MISSING_HASH_POLICIES}")
        self.on_missing_hash = on_missing_hash

    def _run(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        return anon.sanitize_and_paraphrase(
            self.lm, texts, seeds, domain=self.domain, temperature=self.temperature,
            max_new_tokens=self.max_new_tokens, on_missing_hash=self.on_missing_hash,
            hash_anywhere=self.hash_parsing == "anywhere",
        )


@sanitizers.register("span_abstraction")
class SpanAbstraction(_LLMSanitizer):
    """Dou et al. (2024): detect self-disclosure spans per sentence, rewrite each more abstractly.

    ``detector``: ``"presidio"`` (offline default: Presidio's PII spans, ``detector_entities``
    selects which) or a Hugging Face token-classification model id or path, such as Dou et al.'s
    gated ``douy/deberta-v3-large-self-disclosure-detection`` (accept its licence on the Hub and log
    in; it is then used like any other id). The abstraction LLM samples at T = 0.7 (Dou et al.) and
    the first of its three proposals replaces the span; a span whose answer has no "span 1" makes
    the record fail with status ``unparsed``. The record keeps its original whitespace (Dou's code
    re-joins words with single spaces).
    """

    name = "span_abstraction"
    VERSION = "1"

    def __init__(self, llm: "str | LanguageModel" = "embedded", detector: str = "presidio",
                 detector_entities: list[str] | None = None, detector_aggregation: str = "first",
                 domain: str = "wildchat", temperature: float = 0.7, max_new_tokens: int = 128,
                 max_chars: int | None = 32_000, output_column: str = "sanitized",
                 status_column: str = "sanitize_status", seed: int = 0):
        super().__init__(llm, domain, temperature, max_new_tokens, max_chars, output_column, status_column, seed)
        self.detector = detector
        self.detector_entities = list(detector_entities) if detector_entities is not None else None
        self.detector_aggregation = detector_aggregation

    def _detect_fn(self) -> Any:
        fn = self.__dict__.get("_detect")
        if fn is None:
            if self.detector == "presidio":
                from textleak.sanitize.presidio import shared_engine

                fn = anon.presidio_span_detector(shared_engine(entities=self.detector_entities))
            else:
                fn = anon.hf_span_detector(self.detector, aggregation_strategy=self.detector_aggregation)
            self._detect = fn
        return fn

    def _run(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        return anon.abstract_spans(self.lm, self._detect_fn(), texts, seeds,
                                   temperature=self.temperature, max_new_tokens=self.max_new_tokens)
