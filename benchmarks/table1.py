"""Seed 000's table 1, the rows that run offline: lexical and semantic privacy side by side.

    python benchmarks/table1.py --records 30            # MedQA and PUPA, 30 records each
    python benchmarks/table1.py --records 200 --datasets medqa

Rows: no sanitization (identity), remove all, Presidio with mask, Presidio with replace (Presidio's
default operator), Presidio with replace and without the age and date recognizers (Presidio's stock
set has no AGE; the Azure-like default set of textleak has AGE and DATE_TIME), and SANTEXT+
(word-level DP, eps 3). Every row uses textleak's defaults: rule atomizer, k = 3 random known claims,
BM25 linking, the NLI judge; lexical privacy is the paper's 1 - ROUGE-L F.

Synthesis (fine-tuning) is not run here: it needs a training run per dataset, and its synthetic texts
stay outside the repository. Its rows (epsilon = inf and the finite ones) are read per dataset from
``--synthesis-medqa`` / ``--synthesis-pupa`` (default ``benchmarks/results/synthesis_table1_{medqa,pupa}.json``),
written by ``benchmarks/synthesis_table2.py`` (Gemma 3 270M + LoRA) on this script's records
(``--data ../shared/data/pupa/PUPA_TNB.csv --limit N`` for PUPA), and shown in that dataset's table. A row is
marked as measured on the same records only when the synthesis run's digest of its private texts equals the
digest of this table's, and the judge adapter is printed and compared; otherwise the note says other records.
Synthetic text is evaluated unaligned, so only privacy, no linkage.
MedQA's sample holds 49 records with a patient profile: ``--records`` above 49 uses all of them (the tables say how many).

``--tables-from`` renders the sanitizer rows of earlier runs' results instead of measuring them again (with the
synthesis rows as they are now); each table then names the command that measured it.

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
SYNTHESIS = {"medqa": RESULTS / "synthesis_table1_medqa.json", "pupa": RESULTS / "synthesis_table1_pupa.json"}
logger = logging.getLogger("table1")

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
    """The first ``n`` records of ``dataset`` (all of them, with a warning, when it holds fewer)."""
    if dataset == "medqa":
        from textleak.data.medqa import read_medqa_jsonl

        texts = [r["text"] for r in read_medqa_jsonl(SHARED / "medqa" / "sampled_50.jsonl")]
        empty = sum(not t.strip() for t in texts)
        if empty:  # a question with no patient profile: nothing in it can leak, and evaluate_leakage refuses it
            logger.warning("medqa: %d of %d records have no patient profile; left out", empty, len(texts))
            texts = [t for t in texts if t.strip()]
    else:
        with open(SHARED / "pupa" / "PUPA_TNB.csv", encoding="utf-8", newline="") as f:
            texts = [r["user_query"] for r in csv.DictReader(f)]
    if len(texts) < n:
        logger.warning("%s holds %d records, fewer than --records %d: using all of them", dataset, len(texts), n)
    return texts[:n]


def _epsilon_key(row: str) -> float:
    return float("inf") if row == "inf" else float(row)


def synthesis_rows(path: Path, texts: list[str] | None = None) -> dict[str, Any] | None:
    """The epsilon rows of ``synthesis_table2.py``'s results (None when the file is missing).

    Not measured here: unaligned, so no linkage and no claim-type breakdown; lexical privacy is 1 - ROUGE-L F
    against the synthetic record linked to each original. ``same_records`` is true only when the results carry
    a digest of their private texts equal to that of ``texts`` (a file without one counts as other records)."""
    if not path.exists():
        logger.warning("no synthesis results at %s (run benchmarks/synthesis_table2.py): no synthesis rows", path)
        return None
    data = json.loads(path.read_text())
    rows = {}
    for key in sorted((k for k in data["rows"] if k not in ("none", "base")), key=_epsilon_key, reverse=True):
        r = data["rows"][key]
        rows["synthesis, ε = ∞ (no DP)" if key == "inf" else f"synthesis, ε = {key}"] = {
            "epsilon": key, "semantic_privacy": r["semantic_privacy"], "semantic_ci95": r["ci95"].get("semantic_privacy"),
            "lexical_privacy": r["lexical_privacy"], "lexical_ci95": r["ci95"].get("lexical_privacy"),
            "n_records": r["n_records"], "n_synthetic": r["n_synthetic"], "seconds": r.get("evaluate_s"),
            "copy_share_12w": (r.get("memorisation") or {}).get("copy_share_12w")}
    none = data["rows"].get("none", {})
    digest = data.get("records_sha256")
    if texts is not None:
        from synthesis_table2 import records_digest  # benchmarks/ is on the path when this runs as a script

        same = digest is not None and digest == records_digest(texts)
    else:
        same = False
    return {"source": str(path.relative_to(REPO) if path.is_relative_to(REPO) else path),
            "records_sha256": digest, "same_records": same, "control_code": data.get("control_code"),
            "command": "python benchmarks/synthesis_table2.py " + " ".join(data.get("argv", [])),
            "by_file": data.get("by_file"), "n_records": data.get("n_records"),
            "judge_adapter": (data.get("judge") or {}).get("adapter_sha256"),
            "judge_rules": (data.get("judge") or {}).get("rules_version"),
            "reference": {"lexical_privacy": none.get("lexical_privacy"), "semantic_privacy": none.get("semantic_privacy")},
            "rows": rows}


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
        "judge_adapter": (report.judge or {}).get("adapter_sha256"), "judge_rules": (report.judge or {}).get("rules_version"),
        "seconds": time.perf_counter() - t,
    }


def to_markdown(result: dict[str, Any]) -> str:
    lines = [f"Command: `{result['command']}` ({result['machine']}).", ""]
    for dataset, rows in result["tables"].items():
        n = result.get("records_by_dataset", {}).get(dataset, result["records"])
        held = f" (all of the sample; {result['records']} asked)" if n < result["records"] else ""
        lines += [f"### {dataset}, {n} records{held}", ""]
        measured_by = (result.get("measured_by") or {}).get(dataset)
        if measured_by:
            lines += [f"Sanitizer rows measured by `{measured_by}`.", ""]
        lines += [
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
        synth = (result.get("synthesis") or {}).get(dataset)
        if synth:
            for label, r in synth["rows"].items():
                ci = r["semantic_ci95"] or [float("nan")] * 2
                lines.append(f"| {label} ‡ | {r['lexical_privacy']:.3f} | {r['semantic_privacy']:.3f} [{ci[0]:.2f}, {ci[1]:.2f}] | "
                             f"- | - | - | - | - | {r['seconds']:.0f} |")
            judges = {r.get("judge_adapter") for r in rows.values()}
            same = judges == {synth["judge_adapter"]}
            ref = synth["reference"]
            rules = {r.get("judge_rules") for r in rows.values()}
            judge_note = (f"NLI judge adapter {synth['judge_adapter']}"
                          + (" (the same as the rows above)" if same else f" (the rows above: {', '.join(sorted(map(str, judges)))})")
                          + f", value rules {synth.get('judge_rules')}"
                          + (" (the same as the rows above)." if rules == {synth.get("judge_rules")} else
                             f" (the rows above: {', '.join(sorted(str(r) if r else 'not recorded' for r in rules))})."))
            if synth.get("same_records"):
                lines += ["", f"‡ Measured on the same {synth['n_records']} records as the rows above (digest "
                          f"{synth['records_sha256']}), one synthetic record per record, by `{synth['command']}` "
                          f"(Gemma 3 270M + LoRA, DP-SGD for finite ε; control code {synth.get('control_code') or 'paper'!r}; "
                          f"results in `{synth['source']}`). Synthetic text is evaluated unaligned, so linkage is not "
                          "meaningful and only privacy is given (no claim-type breakdown); lexical privacy is 1 - ROUGE-L F "
                          "against the synthetic record BM25 links to each original; s is its evaluation time. The synthesis "
                          f"run's own no-sanitization reference: lexical {ref['lexical_privacy']:.3f}, semantic "
                          f"{ref['semantic_privacy']:.3f}. " + judge_note, ""]
                lines.append("")
                continue
            lines += ["", f"‡ Not measured by this run: read from `{synth['source']}`, written by "
                      f"`benchmarks/synthesis_table2.py` (Gemma 3 270M + LoRA, DP-SGD for finite ε; it resumes, rows "
                      f"accumulate; last invocation `{synth['command']}`) on its own corpus of {synth['n_records']} records "
                      f"({', '.join(f'{k}: {v}' for k, v in sorted((synth['by_file'] or {}).items(), reverse=True))}), "
                      "not the records above (no digest of its records, or another one), one "
                      "synthetic record per record. Synthetic text is "
                      "evaluated unaligned, so linkage is not meaningful and only privacy is given (no claim-type breakdown); "
                      "lexical privacy is 1 - ROUGE-L F against the synthetic record BM25 links to each original; s is its "
                      f"evaluation time. Its no-sanitization reference on that corpus: lexical {ref['lexical_privacy']:.3f}, "
                      f"semantic {ref['semantic_privacy']:.3f}. " + judge_note, ""]
        else:
            lines += ["", f"No synthesis rows: no synthesis results for {dataset} (run `benchmarks/synthesis_table2.py`).", ""]
        lines.append("")
    return "\n".join(lines)


def earlier_tables(paths: list[str], dataset: str, n: int) -> tuple[dict[str, Any], str] | None:
    """``dataset``'s measured rows and their command from the first of ``paths`` that holds them on ``n`` records."""
    for path in paths:
        data = json.loads(Path(path).read_text())
        if dataset in data.get("tables", {}) and data.get("records_by_dataset", {}).get(dataset) == n:
            return data["tables"][dataset], data["command"]
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=30)
    parser.add_argument("--datasets", nargs="+", default=["medqa", "pupa"], choices=["medqa", "pupa"])
    parser.add_argument("--out", default=str(RESULTS / "table1_offline"))  # table1.md is utility_table.py's
    for name, path in SYNTHESIS.items():
        parser.add_argument(f"--synthesis-{name}", default=str(path),
                            help=f"synthesis_table2.py's results JSON for the {name} table's synthesis rows")
    parser.add_argument("--tables-from", nargs="+", default=None, metavar="JSON",
                        help="earlier table1.py results: render their sanitizer rows (each dataset from the file that has "
                             "it, on the same number of records) instead of measuring them again")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    result: dict[str, Any] = {"command": "python benchmarks/table1.py " + " ".join(sys.argv[1:] if argv is None else argv),
                              "records": args.records,
                              "machine": f"{platform.platform()}, {__import__('os').cpu_count()} CPUs", "tables": {},
                              "records_by_dataset": {}}
    result["synthesis"] = {}
    result["measured_by"] = {}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for dataset in args.datasets:
        texts = load(dataset, args.records)
        result["records_by_dataset"][dataset] = len(texts)
        result["synthesis"][dataset] = synthesis_rows(Path(getattr(args, f"synthesis_{dataset}")), texts)
        earlier = earlier_tables(args.tables_from, dataset, len(texts)) if args.tables_from else None
        if args.tables_from and earlier is None:
            raise SystemExit(f"--tables-from: none of {args.tables_from} holds a {dataset} table on {len(texts)} records")
        rows = dict(earlier[0]) if earlier else {}
        if earlier:
            result["measured_by"][dataset] = earlier[1]
        for label, name, options in ([] if earlier else ROWS):
            t = time.perf_counter()
            released = sanitize(name, options, texts)
            rows[label] = run_row(texts, released)
            rows[label]["sanitize_seconds"] = time.perf_counter() - t - rows[label]["seconds"]
            print(dataset, label, {k: rows[label][k] for k in ("lexical_privacy", "semantic_privacy", "claims_per_record")}, flush=True)
        result["tables"][dataset] = rows
        out.with_suffix(".json").write_text(json.dumps(result, indent=2, default=str))  # after each dataset: a long
        out.with_suffix(".md").write_text(to_markdown(result))  # run cut short keeps the tables it finished
    print(to_markdown(result))


if __name__ == "__main__":
    main()
