"""bm25s against rank_bm25 for seed 000's linking step, side by side in one run.

    python benchmarks/bench_bm25.py [--n 1273] [--seed 0]

Corpus: ``--n`` synthetic MedQA-style profiles (``textleak.data.vignettes``) plus the 49 non-empty
real MedQA profiles from ``../shared/data/medqa/sampled_50.jsonl`` when present. Queries: for each
record its three random known claims (rule atomizer, per-record seeds), concatenated (the paper's query).
Both libraries get the same tokens (``LuceneLikeTokenizer``: Porter stemming, Lucene's 33 stop words)
and k1=0.9, b=0.4. bm25s uses Lucene's BM25 (``method="lucene"``); rank_bm25's ``BM25Okapi`` has a
different IDF (Robertson-Sparck Jones with an epsilon floor for common terms), so rankings may differ
slightly: the agreement column measures by how much.

Reports index time, queries per second, top-1 agreement between the two, and each one's
correct-linkage rate (identity sanitization: the true record is the query's own). Writes
``benchmarks/results/bm25_speed.{json,md}``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from textleak.leakage.knowledge import select_known_indices
from textleak.atomizers.rules import RuleAtomizer
from textleak.data.vignettes import generate_vignettes
from textleak.linkers.bm25 import BM25Linker, LuceneLikeTokenizer
from textleak.io import read_records

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def corpus(n: int, seed: int) -> list[str]:
    from textleak.data.medqa import medqa_record

    texts = [medqa_record(r, i)["text"] for i, r in enumerate(generate_vignettes(n, seed))]
    shared = REPO.parent / "shared" / "data" / "medqa" / "sampled_50.jsonl"
    if shared.exists():
        texts += [r["text"] for r in read_records(str(shared)) if r["text"].strip()]
    return texts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1273)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    docs = corpus(args.n, args.seed)
    claims = RuleAtomizer().atomize(docs)
    aux = select_known_indices([len(c) for c in claims], k=3, seed=args.seed)
    queries = [" ".join(claims[i][j] for j in aux[i]) for i in range(len(docs))]
    tokenizer = LuceneLikeTokenizer()
    t = time.perf_counter()
    doc_tokens, query_tokens = tokenizer(docs), tokenizer(queries)
    tokenize_s = time.perf_counter() - t

    rows = []
    # bm25s on the same tokens (what BM25Linker runs, minus its tokenizer)
    import bm25s

    t = time.perf_counter()
    retriever = bm25s.BM25(method="lucene", k1=0.9, b=0.4)
    retriever.index(doc_tokens, show_progress=False)
    index_s = time.perf_counter() - t
    t = time.perf_counter()
    found, scores = retriever.retrieve(query_tokens, k=1, show_progress=False)
    query_s = time.perf_counter() - t
    top_bm25s = [int(d[0]) if s[0] > 0 else None for d, s in zip(found, scores)]
    rows.append({"library": "bm25s (lucene)", "index_s": index_s, "query_s": query_s})
    # the pipeline's linker end to end (tokenizing included) must agree with raw bm25s
    t = time.perf_counter()
    linked = [l.index for l in BM25Linker(top_k=1).fit(docs).link([[q] for q in queries])]
    linker_s = time.perf_counter() - t
    assert linked == top_bm25s, "BM25Linker disagrees with bm25s on the same tokens"

    # rank_bm25 on the same tokens
    from rank_bm25 import BM25Okapi

    t = time.perf_counter()
    okapi = BM25Okapi(doc_tokens, k1=0.9, b=0.4)
    index_s = time.perf_counter() - t
    t = time.perf_counter()
    top_rank = []
    for q in query_tokens:
        scores = okapi.get_scores(q)
        best = int(np.argmax(scores))
        top_rank.append(best if scores[best] > 0 else None)
    query_s = time.perf_counter() - t
    rows.append({"library": "rank_bm25 (BM25Okapi)", "index_s": index_s, "query_s": query_s})

    n = len(docs)
    for row, top in zip(rows, (top_bm25s, top_rank)):
        row["queries_per_s"] = n / row["query_s"] if row["query_s"] else float("inf")
        row["correct_linkage"] = sum(1 for i, j in enumerate(top) if j == i) / n
    agreement = sum(1 for a, b in zip(top_bm25s, top_rank) if a == b) / n
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": f"python benchmarks/bench_bm25.py --n {args.n} --seed {args.seed}",
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (shared)",
        "n_docs": n, "n_queries": n, "top1_agreement": agreement, "rows": rows,
        "tokenize_s": tokenize_s, "bm25linker_total_s": linker_s,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bm25_speed.json").write_text(json.dumps(result, indent=2))
    lines = [
        f"# BM25 for linking: bm25s vs rank_bm25 ({n} MedQA-style records, one query per record)",
        "", f"`{result['command']}` on {result['machine']}, {result['date']}.", "",
        "| library | index (s) | queries (s) | queries/s | correct linkage (identity) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['library']} | {r['index_s']:.2f} | {r['query_s']:.2f} | {r['queries_per_s']:.0f} | {r['correct_linkage']:.4f} |")
    lines += ["", f"Top-1 agreement between the two: {agreement:.4f} (same tokens; the IDF formulas differ).",
              f"Tokenizing all records and queries (PyStemmer Porter, memoised): {tokenize_s:.2f} s; "
              f"`BM25Linker` end to end (tokenize, index, link): {linker_s:.2f} s.",
              "Correct linkage is below 1 on the synthetic records because template-made records share many claims "
              "(\"She has never smoked.\"): three generic known claims do not single a record out."]
    (RESULTS / "bm25_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
