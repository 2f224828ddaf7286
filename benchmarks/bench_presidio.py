"""Presidio scrubbing speed: documents per second, batched (spaCy ``nlp.pipe`` over the batch) against
one document at a time (spaCy called per record, as ``AnalyzerEngine.analyze`` does), side by side in
one run on the same records, with the outputs checked equal.

    python benchmarks/bench_presidio.py [--repeats 3] [--batch-size 32]

Writes ``benchmarks/results/presidio_speed.{md,json}``. Data: the MedQA profiles of
``../shared/data/medqa/sampled_50.jsonl`` and the PUPA user queries of ``../shared/data/pupa/PUPA_TNB.csv``.
The model loads before timing; the two paths alternate, and the best of ``--repeats`` runs is kept, so
other load on the machine penalises both alike.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import logging
import os
import platform
import statistics
import time
from pathlib import Path

from sanitizers import PresidioScrubber
from textleak.data.medqa import read_medqa_jsonl

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SHARED = Path(os.environ.get("TEXTLEAK_SHARED", HERE.parent.parent / "shared")) / "data"


def load_corpora() -> dict[str, list[str]]:
    medqa = [r["text"] for r in read_medqa_jsonl(SHARED / "medqa" / "sampled_50.jsonl")]
    with open(SHARED / "pupa" / "PUPA_TNB.csv", encoding="utf-8", newline="") as f:
        pupa = [row["user_query"] for row in csv.DictReader(f) if row["user_query"].strip()]
    return {"MedQA sample (profiles)": medqa, "PUPA (WildChat user queries)": pupa}


def time_it(fn, *args) -> tuple[float, list]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    scrubber = PresidioScrubber(batch_size=args.batch_size)
    scrubber("warm-up: John Smith in Boston.")  # load spaCy and the recognizers outside the timings
    rows = []
    for name, texts in load_corpora().items():
        seeds = list(range(len(texts)))
        batched_times, single_times = [], []
        for _ in range(args.repeats):
            t_batched, batched = time_it(scrubber.sanitize_batch, texts, seeds)
            t_single, single = time_it(scrubber.sanitize_one_at_a_time, texts, seeds)
            if [r.text for r in batched] != [r.text for r in single]:
                raise AssertionError(f"{name}: batched and one-at-a-time outputs differ")
            batched_times.append(t_batched)
            single_times.append(t_single)
        chars = sum(len(t) for t in texts)
        row = {
            "corpus": name, "documents": len(texts), "mean_chars": round(chars / len(texts)),
            "batched_docs_per_s": len(texts) / min(batched_times),
            "single_docs_per_s": len(texts) / min(single_times),
            "batched_s_median": statistics.median(batched_times), "single_s_median": statistics.median(single_times),
            "outputs_equal": True,
        }
        row["speedup"] = row["batched_docs_per_s"] / row["single_docs_per_s"]
        rows.append(row)
        print(f"{name}: batched {row['batched_docs_per_s']:.1f} docs/s, one at a time {row['single_docs_per_s']:.1f} docs/s "
              f"(x{row['speedup']:.2f}), outputs equal")

    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (shared)",
        "spacy_model": scrubber.engine.model_name, "batch_size": args.batch_size, "repeats": args.repeats,
        "command": f"python benchmarks/bench_presidio.py --repeats {args.repeats} --batch-size {args.batch_size}",
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "presidio_speed.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = [
        "# Presidio scrubbing speed: batched vs one document at a time",
        "",
        f"`{meta['command']}` on {meta['date']}; {meta['machine']}; spaCy model `{meta['spacy_model']}`; "
        f"default entities, mask operator. Best of {args.repeats} alternating runs; outputs of the two paths are identical.",
        "",
        "| corpus | documents | mean chars | batched docs/s | one-at-a-time docs/s | speed-up |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['corpus']} | {r['documents']} | {r['mean_chars']} | {r['batched_docs_per_s']:.1f} | "
                     f"{r['single_docs_per_s']:.1f} | x{r['speedup']:.2f} |")
    (RESULTS / "presidio_speed.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
