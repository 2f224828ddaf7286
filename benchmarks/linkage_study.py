"""The shape of seed 000 Table 3: correct-linkage rate of record-level sanitizers when the adversary
knows the first, a random or the last three claims of each record.

    python benchmarks/linkage_study.py                                   # identity, presidio, remove_all
    python benchmarks/linkage_study.py --llm embedded --llm-limit 8 --rounds 1 --max-new-tokens 160
    python benchmarks/linkage_study.py --llm openai:gpt-4o@https://api.openai.com/v1   # the paper's setting

Data: the MedQA sample (``../shared/data/medqa/sampled_50.jsonl``, the patient profiles) and the PUPA
WildChat sample (``../shared/data/pupa/PUPA_TNB.csv``, user queries as records). Pipeline pieces:
rule atomizer for the original claims (``textleak.atomizers``), the adversary's known claims
(``textleak.leakage.knowledge.select_known_indices``: first / random / last 3), BM25 linking as the paper
(``textleak.linkers.bm25.BM25Linker``: whole sanitized records indexed, the three claims concatenated).
Correct linkage = the linked record is the record's own sanitized version, over all N records
(unlinked records count as wrong).

A record whose sanitization failed (status not "ok") is released as its original text in this study:
failure counts toward leakage, never toward privacy; the failures are reported per sanitizer.

With ``--llm``, the LLM sanitizers run on the first ``--llm-limit`` records of each dataset (all with
0); every sanitizer is then also measured on that subset, so rows of one table share one pool.
Writes ``benchmarks/results/linkage_study.{md,json}``.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import logging
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from textleak.leakage.knowledge import select_known_indices
from textleak.atomizers import make_atomizer
from textleak.leakage.atomize import atomize_records
from textleak.data.medqa import read_medqa_jsonl
from textleak.linkers import make_linker
from textleak.sanitize.base import STATUS_EMPTY_INPUT, STATUS_OK, create_sanitizer

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SHARED = Path(os.environ.get("TEXTLEAK_SHARED", HERE.parent.parent / "shared")) / "data"
STRATEGIES = ("first", "random", "last")
OFFLINE_SANITIZERS = ("identity", "presidio", "remove_all")
LLM_SANITIZERS = ("sanitize_paraphrase", "span_abstraction", "llm_anonymizer")
LABELS = {
    "identity": "No Sanitization", "presidio": "Scrubbing (Presidio, mask)", "remove_all": "Remove All Info",
    "sanitize_paraphrase": "Sanitize & Paraphrase", "span_abstraction": "Dou et al. (2024) (Presidio spans)",
    "llm_anonymizer": "Staab et al. (2024)",
}
# seed 000, Table 3 (Azure scrubbing, GPT-4o LLM sanitizers, Dou's models; 1k records): first / random / last
PAPER = {
    "MedQA": {"identity": (0.99, 0.99, 0.99), "sanitize_paraphrase": (0.58, 0.66, 0.78), "presidio": (0.81, 0.91, 0.94),
              "span_abstraction": (0.70, 0.67, 0.69), "llm_anonymizer": (0.58, 0.69, 0.78)},
    "WildChat": {"identity": (0.98, 0.98, 0.98), "sanitize_paraphrase": (0.59, 0.62, 0.56), "presidio": (0.89, 0.88, 0.82),
                 "span_abstraction": (0.88, 0.88, 0.83), "llm_anonymizer": (0.66, 0.69, 0.68)},
}

logger = logging.getLogger("linkage_study")


def load_datasets() -> dict[str, dict[str, Any]]:
    medqa = list(read_medqa_jsonl(SHARED / "medqa" / "sampled_50.jsonl"))
    with open(SHARED / "pupa" / "PUPA_TNB.csv", encoding="utf-8", newline="") as f:
        pupa = [row for row in csv.DictReader(f) if row["user_query"].strip()]
    return {
        "MedQA": {"texts": [r["text"] for r in medqa], "domain": "medqa", "source": "medqa/sampled_50.jsonl (profiles)"},
        "WildChat": {"texts": [r["user_query"] for r in pupa], "domain": "wildchat", "source": "pupa/PUPA_TNB.csv (user queries)"},
    }


def sanitize_all(name: str, texts: list[str], options: dict[str, Any], llm: str | None, batch_size: int) -> tuple[list[str], Counter, float]:
    """Sanitized texts (failures released as the original), status counts, seconds."""
    sanitizer = create_sanitizer(name, llm=llm if name in LLM_SANITIZERS else None, **options)
    out, statuses = [], Counter()
    start = time.perf_counter()
    for lo in tqdm(range(0, len(texts), batch_size), desc=f"{name}", leave=False):
        chunk = texts[lo : lo + batch_size]
        res = sanitizer(chunk, list(range(lo, lo + len(chunk))))
        for original, text, status in zip(chunk, res[sanitizer.output_column], res[sanitizer.status_column]):
            statuses[status] += 1
            out.append(text if status == STATUS_OK else original)
    return out, statuses, time.perf_counter() - start


def linkage_rates(claims: list[list[str]], sanitized: list[str], k: int, seed: int, linker: str) -> dict[str, float]:
    fitted = make_linker(linker).fit(sanitized)
    rates = {}
    for strategy in STRATEGIES:
        aux = select_known_indices([len(c) for c in claims], k=k, strategy=strategy, seed=seed)
        known = [[c[j] for j in idx] for c, idx in zip(claims, aux)]
        links = fitted.link(known)
        rates[strategy] = sum(link.index == i for i, link in enumerate(links)) / len(links)
    return rates


def run_table(dataset: str, data: dict[str, Any], sanitizers: list[str], limit: int | None, args: argparse.Namespace) -> dict[str, Any]:
    texts = data["texts"][:limit] if limit else data["texts"]
    empty = sum(not t.strip() for t in texts)
    texts = [t for t in texts if t.strip()]  # an empty original has no claim to link with
    claims = atomize_records(texts, make_atomizer("rules"))
    rows = []
    for name in sanitizers:
        options: dict[str, Any] = {}
        if name in LLM_SANITIZERS:
            options = {"domain": data["domain"], "max_new_tokens": args.max_new_tokens if name != "span_abstraction" else min(args.max_new_tokens, 128)}
            if name == "llm_anonymizer":
                options.update(rounds=args.rounds, inference_max_new_tokens=args.max_new_tokens)
            if args.on_missing_hash and name != "span_abstraction":
                options["on_missing_hash"] = args.on_missing_hash
        sanitized, statuses, seconds = sanitize_all(name, texts, options, args.llm, args.batch_size)
        rates = linkage_rates(claims, sanitized, args.k, args.seed, args.linker)
        failed = sum(n for s, n in statuses.items() if s not in (STATUS_OK, STATUS_EMPTY_INPUT))
        rows.append({"sanitizer": name, "label": LABELS[name], "rates": rates, "statuses": dict(statuses),
                     "failed": failed, "seconds": round(seconds, 2), "paper": PAPER.get(dataset, {}).get(name)})
        logger.info("%s %s: %s (failed %d/%d, %.1fs)", dataset, name, rates, failed, len(texts), seconds)
    return {"dataset": dataset, "source": data["source"], "records": len(texts), "empty_originals_left_out": empty,
            "distinct_records": len(set(texts)),
            "mean_claims": sum(map(len, claims)) / len(claims), "rows": rows}


def to_markdown(tables: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [
        "# Linkage study: correct-linkage rate by the adversary's known claims (seed 000, Table 3 shape)",
        "",
        f"Command: `{meta['command']}` ({meta['date']}). Linker: {meta['linker']} (whole sanitized records, "
        f"k={meta['k']} claims concatenated); claims: rule atomizer; random claims seeded per record (seed {meta['seed']}). "
        f"LLM: {meta['llm'] or 'none'}{'; rounds=' + str(meta['rounds']) + ', max_new_tokens=' + str(meta['max_new_tokens']) if meta['llm'] else ''}.",
        "",
        "A failed sanitization (status not `ok`) is released as the original record here, so failures count as "
        "leakage; the `failed` column says how many records that was. Paper numbers (1k records, Azure PII, "
        "GPT-4o, Dou's gated models) are shown for shape, not as targets.",
        "",
    ]
    for t in tables:
        left_out = f"; {t['empty_originals_left_out']} empty original(s) left out" if t["empty_originals_left_out"] else ""
        if t["distinct_records"] < t["records"]:
            left_out += (f"; only {t['distinct_records']} distinct texts, so no linker can exceed "
                         f"{t['distinct_records'] / t['records']:.2f}")
        lines += [f"## {t['dataset']}: {t['records']} records ({t['source']}{left_out}), {t['mean_claims']:.1f} claims per record",
                  "", "| method | first three | random three | last three | failed | seconds | paper (first / random / last) |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        for r in t["rows"]:
            paper = " / ".join(f"{x:.2f}" for x in r["paper"]) if r["paper"] else "-"
            failed = f"{r['failed']}" + (f" ({', '.join(f'{k}: {v}' for k, v in sorted(r['statuses'].items()) if k != 'ok')})" if r["failed"] else "")
            lines.append(f"| {r['label']} | {r['rates']['first']:.2f} | {r['rates']['random']:.2f} | {r['rates']['last']:.2f} | "
                         f"{failed} | {r['seconds']:.1f} | {paper} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default=None, help="LLM spec for the LLM sanitizers (embedded, hf:<id>, openai:<model>@<url>)")
    parser.add_argument("--llm-limit", type=int, default=0, help="with --llm: first N records of each dataset (0 = all)")
    parser.add_argument("--rounds", type=int, default=3, help="Staab rounds (paper: 3)")
    parser.add_argument("--max-new-tokens", type=int, default=1024)
    parser.add_argument("--on-missing-hash", default=None, choices=("fail", "empty", "whole"))
    parser.add_argument("--linker", default="bm25")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--datasets", nargs="+", default=["MedQA", "WildChat"])
    parser.add_argument("--output", default=str(RESULTS / "linkage_study"), help="path stem for .md and .json")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    for noisy in ("presidio-analyzer", "httpx", "bm25s"):
        logging.getLogger(noisy).setLevel(logging.ERROR)

    data = load_datasets()
    tables = []
    for dataset in args.datasets:
        tables.append(run_table(dataset, data[dataset], list(OFFLINE_SANITIZERS), None, args))
        if args.llm:
            limit = args.llm_limit or None
            names = (["identity", "presidio"] if limit else []) + list(LLM_SANITIZERS)
            sub = run_table(dataset, data[dataset], names, limit, args)
            if limit:
                sub["dataset"] = f"{dataset}, first {limit} records (LLM sanitizers)"
            tables.append(sub)
    argv = " ".join(a for a in os.sys.argv[1:])
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": f"python benchmarks/linkage_study.py {argv}".strip(), "linker": args.linker, "k": args.k,
            "seed": args.seed, "llm": args.llm, "rounds": args.rounds, "max_new_tokens": args.max_new_tokens}
    stem = Path(args.output)
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "tables": tables}, indent=2) + "\n")
    stem.with_suffix(".md").write_text(to_markdown(tables, meta))
    print(to_markdown(tables, meta))


if __name__ == "__main__":
    main()
