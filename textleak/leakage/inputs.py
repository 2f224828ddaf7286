"""Stage 0: check the two record sets and build the released pool the adversary searches.

The pool is the sanitized set without withheld (``None``, under ``missing="drop"``) records; for
each pool record we remember which original it came from when that is known (index or id
alignment), which is what the correct-linkage rate is measured against.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Sequence

from textleak.leakage.config import LeakageConfig

logger = logging.getLogger(__name__)


@dataclass
class Inputs:
    """Checked originals and the released pool."""

    originals: list[str]
    ids: list[str]
    active: list[int]  # originals that are evaluated (non-empty)
    pool: list[str]  # the released (sanitized) records the adversary searches
    pool_ids: list[str]
    source_of: list[int | None]  # for each pool record, the original it came from (None: unknown)
    alignment: str  # the resolved alignment: index, ids or none

    @property
    def n_skipped(self) -> int:
        return len(self.originals) - len(self.active)


def check_texts(texts: Any, what: str, allow_none: bool = False) -> list:
    """A list of strings (``None`` entries only when ``allow_none``), or one clear error naming the record."""
    if texts is None:
        raise ValueError(f"{what} is None: pass a list of strings")
    if isinstance(texts, str):
        raise TypeError(f"{what} is a single string: pass a list of strings (one per record)")
    texts = list(texts)
    for i, t in enumerate(texts):
        if t is None and allow_none:
            continue
        if t is None:
            raise ValueError(
                f"{what} record {i} is None. A failed sanitization must not count as an empty (private) record: "
                "fix or drop it, or pass missing='drop' to treat None as a record the sanitizer withheld"
            )
        if not isinstance(t, str):
            raise TypeError(f"{what} record {i} is {type(t).__name__}, expected a string")
    return texts


def resolve_alignment(alignment: str, n_orig: int, n_san: int, sanitized_ids: Sequence[str] | None) -> str:
    """The alignment to use: ``auto`` becomes ids, index or none; an impossible one is an error."""
    if alignment not in ("auto", "index", "ids", "none"):
        raise ValueError(f"alignment must be auto, index, ids or none, got {alignment!r}")
    if alignment == "auto":
        if sanitized_ids is not None:
            return "ids"
        return "index" if n_orig == n_san else "none"
    if alignment == "index" and n_orig != n_san:
        raise ValueError(
            f"alignment='index' declares one sanitized record per original, but there are {n_orig} originals and "
            f"{n_san} sanitized records (pass alignment='none' for synthetic data, or sanitized_ids for missing records)"
        )
    if alignment == "ids" and sanitized_ids is None:
        raise ValueError("alignment='ids' needs sanitized_ids: the original id each sanitized record came from")
    return alignment


def prepare_inputs(originals: Sequence[str], sanitized: Sequence[str | None], original_ids: Sequence[Any] | None,
                   sanitized_ids: Sequence[Any] | None, config: LeakageConfig) -> Inputs:
    """Check both sets, resolve the alignment, build the pool and pick the originals to evaluate."""
    originals = check_texts(originals, "originals")
    if not originals:
        raise ValueError("originals is empty: there is nothing to evaluate")
    sanitized = check_texts(sanitized, "sanitized", allow_none=(config.missing == "drop"))
    ids = [str(x) for x in original_ids] if original_ids is not None else [str(i) for i in range(len(originals))]
    if len(ids) != len(originals):
        raise ValueError(f"{len(ids)} original ids for {len(originals)} originals")
    if len(set(ids)) != len(ids):
        dup = next(x for x in ids if ids.count(x) > 1)
        raise ValueError(f"original id {dup!r} appears more than once")
    if sanitized_ids is not None and len(sanitized_ids) != len(sanitized):
        raise ValueError(f"{len(sanitized_ids)} sanitized ids for {len(sanitized)} sanitized records")
    mode = resolve_alignment(config.alignment, len(originals), len(sanitized), sanitized_ids)

    source_of: list[int | None] = []
    pool: list[str] = []
    pool_ids: list[str] = []
    id_pos = {x: i for i, x in enumerate(ids)}
    for j, text in enumerate(sanitized):
        if mode == "index":
            src: int | None = j
        elif mode == "ids":
            sid = str(sanitized_ids[j])  # type: ignore[index]
            if sid not in id_pos:
                raise ValueError(f"sanitized record {j} names original id {sid!r}, which is not among the originals")
            src = id_pos[sid]
        else:
            src = None
        if text is None:
            continue
        pool.append(text)
        pool_ids.append(str(sanitized_ids[j]) if sanitized_ids is not None else (ids[j] if mode == "index" else f"s{j}"))
        source_of.append(src)
    if config.missing == "drop" and len(pool) < len(sanitized):
        logger.warning("%d sanitized records are None and were treated as withheld", len(sanitized) - len(pool))

    active = []
    for i, t in enumerate(originals):
        if t.strip():
            active.append(i)
        elif config.empty_originals == "error":
            raise ValueError(f"original record {i} (id {ids[i]!r}) is empty: nothing in it can leak. "
                             "Remove it, or pass empty_originals='skip' to skip such records (they are reported)")
    return Inputs(originals, ids, active, pool, pool_ids, source_of, mode)
