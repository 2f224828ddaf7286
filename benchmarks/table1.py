"""Seed 000's table 1, the rows that run offline: lexical and semantic privacy side by side.

    python benchmarks/table1.py --records 30            # MedQA and PUPA, 30 records each
    python benchmarks/table1.py --records 200 --datasets medqa

Rows: no sanitization (identity), remove all, Presidio with mask, Presidio with replace (Presidio's
default operator), Presidio with replace and without the age and date recognizers (Presidio's stock
set has no AGE; the Azure-like default set of textleak has AGE and DATE_TIME), and SANTEXT+
(word-level DP, eps 3). Synthesis (fine-tuning) is not run here: it needs a training run per dataset
(``benchmarks/synthesis_table2.py``). Every row uses textleak's defaults: rule atomizer, k = 3 random
known claims, BM25 linking, the NLI judge; lexical privacy is the paper's 1 - ROUGE-L F.

The per-claim-type breakdown explains the direction of the gap between lexical and semantic privacy:
each judged claim is typed by what it states (an age, another number or date, or anything else), and
the table gives, per row, the share of each type and its mean claim privacy. A scrubber that removes
ages and dates but leaves the clinical content keeps lexical privacy low (most words survive) while
semantic privacy rises by the share of the claims it removed.

Writes ``benchmarks/results/table1_offline.json`` and ``.md`` (``table1.md`` is ``utility_table.py``'s, with utility).
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"

ROWS: list[tuple[str, str, dict[str, Any]]] = [
    ("no sanitization", "identity", {}),
    ("remove all", "remove_all", {}),
    ("Presidio, mask", "presidio", {"operator": "mask"}),
    ("Presidio, replace", "presidio", {"operator": "replace"}),
    ("Presidio, replace, no AGE/DATE_TIME", "presidio", {"operator": "replace", "entities": [
        "PERSON", "LOCATION", "ORGANIZATION", "NRP", "EMAIL_ADDRESS", "PHONE_NUMBER", "URL", "IP_ADDRESS", "CREDIT_CARD",
        "IBAN_CODE", "US_SSN", "MEDICAL_LICENSE"]}),
    ("SANTEXT+, eps 3", "santext+", {"epsilon": 3.0}),
]

_AGE = re.compile(r"\b\d{1,3}[- ](?:year|yr|month|week|day)s?[- ]old\b|\b\d{1,3} years? of age\b|\baged? \d{1,3}\b", re.I)
_NUMBER = re.compile(r"\d|\b(?:january|february|march|april|may|june|july|august|september|october|november|december|"
                     r"yesterday|today|ago|week|month|year)s?\b", re.I)


def claim_type(claim: str) -> str:
    """What a claim states: an age, another number or date, or anything else."""
    if _AGE.search(claim):
        return "age"
    if _NUMBER.search(claim):
        return "number/date"
    return "other"


def load(dataset: str, n: int) -> list[str]:
    if dataset == "medqa":
        from textleak.data.medqa import read_medqa_jsonl

        return [r["text"] for r in read_medqa_jsonl(SHARED / "medqa" / "sampled_50.jsonl")][:n]
    with open(SHARED / "pupa" / "PUPA_TNB.csv", encoding="utf-8", newline="") as f:
        return [r["user_query"] for r in csv.DictReader(f)][:n]


def sanitize(name: str, options: dict[str, Any], texts: list[str]) -> list[str]:
    from textleak.sanitize import create_sanitizer, run_sanitizer
    from textleak.sanitize.run import released_texts

    sanitizer = create_sanitizer(name, **options)
    if sanitizer.requires_fit:
        sanitizer.fit(texts)
    return released_texts(texts, run_sanitizer(sanitizer, texts, use_cache=False), on_failure="original")


def run_row(texts: list[str], released: list[str]) -> dict[str, Any]:
    from textleak.leakage import evaluate_leakage

    t = time.perf_counter()
    report = evaluate_leakage(texts, released, bootstrap=200, use_cache=False, progress=False)
    types: dict[str, list[float]] = {}
    for rec in report.records:
        for c in rec.claims:
            if not c.get("known") and c.get("score") is not None:
                types.setdefault(claim_type(c["text"]), []).append(c["score"])
    judged = sum(len(v) for v in types.values())
    return {
        "semantic_privacy": report.semantic_privacy, "semantic_ci95": report.ci95.get("semantic_privacy"),
        "lexical_privacy": report.lexical_privacy, "linkage_rate": report.linkage_rate,
        "claims_judged": judged, "claims_per_record": judged / max(1, len(texts)),
        "by_type": {k: {"share": len(v) / judged, "privacy": sum(v) / len(v)} for k, v in sorted(types.items())},
        "seconds": time.perf_counter() - t,
    }


def to_markdown(result: dict[str, Any]) -> str:
    lines = [f"Command: `{result['command']}` ({result['machine']}).", ""]
    for dataset, rows in result["tables"].items():
        lines += [f"### {dataset}, {result['records']} records", "",
                  "| row | lexical privacy | semantic privacy [95% CI] | linkage | claims judged / record | "
                  "age claims: share, privacy | number/date: share, privacy | other: share, privacy | s |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for label, r in rows.items():
            ci = r["semantic_ci95"] or [None, None]

            def cell(t: str) -> str:
                b = r["by_type"].get(t)
                return f"{b['share']:.2f}, {b['privacy']:.2f}" if b else "-"

            lines.append(f"| {label} | {r['lexical_privacy']:.3f} | {r['semantic_privacy']:.3f} [{ci[0]:.2f}, {ci[1]:.2f}] | "
                         f"{r['linkage_rate']:.2f} | {r['claims_per_record']:.1f} | {cell('age')} | {cell('number/date')} | "
                         f"{cell('other')} | {r['seconds']:.0f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=30)
    parser.add_argument("--datasets", nargs="+", default=["medqa", "pupa"], choices=["medqa", "pupa"])
    parser.add_argument("--out", default=str(RESULTS / "table1_offline"))  # table1.md is utility_table.py's
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    result: dict[str, Any] = {"command": "python benchmarks/table1.py " + " ".join(sys.argv[1:]), "records": args.records,
                              "machine": f"{platform.platform()}, {__import__('os').cpu_count()} CPUs", "tables": {}}
    for dataset in args.datasets:
        texts = load(dataset, args.records)
        rows = {}
        for label, name, options in ROWS:
            t = time.perf_counter()
            released = sanitize(name, options, texts)
            rows[label] = run_row(texts, released)
            rows[label]["sanitize_seconds"] = time.perf_counter() - t - rows[label]["seconds"]
            print(dataset, label, {k: rows[label][k] for k in ("lexical_privacy", "semantic_privacy", "claims_per_record")}, flush=True)
        result["tables"][dataset] = rows
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2, default=str))
    out.with_suffix(".md").write_text(to_markdown(result))
    print(to_markdown(result))


if __name__ == "__main__":
    main()
