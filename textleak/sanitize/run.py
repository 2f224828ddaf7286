"""Running a sanitizer over records, and the one policy for records it failed on.

:func:`run_sanitizer` is the one run function (``textleak evaluate --sanitizer``, the study, the
benchmarks): batched calls with index seeds, each finished batch cached by the sanitizer's pickled
state and the record, so a rerun after a failure resumes; failed records come back with their status
and no text, and are never cached. :func:`sanitize_dataset` is the ``datasets.map`` form for writing a
sanitized dataset (``textleak sanitize``).

The failure policy (:func:`released_texts`): a record the sanitizer failed on is not private, it is
unreleased work. For privacy it counts as released unsanitized (the original text), so a failure can
never raise the privacy number; ``on_failure="error"`` refuses to evaluate instead. Every report
carries the count of failed records.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

from textleak.cache import DiskCache, cached_map, content_hash
from textleak.sanitize.base import STATUS_OK, SanitizeResult, Sanitizer

logger = logging.getLogger(__name__)

FAILURE_POLICIES = ("original", "error")


def run_sanitizer(sanitizer: Sanitizer, texts: Sequence[str], *, use_cache: bool = True, batch_size: int = 16,
                  progress: bool = False) -> list[SanitizeResult]:
    """One result per text (index seeds: record ``i`` is seeded by ``i``); results of records the
    sanitizer failed on have ``text=None`` and their status."""
    texts = list(texts)
    try:
        state = sanitizer.__getstate__()
        keys = [content_hash("sanitized", state, i, t) for i, t in enumerate(texts)]
        cache = DiskCache("sanitized", enabled=use_cache)
    except TypeError:
        logger.info("sanitizer %s has state that cannot be hashed; its outputs are not cached", sanitizer.name)
        keys, cache = [content_hash("uncached", i) for i in range(len(texts))], None

    def compute(chunk: list[int]) -> list[dict[str, Any]]:
        out = sanitizer([texts[i] for i in chunk], chunk)
        statuses = out.get(sanitizer.status_column, [STATUS_OK] * len(chunk))
        return [{"text": t, "status": s} for t, s in zip(out[sanitizer.output_column], statuses)]

    rows = cached_map(keys, compute, cache, chunk_size=batch_size, progress=progress, desc=f"sanitizing ({sanitizer.name})",
                      unit="rec", keep=lambda _, r: r["status"] == STATUS_OK and r["text"] is not None,
                      valid=lambda _, r: isinstance(r, dict) and r.get("status") == STATUS_OK and isinstance(r.get("text"), str))
    results = [SanitizeResult(r["text"] if r["status"] == STATUS_OK else None, r["status"]) for r in rows]
    failed = [i for i, r in enumerate(results) if r.text is None]
    if failed:
        logger.warning("sanitizer %s failed on %d of %d records (first: record %d, %s)", sanitizer.name, len(failed),
                       len(results), failed[0], results[failed[0]].status)
    return results


def released_texts(originals: Sequence[str], results: Sequence["SanitizeResult | str | None"], on_failure: str = "original",
                   name: str = "sanitizer") -> list[str]:
    """The text released for each record: the sanitized text, or for a failed record (``None``) the
    original as it was (``on_failure="original"``: fail toward leakage) or an error (``"error"``)."""
    if on_failure not in FAILURE_POLICIES:
        raise ValueError(f"on_failure must be one of {FAILURE_POLICIES}, got {on_failure!r}")
    if len(originals) != len(results):
        raise ValueError(f"{len(results)} sanitized records for {len(originals)} originals")
    out = []
    for i, (original, r) in enumerate(zip(originals, results)):
        text = r.text if isinstance(r, SanitizeResult) else r
        if text is None:
            if on_failure == "error":
                status = r.status if isinstance(r, SanitizeResult) else "missing"
                raise ValueError(f"{name}: record {i} has no sanitized text ({status}); a failed record is not private")
            text = original
        out.append(text)
    return out


def sanitize_dataset(dataset: Any, sanitizer: Sanitizer, text_column: str = "text", num_proc: int | None = None,
                     batch_size: int = 64, load_from_cache_file: bool | None = None) -> Any:
    """``dataset.map`` with the sanitizer: batched, index-seeded, input columns kept, a progress bar."""
    if text_column not in dataset.column_names:
        raise KeyError(f"no column {text_column!r} in the dataset; columns: {dataset.column_names}")
    return dataset.map(
        sanitizer, batched=True, batch_size=batch_size, input_columns=text_column, with_indices=True,
        num_proc=num_proc, load_from_cache_file=load_from_cache_file, desc=f"sanitize ({sanitizer.name})",
    )
