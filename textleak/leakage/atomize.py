"""Stage 1: the claims of every record, cached by (atomizer settings, text).

The original set is atomized once and reused for every sanitizer evaluated against it; an
interrupted run resumes where it stopped (each finished batch is cached).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from textleak.atomizers import Atomizer
from textleak.registry import atomizers
from textleak.cache import DiskCache, cached_map, content_hash
from textleak.leakage.config import LeakageConfig
from textleak.text.language import detect_language

logger = logging.getLogger(__name__)


def atomizer_for(config: LeakageConfig) -> Atomizer:
    """The configured atomizer; the pipeline's ``llm`` reaches it only when it uses one."""
    return atomizers.build(config.atomizer, llm=config.llm, strict_llm=False, **config.atomizer_options)


def atomize_records(
    texts: Sequence[str],
    atomizer: Atomizer,
    seeds: Sequence[int] | None = None,
    cache: DiskCache | None = None,
    batch_size: int = 64,
    progress: bool = False,
    desc: str = "atomizing",
) -> list[list[str]]:
    """Claims of every text, cached by (atomizer settings, text): computed once, reused across
    sanitizers and runs; saved batch by batch, so an interrupted run resumes. Records the atomizer
    lists in ``last_failed`` after a call (it fell back, e.g. on an LLM refusal) are not cached."""
    cache = cache if cache is not None else DiskCache("claims")
    settings = atomizer.describe()
    keys = [content_hash("claims", settings, t) for t in texts]
    seeds = list(seeds) if seeds is not None else list(range(len(texts)))
    failed: set[int] = set()  # records the atomizer could not atomize properly (e.g. the LLM refused): not cached

    def compute(chunk: list[int]) -> list[list[str]]:
        got = atomizer.atomize([texts[i] for i in chunk], [seeds[i] for i in chunk])
        failed.update(chunk[j] for j in getattr(atomizer, "last_failed", ()))
        return got

    found = cached_map(keys, compute, cache, chunk_size=batch_size, progress=progress, desc=desc, unit="rec",
                       keep=lambda i, v: i not in failed and (bool(v) or not texts[i].strip()),
                       # a cached entry that is not a list of claims, or no claims for a text with words, is damaged
                       valid=lambda i, v: isinstance(v, list) and all(isinstance(c, str) for c in v)
                       and (bool(v) or not texts[i].strip()))
    out = [list(c) for c in found]
    # fail toward leakage: a text with words but no claims would leave the adversary nothing to know and
    # the record nothing to leak (lexical privacy 1.0); its whole text is its one claim instead
    empty = [i for i, c in enumerate(out) if not c and texts[i].strip()]
    if empty:
        logger.warning("%s: %d of %d non-empty records gave no claims (first: record %d); each counts as one claim, its "
                       "whole text", getattr(atomizer, "name", "atomizer"), len(empty), len(texts), empty[0])
        for i in empty:
            out[i] = [" ".join(texts[i].split())]
    return out


def atomize_originals(originals: Sequence[str], active: Sequence[int], atomizer: Atomizer, config: LeakageConfig,
                      original_claims: Sequence[Sequence[str]] | None = None) -> list[list[str]]:
    """Claims of every original (empty lists for the originals that are not evaluated), or the
    caller's precomputed ``original_claims``."""
    if original_claims is not None:
        if len(original_claims) != len(originals):
            raise ValueError(f"{len(original_claims)} claim lists for {len(originals)} originals")
        return [list(c) for c in original_claims]
    claims: list[list[str]] = [[] for _ in originals]
    got = atomize_records([originals[i] for i in active], atomizer, seeds=list(active),
                          cache=DiskCache("claims", enabled=config.use_cache), progress=config.progress, desc="atomizing originals")
    for i, c in zip(active, got):
        claims[i] = c
    return claims


@dataclass
class Languages:
    """The language guess of every original (None where not evaluated) and the counts the report
    carries: records not in English, and records the atomizer could only split on punctuation."""

    labels: list[str | None]
    n_non_english: int
    n_fallback: int


def record_languages(originals: Sequence[str], active: Sequence[int], atomizer: Atomizer | None) -> Languages:
    """Guess the language of every evaluated original (:func:`textleak.text.language.detect_language`)
    and warn when some are not English: the rule atomizer only splits them on sentence punctuation
    (``atomizer.route``), so they give fewer, coarser claims. ``atomizer`` is None for precomputed
    claims (nothing fell back)."""
    labels: list[str | None] = [None] * len(originals)
    fallback = 0
    route = getattr(atomizer, "route", None)
    for i in active:
        labels[i] = detect_language(originals[i]).language
        if route is not None and route(originals[i]) != "rules":
            fallback += 1
    others = Counter(labels[i] for i in active if labels[i] != "en")
    n_other = sum(others.values())
    if n_other:
        names = ", ".join(f"{lang} {n}" for lang, n in others.most_common())
        logger.warning(
            "%d of %d records are not in English (%s); %s", n_other, len(active), names,
            f"the rule atomizer split {fallback} of them on sentence punctuation only (its rules are English): fewer, "
            "coarser claims; atomizer='llm' reads other languages" if fallback else
            f"atomizer {getattr(atomizer, 'name', 'precomputed')!r} handled them")
    return Languages(labels, n_other, fallback)
