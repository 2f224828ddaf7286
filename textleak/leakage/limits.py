"""The record-size limit of the leakage pipeline (``LeakageConfig.max_record_chars``).

Most stages cost time proportional to a record's length, but not all (the judge's span search reads
every sentence of the linked record, the lexical baseline's LCS grows with the product of two
lengths), and one pathological record (a sanitizer that looped, a whole book in one line) would hold
the run for hours without a word. A record longer than the limit stops the run before any work, with
one line naming the record, its length and the limit: it is never skipped (a dropped record would
leave the privacy number), and raising the limit (or 0: none) is the caller's choice.
"""

from __future__ import annotations

from typing import Sequence


class RecordTooLongError(ValueError):
    """A record is longer than ``max_record_chars``; ``what`` says which side ("original" or "sanitized"), so a
    caller that read the records from files can name the file."""

    def __init__(self, message: str, what: str = ""):
        super().__init__(message)
        self.what = what


def check_record_sizes(originals: Sequence[str], sanitized: Sequence[str | None], original_ids: Sequence[str],
                       sanitized_ids: Sequence[str] | None, limit: int | None, alignment: str = "auto") -> None:
    """Raise :class:`RecordTooLongError` naming the first record (original or sanitized) longer than
    ``limit`` characters; ``None`` or 0: no limit. ``alignment`` (LeakageConfig's): a sanitized record
    without an id is named by its original's id only when it is paired by position, never for
    synthetic data ("none"), whose records are no original's release."""
    if not limit:
        return
    for what, texts, ids in (("original", originals, original_ids), ("sanitized", sanitized, sanitized_ids)):
        for i, text in enumerate(texts):
            if text is not None and len(text) > limit:
                if ids is not None:
                    name = f"{what} record {i} (id {ids[i]!r})"
                elif what == "sanitized" and len(texts) == len(originals) and alignment in ("auto", "index"):
                    # paired by position: its original's id
                    name = f"sanitized record {i} (the release of original id {original_ids[i]!r})"
                else:
                    name = f"{what} record {i}"
                raise RecordTooLongError(
                    f"{name} has {len(text):,} characters, above max_record_chars={limit:,}: the judge and the lexical "
                    "baseline take time that grows with a record's length (benchmarks/bench_record_size.py). Check that "
                    "the record is what you meant to release (a sanitizer that looped?), split it, or raise "
                    "max_record_chars (--max-record-chars on the command line; 0: no limit)", what)
