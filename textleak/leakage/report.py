"""What the pipeline returns: one :class:`RecordResult` per original record and the
:class:`LeakageReport` summary, plus the percentile bootstrap used for every interval."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from textleak._version import __version__
from textleak.io import write_json, write_jsonl


@dataclass
class RecordResult:
    """One original record's evaluation (a line of the per-record JSONL)."""

    index: int
    id: str
    status: str  # ok | unlinked | unscored | unreadable | skipped_empty
    claims: list[dict[str, Any]]  # {text, aux, rating, score, status}
    known_claims: list[str]  # what the adversary knew (paraphrased when enabled)
    linked_index: int | None
    linked_id: str | None
    link_score: float
    correct_link: bool | None
    true_rank: int | None  # 1-based rank of the true record in the linker's top list, when known
    privacy: float | None
    lexical_privacy: float | None
    unparsed_claims: int = 0
    sanitized_missing: bool = False  # no sanitized record came back: the original counted as released
    link_tied: int = 0  # candidates sharing the link's top score (> 1: a tie, broken toward the lower id)
    language: str | None = None  # "en", or the language/script guessed for a record the English rules cannot read
    released_language: str | None = None  # the language guessed for the released text it was linked to (None: unlinked)
    linked_text: str | None = None  # the released text the claims were judged against (what a labeller reads)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LeakageReport:
    semantic_privacy: float | None
    lexical_privacy: float | None
    linkage_rate: float | None
    linkage_at_k: dict[str, float] | None
    n_records: int
    n_sanitized: int
    n_claims: int
    n_scored_claims: int
    unparsed_claims: int
    n_unlinked: int
    n_unscored: int
    n_skipped: int
    n_missing: int  # originals with no sanitized record, counted as released unsanitized
    n_tied_links: int  # links whose top score was shared by another candidate
    ci95: dict[str, list[float] | None]
    judge: dict[str, Any]
    atomizer: dict[str, Any]
    linker: dict[str, Any]
    settings: dict[str, Any]
    records: list[RecordResult] = field(default_factory=list, repr=False)
    timings: dict[str, float] = field(default_factory=dict)
    n_non_english: int = 0  # evaluated originals not detected as English (textleak.text.language)
    n_atomizer_fallback: int = 0  # originals the atomizer split on sentence punctuation only (its rules are English)
    n_unreadable: int = 0  # records linked to released text in a language the judge does not read (LeakageConfig.unreadable)
    #: answers of LLM components that declined the task (textleak.llm.refusals), by component: atomizer (records
    #: atomized by the rules instead), judge (claims left unrated, counted as unparsed), paraphraser (claims kept verbatim)
    llm_refusals: dict[str, int] = field(default_factory=dict)
    labelled: dict[str, Any] | None = None  # semantic privacy corrected by hand labels (textleak.leakage.labels.corrected_privacy)

    def summary(self) -> dict[str, Any]:
        """Everything but the per-record details (what ``report.json`` and the metric return)."""
        d = {k: v for k, v in asdict(self).items() if k != "records"}
        d["textleak_version"] = __version__
        return d

    def write(self, folder: str | Path, name: str = "") -> dict[str, Path]:
        """``report.json`` (summary) and ``records.jsonl`` (one line per original record)."""
        folder = Path(folder)
        prefix = f"{name}." if name else ""
        report = write_json(folder / f"{prefix}report.json", self.summary())
        records = self.write_records(folder / f"{prefix}records.jsonl")
        return {"report": report, "records": records}

    def write_records(self, path: str | Path) -> Path:
        """One JSON line per original record: claims with ratings, known claims, link and scores
        (private text: the file is readable by its owner only)."""
        return write_jsonl(path, (r.to_dict() for r in self.records))


def bootstrap_ci(values: Sequence[float], n_resamples: int = 1000, seed: int = 0, alpha: float = 0.05) -> list[float] | None:
    """Percentile bootstrap interval of the mean (records resampled with replacement)."""
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    if arr.size == 0 or n_resamples <= 0:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, 200):  # bounded memory for large sets
        stop = min(n_resamples, start + 200)
        means[start:stop] = arr[rng.integers(0, arr.size, size=(stop - start, arr.size))].mean(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return [float(lo), float(hi)]
