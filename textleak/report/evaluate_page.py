"""``textleak evaluate --html``: the evaluate command's results as the study's report page.

The page is :func:`textleak.report.write_report`'s, so both commands show the same summary table,
plots, drill-down and settings; this module only maps ``textleak evaluate``'s rows (a leakage report's
summary plus an optional utility entry) onto the page's schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from textleak._version import __version__


def page_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """One ``textleak evaluate`` result row (``report.json``'s) as a report-page row."""
    ci = row.get("ci95") or {}
    util = row.get("utility") if isinstance(row.get("utility"), Mapping) else None
    return {
        "sanitizer": row["sanitizer"],
        "semantic_privacy": row.get("semantic_privacy"),
        "semantic_ci95": ci.get("semantic_privacy"),
        "lexical_privacy": row.get("lexical_privacy"),
        "lexical_ci95": ci.get("lexical_privacy"),
        "linkage_rate": row.get("linkage_rate"),
        "utility_name": util.get("metric") if util else None,
        "utility": util.get("value") if util else None,
        "utility_ci95": None,
        "coherence": util.get("coherence") if util else None,
        "unparsed_claims": row.get("unparsed_claims", 0),
        "failed_records": row.get("n_missing", 0),
        "n_records": row.get("n_records"),
        "n_scored_claims": row.get("n_scored_claims"),
        "n_claims": row.get("n_claims"),
        "n_unscored": row.get("n_unscored"),
        "llm_refusals": row.get("llm_refusals") or {},  # answers the LLM components declined (counted, never used)
        # semantic privacy corrected by hand labels (evaluate --labels), with the judge's agreement on them
        "labelled": row.get("labelled"),
    }


def drill_row(record: Mapping[str, Any], originals: Sequence[str]) -> dict[str, Any]:
    """One record of the drill-down from a leakage record (``RecordResult.to_dict()``)."""
    return {
        "id": record.get("id"),
        "original": originals[record["index"]],
        "linked_id": record.get("linked_id"),
        "linked_text": record.get("linked_text"),
        "link_score": record.get("link_score"),
        "known_claims": record.get("known_claims", []),
        "claims": [c for c in record.get("claims", []) if not c.get("known")],
    }


def write_evaluate_report(out_dir: str | Path, source: str, originals: Sequence[str], rows: Sequence[Mapping[str, Any]],
                          records: Mapping[str, Sequence[Mapping[str, Any]]], settings: Mapping[str, Any] | None = None,
                          drilldown_limit: int = 50) -> dict[str, Path]:
    """Write the report page (``report.html``, figures, ``summary.csv``, ``study.json``) for an evaluate run."""
    from textleak.report import write_report

    judge = next((r.get("judge") for r in rows if r.get("judge")), None)
    result = {
        "dataset": Path(str(source)).name, "n_records": len(originals), "textleak_version": __version__,
        "settings": dict(settings or (rows[0].get("settings") if rows else {}) or {}), "judge": judge,
        "rows": [page_row(r) for r in rows],
        "records": {name: [drill_row(r, originals) for r in recs] for name, recs in records.items()},
    }
    return write_report(result, out_dir, drilldown_limit=drilldown_limit)
