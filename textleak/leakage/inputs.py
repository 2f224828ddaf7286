"""Stage 0: check the two record sets and build the released pool the adversary searches.

For each pool record we remember which original it came from when that is known (index or id
alignment), which is what the correct-linkage rate is measured against.

Fail toward leakage: an unaligned (synthetic) evaluation must be asked for (``alignment="none"``);
sets of different sizes without ids are an error, never silently unaligned. When the alignment is
known, an original whose sanitized record is missing (``None``, or no sanitized record names its id)
is either an error (``missing="error"``) or counts as released unsanitized (``missing="original"``,
the default: its original text joins the pool in its place), so a dropped record can never make the
set look more private. All text is normalised first (:func:`textleak.text.normalize.normalize_text`; released
records are also read respelled, beside their text as written: :func:`~textleak.text.normalize.normalize_release`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Sequence

from textleak.leakage.config import LeakageConfig
from textleak.leakage.limits import check_record_sizes
from textleak.sanitize.run import released_texts
from textleak.text.normalize import normalize_release, normalize_text

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
    missing: list[int]  # originals whose sanitized record was missing and which were released as they were
    unchanged: list[int] = field(default_factory=list)  # originals whose sanitized record is the original text

    @property
    def n_skipped(self) -> int:
        return len(self.originals) - len(self.active)


def check_texts(texts: Any, what: str, allow_none: bool = False) -> list:
    """A list of strings (``None`` entries only when ``allow_none``), or one clear error naming the record."""
    if texts is None:
        raise ValueError(f"{what} is None: pass a list of strings")
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{what} is a single string: pass a list of strings (one per record)")
    texts = list(texts)
    for i, t in enumerate(texts):
        if t is None and allow_none:
            continue
        if t is None:
            raise ValueError(f"{what} record {i} is None: every record needs a text")
        if not isinstance(t, str):
            raise TypeError(f"{what} record {i} is {type(t).__name__}, expected a string")
    return texts


def check_ids(ids: Any, what: str, n: int) -> list[str] | None:
    """Ids as strings (one per record), or None; a single string or a wrong length is an error."""
    if ids is None:
        return None
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{what} is a single string: pass one id per record")
    ids = [str(x) for x in ids]
    if len(ids) != n:
        raise ValueError(f"{len(ids)} {what} for {n} records")
    return ids


def resolve_alignment(alignment: str, n_orig: int, n_san: int, sanitized_ids: Sequence[str] | None) -> str:
    """The alignment to use: ``auto`` becomes ids (ids given) or index (same sizes); anything that
    would silently drop the pairing is an error."""
    if alignment not in ("auto", "index", "ids", "none"):
        raise ValueError(f"alignment must be auto, index, ids or none, got {alignment!r}")
    if alignment == "auto":
        if sanitized_ids is not None:
            return "ids"
        if n_orig != n_san:
            raise ValueError(
                f"{n_orig} originals but {n_san} sanitized records, and no sanitized_ids to say which is which. "
                "For missing records pass sanitized_ids (the original each sanitized record came from; missing ones then "
                "count as released unsanitized); for a synthetic set evaluate it unaligned with alignment='none'"
            )
        return "index"
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
    """Check both sets, resolve the alignment, apply the missing-record policy, normalise, build the
    pool and pick the originals to evaluate."""
    originals = check_texts(originals, "originals")
    if not originals:
        raise ValueError("originals is empty: there is nothing to evaluate")
    sanitized = check_texts(sanitized, "sanitized", allow_none=True)
    ids = check_ids(original_ids, "original ids", len(originals)) or [str(i) for i in range(len(originals))]
    if len(set(ids)) != len(ids):
        dup = next(x for x in ids if ids.count(x) > 1)
        raise ValueError(f"original id {dup!r} appears more than once")
    sanitized_ids = check_ids(sanitized_ids, "sanitized ids", len(sanitized))
    check_record_sizes(originals, sanitized, ids, sanitized_ids, config.max_record_chars, config.alignment)
    mode = resolve_alignment(config.alignment, len(originals), len(sanitized), sanitized_ids)
    if mode == "index" and sanitized_ids is not None and list(sanitized_ids) != ids:
        # pairing by position while the ids say otherwise would judge each record against another's release
        j = next(n for n, (a, b) in enumerate(zip(sanitized_ids, ids)) if a != b)
        raise ValueError(f"alignment='index' pairs sanitized record i with original i, but sanitized_ids[{j}] is "
                         f"{sanitized_ids[j]!r} and original {j} is {ids[j]!r}: pass alignment='ids' (or 'auto') to pair by id")
    if config.normalize:
        originals = [normalize_text(t) for t in originals]
        sanitized = [normalize_release(t) if t is not None else None for t in sanitized]  # respelled too, both readings kept

    if mode == "none" and sanitized_ids is not None:
        raise ValueError("sanitized ids name the original each sanitized record came from: that is a sanitized set, not "
                         "synthetic data, so it is evaluated aligned by ids (alignment='auto' or 'ids'); unaligned, its "
                         "missing originals would count as private")
    if mode == "index":
        missing = [i for i, t in enumerate(sanitized) if t is None and originals[i].strip()]
        _check_missing(missing, ids, len(originals), config)
        pool = released_texts(originals, sanitized, on_failure="original")
        pool_ids, source_of = list(ids), list(range(len(originals)))
    else:
        pool, pool_ids, source_of, covered = [], [], [], set()
        id_pos = {x: i for i, x in enumerate(ids)}
        for j, text in enumerate(sanitized):
            src: int | None = None
            if mode == "ids":
                sid = sanitized_ids[j]  # type: ignore[index]
                if sid not in id_pos:
                    raise ValueError(f"sanitized record {j} names original id {sid!r}, which is not among the originals")
                src = id_pos[sid]
            if text is None:  # unaligned: a failed generation is simply not released (counted below)
                continue
            covered.add(src)
            pool.append(text)
            pool_ids.append(sanitized_ids[j] if sanitized_ids is not None else f"s{j}")
            source_of.append(src)
        missing = [] if mode == "none" else [i for i in range(len(originals)) if i not in covered and originals[i].strip()]
        _check_missing(missing, ids, len(originals), config)
        if mode == "none":
            _refuse_paired_unaligned(originals, pool)
        if mode == "none" and len(pool) < len(sanitized):
            logger.warning("%d of %d synthetic records are None (failed generations); they are not part of the release",
                           len(sanitized) - len(pool), len(sanitized))
        for i in missing:  # released as they were (missing="original")
            pool.append(originals[i])
            pool_ids.append(ids[i])
            source_of.append(i)

    active = []
    for i, t in enumerate(originals):
        if t.strip():
            active.append(i)
        elif config.empty_originals == "error":
            raise ValueError(f"original record {i} (id {ids[i]!r}) is empty: nothing in it can leak. "
                             "Remove it, or pass empty_originals='skip' to skip such records (they are reported)")
    missing_set = set(missing)
    unchanged = sorted({src for text, src in zip(pool, source_of)
                        if src is not None and src not in missing_set and originals[src].strip() and text == originals[src]})
    if unchanged:
        shown = ", ".join(repr(ids[i]) for i in unchanged[:5]) + (" ..." if len(unchanged) > 5 else "")
        logger.warning("%d of %d sanitized records are identical to their originals (ids %s): nothing was removed from "
                       "them. Unless this is an identity baseline, check that the sanitized text was read (textleak "
                       "sanitize writes it to the 'sanitized' column and keeps the original in 'text')",
                       len(unchanged), len(originals), shown)
    return Inputs(originals, ids, active, pool, pool_ids, source_of, mode, missing, unchanged)


def _refuse_paired_unaligned(originals: list[str], pool: list[str]) -> None:
    """Unaligned evaluation of a set with fewer released records than originals, whose records pair
    one-to-one with originals by their wording (:mod:`textleak.leakage.pairing`), is a sanitized set
    that lost rows, not synthetic data: refuse, or its lost originals would count as private."""
    n_orig = sum(1 for t in originals if t.strip())
    if len(pool) >= n_orig:
        return
    from textleak.leakage.pairing import PAIRED, text_pairing

    pairing = text_pairing(originals, pool)
    if pairing.one_to_one:
        raise ValueError(
            f"alignment='none' is for synthetic data, but {pairing.paired} of the {len(pool)} released records each "
            f"{PAIRED} ({n_orig} originals): "
            "this is a sanitized set that lost records. Say which original each came from (sanitized_ids; missing "
            "records then count as released unsanitized)")


def _check_missing(missing: list[int], ids: list[str], n: int, config: LeakageConfig) -> None:
    """Apply the missing-record policy: an error, or a warning (they count as released unsanitized)."""
    if not missing:
        return
    shown = ", ".join(repr(ids[i]) for i in missing[:5]) + (" ..." if len(missing) > 5 else "")
    if config.missing == "error":
        raise ValueError(f"{len(missing)} of {n} originals have no sanitized record (ids {shown}). A failed or withheld "
                         "record is not private: fix the sanitizer, or pass missing='original' to count them as released "
                         "unsanitized")
    logger.warning("%d of %d originals have no sanitized record (ids %s): they count as released unsanitized",
                   len(missing), n, shown)
