"""Stage 3: link each original record to one released record from the adversary's known claims."""

from __future__ import annotations

from typing import Sequence

from textleak.cache import DiskCache
from textleak.leakage.atomize import atomize_records
from textleak.leakage.config import LeakageConfig
from textleak.linkers import Link, Linker
from textleak.registry import linkers
from textleak.atomizers import Atomizer


def linker_for(config: LeakageConfig) -> Linker:
    """The configured linker; the pipeline's ``device`` and ``batch_size`` reach linkers that take them."""
    options = dict(config.linker_options)
    if isinstance(config.linker, str) and getattr(linkers.get(config.linker), "accepts_device", False):
        if config.device is not None:
            options.setdefault("device", config.device)
        if config.batch_size is not None:
            options.setdefault("batch_size", config.batch_size)
    return linkers.build(config.linker, **options)


def link_records(pool: Sequence[str], known: Sequence[Sequence[str]], active: Sequence[int], linker: Linker,
                 atomizer: Atomizer, config: LeakageConfig) -> dict[int, Link]:
    """The link of every evaluated original (by index) into ``pool``."""
    pool_claims = None
    if linker.needs_claims:
        pool_claims = atomize_records(pool, atomizer, cache=DiskCache("claims", enabled=config.use_cache),
                                      progress=config.progress, desc="atomizing sanitized")
    linker.fit(pool, pool_claims)
    from textleak.progress import map_chunks

    queries = [known[i] for i in active]  # queries are independent: linking in chunks only adds a progress bar
    links = map_chunks(lambda start, stop: linker.link(queries[start:stop]), len(queries), chunk_size=256,
                       progress=config.progress, desc="linking", unit="rec")
    return dict(zip(active, links))
