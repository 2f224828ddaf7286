"""Stage 4: rate every claim the adversary did not know against the record it was linked to.

Ratings are cached by (judge settings, claims, document, seed) in batches of records, so an
interrupted run resumes; answers that are not ``ok`` (unparsed) are never cached, so a rerun asks
again.
"""

from __future__ import annotations

import inspect
from typing import Sequence

from textleak.cache import DiskCache, cached_map, content_hash
from textleak.distributed import rate_sharded
from textleak.judges import ClaimRating, Judge
from textleak.judges.base import OK
from textleak.leakage.config import LeakageConfig
from textleak.linkers import Link
from textleak.registry import judges
from textleak.text.seeds import derive_seed


def judge_for(config: LeakageConfig) -> Judge:
    """The configured judge: ``llm`` reaches it only when it uses one (it may be meant for the atomizer
    or the paraphraser), ``device`` and ``batch_size`` only when it takes them."""
    if not isinstance(config.judge, str):
        return judges.build(config.judge)
    options = dict(config.judge_options)
    if judges.get(config.judge).accepts_device:
        if config.device is not None:
            options.setdefault("device", config.device)
        if config.batch_size is not None:
            options.setdefault("batch_size", config.batch_size)
    if config.unreadable == "judge" and "non_english" in inspect.signature(judges.get(config.judge).__init__).parameters:
        options.setdefault("non_english", "judge")  # the user asked for text in other languages to be rated, not counted leaked
    return judges.build(config.judge, llm=config.llm, strict_llm=False, **options)


def rate_with_cache(judge: Judge, jobs: Sequence[tuple[list[str], str, int]], cache: DiskCache | None,
                    batch_records: int = 64, progress: bool = False, desc: str = "judging claims") -> list[list[ClaimRating]]:
    """Ratings for (claims, document, seed) jobs, computed in batches of records that are cached as they finish."""
    settings = judge.describe()
    keys = [content_hash("ratings", settings, claims, doc, seed) for claims, doc, seed in jobs]

    def compute(chunk: list[int]) -> list[list[dict]]:
        # under `accelerate launch` each process rates a share of the batch and every process gets all of it
        rated = rate_sharded(judge, [jobs[j][0] for j in chunk], [jobs[j][1] for j in chunk], [jobs[j][2] for j in chunk])
        return [[r.to_dict() for r in rs] for rs in rated]

    rows = cached_map(keys, compute, cache, chunk_size=batch_records, progress=progress, desc=desc, unit="rec",
                      keep=lambda _, rs: all(r["status"] == OK for r in rs), valid=_valid_ratings(jobs))
    return [[ClaimRating.from_dict(r) for r in rs] for rs in rows]


def _valid_ratings(jobs: Sequence[tuple[list[str], str, int]]):
    """Whether a cached value has the shape ``rate_with_cache`` stores for job i: one OK rating (1-3,
    score in [0, 1]) per claim. Anything else is a damaged entry, recomputed (``cached_map``)."""
    def valid(i: int, rows: object) -> bool:
        return (isinstance(rows, list) and len(rows) == len(jobs[i][0])
                and all(isinstance(r, dict) and r.get("status") == OK and r.get("rating") in (1, 2, 3)
                        and isinstance(r.get("score"), (int, float)) and not isinstance(r.get("score"), bool)
                        and 0 <= r["score"] <= 1 for r in rows))
    return valid


def judge_claims(claims: Sequence[Sequence[str]], known_idx: Sequence[Sequence[int]], links: dict[int, Link],
                 pool: Sequence[str], judge: Judge, config: LeakageConfig) -> dict[int, list[ClaimRating]]:
    """For every linked (or, under ``unlinked="score_empty"``, unlinked) original: the ratings of its
    claims that the adversary did not know, in claim order."""
    jobs, owners = [], []
    for i, link in links.items():
        if link.index is None and config.unlinked == "skip":
            continue
        doc = pool[link.index] if link.index is not None else ""
        known = set(known_idx[i])
        jobs.append(([c for j, c in enumerate(claims[i]) if j not in known], doc, derive_seed(config.seed, "judge", i, bits=31)))
        owners.append(i)
    ratings = rate_with_cache(judge, jobs, DiskCache("ratings", enabled=config.use_cache), config.judge_batch_records,
                              config.progress)
    return dict(zip(owners, ratings))
