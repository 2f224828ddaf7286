"""Stage 1: the claims of every record, cached by (atomizer settings, text).

The original set is atomized once and reused for every sanitizer evaluated against it; an
interrupted run resumes where it stopped (each finished batch is cached).
"""

from __future__ import annotations

from typing import Sequence

from textleak.atomizers import Atomizer
from textleak.registry import atomizers
from textleak.cache import DiskCache, cached_map, content_hash
from textleak.leakage.config import LeakageConfig


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
    sanitizers and runs; saved batch by batch, so an interrupted run resumes."""
    cache = cache if cache is not None else DiskCache("claims")
    settings = atomizer.describe()
    keys = [content_hash("claims", settings, t) for t in texts]
    seeds = list(seeds) if seeds is not None else list(range(len(texts)))
    found = cached_map(keys, lambda chunk: atomizer.atomize([texts[i] for i in chunk], [seeds[i] for i in chunk]), cache,
                       chunk_size=batch_size, progress=progress, desc=desc, unit="rec")
    return [list(c) for c in found]


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
