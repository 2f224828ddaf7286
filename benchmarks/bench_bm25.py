"""textleak's BM25 linker against raw bm25s, pyserini and rank_bm25 on seed 000's linking step, side by side in one run.

    python benchmarks/bench_bm25.py                      # 10,000 records, 500 queries, 5 interleaved rounds
    python benchmarks/bench_bm25.py --n 1273 --queries 0  # the former workload: one query per record
    python benchmarks/bench_bm25.py --old-rev HEAD~1      # adds the linker as it was at that revision

Corpus: ``--n`` synthetic MedQA-style profiles (``textleak.data.vignettes``, template-made with
varied values, nothing private) plus the 49 non-empty real MedQA profiles from
``../shared/data/medqa/sampled_50.jsonl`` when present. Queries: ``--queries`` records drawn at random
(seeded), each one's three random known claims (rule atomizer, per-record seeds) concatenated (the
paper's query); ``--queries 0`` queries every record.

Rows, timed in interleaved rounds (each round runs every row once, in turn; the table keeps each
row's fastest round, since other jobs share the machine):

- ``textleak BM25Linker.link``: the pipeline's linker end to end from the query strings (tokenising,
  Porter stemming, scoring, hits, ``Link`` objects; top 10 kept for linkage@k), index built beforehand;
- ``bm25s get_scores``: raw bm25s, one ``get_scores`` call per query on the already tokenised query
  (same tokens, Lucene BM25, k1=0.9, b=0.4), then its argmax (what the linker must at least do);
- ``bm25s retrieve``: raw bm25s, one batched ``retrieve(k=10)`` on the tokenised queries;
- ``rank_bm25 BM25Okapi get_scores`` (test extra), on the first ``--rank-queries`` queries only (it
  takes about 0.2 s a query at 10k records), once; its IDF differs (Robertson-Sparck Jones with an
  epsilon floor), so its top-1 agreement is reported too;
- with ``--old-rev``, the linker at that revision (``git show``), with its full results checked equal;
- pyserini (the paper's linker; optional, benchmark only, not a textleak dependency, needs a JDK:
  ``pip install --no-deps pyserini==0.22.1 pyjnius`` is enough for its Lucene BM25 path and ran here on
  Java 17 and 25, e.g. ``JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64``, else ``java`` on the PATH; newer
  pyserini needs Java 21+ and imports openai and tiktoken on the way to its searcher): a Lucene index of
  the same records built by its JsonCollection indexer (a subprocess), BM25 k1=0.9 b=0.4, then
  ``LuceneSearcher.search`` per query (sequential) and ``batch_search`` (threads 1 and 2), k=10, on the
  same query strings the linker gets. Lucene's own analyzer (Porter stemming, its stop
  words, no claim-frame words left out) tokenises them, so its top-1 agreement with the linker is
  reported, not asserted. Left out with a note when pyserini or Java is missing (or ``--no-pyserini``).

Each row has its fastest wall-clock round and its fastest CPU-time round (the process's CPU time, every
thread included: the JVM's too), the latter less disturbed by other jobs on a shared machine.
Index build times are reported separately. Writes ``benchmarks/results/bm25_speed.{json,md}``.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from textleak.atomizers.rules import RuleAtomizer
from textleak.data.vignettes import generate_vignettes
from textleak.io import read_records
from textleak.leakage.knowledge import select_known_indices
from textleak.linkers.bm25 import BM25Linker, LuceneLikeTokenizer

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def corpus(n: int, seed: int) -> list[str]:
    from textleak.data.medqa import medqa_record

    texts = [medqa_record(r, i)["text"] for i, r in enumerate(generate_vignettes(n, seed))]
    shared = REPO.parent / "shared" / "data" / "medqa" / "sampled_50.jsonl"
    if shared.exists():
        texts += [r["text"] for r in read_records(str(shared)) if r["text"].strip()]
    return texts


def timed(fn):
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def cpu_timed(fn):
    """(wall seconds, CPU seconds of this process, all threads, value)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def pyserini_rows(docs: list[str], queries: list[str], workdir: str) -> tuple[dict, dict, str]:
    """Pyserini's rows (name -> function giving each query's top-1 record or None), its index build time,
    and a line naming its version and Java, or (``{}``, ``{}``, why it is left out)."""
    try:
        import pyserini  # noqa: F401
    except ImportError as e:
        return {}, {}, f"not measured: pyserini is not installed ({e})"
    collection = Path(workdir) / "collection"
    collection.mkdir()
    with open(collection / "docs.jsonl", "w") as f:
        for i, text in enumerate(docs):
            f.write(json.dumps({"id": str(i), "contents": text}) + "\n")
    index_dir = str(Path(workdir) / "index")
    command = [sys.executable, "-m", "pyserini.index.lucene", "--collection", "JsonCollection", "--input", str(collection),
               "--index", index_dir, "--generator", "DefaultLuceneDocumentGenerator", "--threads", "1"]
    seconds, done = timed(lambda: subprocess.run(command, capture_output=True, text=True))
    if done.returncode != 0 or not Path(index_dir).exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {}, {}, f"not measured: pyserini's indexer failed (Java missing or too old?): {last}"
    try:
        from pyserini.search.lucene import LuceneSearcher  # before jnius: it sets the JVM's class path

        from jnius import autoclass
    except Exception as e:  # the JVM does not start: no JDK, or one pyserini does not accept
        return {}, {}, f"not measured: pyserini's searcher does not start ({type(e).__name__}: {e})"
    searcher = LuceneSearcher(index_dir)
    searcher.set_bm25(0.9, 0.4)
    qids = [str(i) for i in range(len(queries))]

    def top1(hits):
        return int(hits[0].docid) if hits else None

    def batched(threads):
        return lambda: (lambda found: [top1(found[q]) for q in qids])(searcher.batch_search(queries, qids, k=10, threads=threads))

    rows = {
        "pyserini LuceneSearcher.search per query (k=10)": lambda: [top1(searcher.search(q, k=10)) for q in queries],
        "pyserini batch_search (k=10, threads=1)": batched(1),
        "pyserini batch_search (k=10, threads=2)": batched(2),
    }
    system = autoclass("java.lang.System")
    about = f"pyserini {importlib.metadata.version('pyserini')}, Java {system.getProperty('java.version')} ({system.getProperty('java.vendor')})"
    return rows, {"pyserini JsonCollection indexer (threads 1, JVM start included)": seconds}, about


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10000, help="synthetic records (the 49 real ones are added)")
    ap.add_argument("--queries", type=int, default=500, help="records queried (0: all)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rank-queries", type=int, default=50, help="queries given to rank_bm25 (0: skip it)")
    ap.add_argument("--old-rev", default=None, help="also time the linker at this git revision")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-pyserini", action="store_true", help="leave pyserini out even when it is installed")
    args = ap.parse_args()

    docs = corpus(args.n, args.seed)
    rng = np.random.default_rng(args.seed)
    picked = sorted(rng.choice(len(docs), size=args.queries, replace=False).tolist()) if 0 < args.queries < len(docs) else list(range(len(docs)))
    claims = RuleAtomizer().atomize([docs[i] for i in picked])
    aux = select_known_indices([len(c) for c in claims], k=3, seed=args.seed)
    known = [[cs[j] for j in a] for cs, a in zip(claims, aux)]
    queries = [" ".join(k) for k in known]
    tokenizer = LuceneLikeTokenizer()
    tokenize_s, (doc_tokens, query_tokens) = timed(lambda: (tokenizer(docs), tokenizer(queries)))

    import bm25s

    index = {}
    retriever = bm25s.BM25(method="lucene", k1=0.9, b=0.4)
    index["bm25s"], _ = timed(lambda: retriever.index(doc_tokens, show_progress=False))
    index["textleak BM25Linker (tokenising included)"], linker = timed(lambda: BM25Linker().fit(docs))
    # raw bm25s answers the queries the linker searches with: the claims' frame words left out (drop_frame)
    query_tokens = linker.query_tokens(queries)

    def raw_get_scores():
        top = []
        for q in query_tokens:
            scores = retriever.get_scores(q)
            best = int(np.argmax(scores))
            top.append(best if scores[best] > 0 else None)
        return top

    rows = {
        "textleak BM25Linker.link (concat query, top 10)": lambda: [l.index for l in linker.link(known)],
        "bm25s get_scores per query (+ argmax)": raw_get_scores,
        "bm25s retrieve, batched (k=10)": lambda: [int(d[0]) if s[0] > 0 else None for d, s in zip(*retriever.retrieve(query_tokens, k=10, show_progress=False))],
    }
    old_linker = None
    if args.old_rev:
        from _revision import load_at_revision

        old = load_at_revision(args.old_rev, "textleak/linkers/bm25.py", {"textleak.linkers.base": "textleak/linkers/base.py"})
        old_linker = old.BM25Linker().fit(docs)
        rows[f"textleak BM25Linker.link at {args.old_rev}"] = lambda: [l.index for l in old_linker.link(known)]
    workdir = tempfile.TemporaryDirectory(prefix="bench_bm25_")
    pyserini_about = "not measured: --no-pyserini"
    if not args.no_pyserini:
        more, more_index, pyserini_about = pyserini_rows(docs, queries, workdir.name)
        rows.update(more)
        index.update(more_index)
    best = {name: float("inf") for name in rows}
    best_cpu = {name: float("inf") for name in rows}
    top: dict[str, list] = {}
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for name, fn in rows.items():
            seconds, cpu, top[name] = cpu_timed(fn)
            best[name] = min(best[name], seconds)
            best_cpu[name] = min(best_cpu[name], cpu)
    names = list(rows)
    pyserini_names = [name for name in names if name.startswith("pyserini")]
    assert top[names[0]] == top[names[1]], "BM25Linker's top-1 differs from bm25s get_scores on the same tokens"
    if old_linker is not None:
        assert [l.to_dict() for l in linker.link(known)] == [l.to_dict() for l in old_linker.link(known)], "the linker's results changed"
    retrieve_agree = sum(a == b for a, b in zip(top[names[0]], top[names[2]])) / len(queries)

    table = [{"row": name, "seconds": best[name], "queries": len(queries), "queries_per_s": len(queries) / best[name],
              "cpu_seconds": best_cpu[name], "queries_per_cpu_s": len(queries) / best_cpu[name]} for name in names]
    # the linker as the paper queries (claim-frame words kept), to tell the drop_frame departure from the analyzers' differences
    frame_kept = [l.index for l in BM25Linker(drop_frame=False).fit(docs).link(known)] if pyserini_names else []
    for r in table:
        if r["row"] in pyserini_names:
            r["top1_agreement_with_linker"] = sum(a == b for a, b in zip(top[r["row"]], top[names[0]])) / len(queries)
            r["top1_agreement_with_linker_frame_kept"] = sum(a == b for a, b in zip(top[r["row"]], frame_kept)) / len(queries)
            r["correct_linkage_identity"] = sum(1 for q, j in zip(picked, top[r["row"]]) if j == q) / len(queries)
    rank_row = None
    if args.rank_queries > 0:
        from rank_bm25 import BM25Okapi

        index["rank_bm25 BM25Okapi"], okapi = timed(lambda: BM25Okapi(doc_tokens, k1=0.9, b=0.4))
        subset = query_tokens[: args.rank_queries]

        def rank_top():
            out = []
            for q in subset:
                scores = okapi.get_scores(q)
                b = int(np.argmax(scores))
                out.append(b if scores[b] > 0 else None)
            return out

        seconds, cpu, rank = cpu_timed(rank_top)
        rank_row = {"row": f"rank_bm25 BM25Okapi get_scores (first {len(subset)} queries, one round)", "seconds": seconds,
                    "queries": len(subset), "queries_per_s": len(subset) / seconds, "cpu_seconds": cpu, "queries_per_cpu_s": len(subset) / cpu,
                    "top1_agreement_with_bm25s": sum(a == b for a, b in zip(rank, top[names[1]])) / len(subset)}
        table.append(rank_row)
    load_after = os.getloadavg()
    linker_qps, linker_cpu_qps = table[0]["queries_per_s"], table[0]["queries_per_cpu_s"]
    for r in table:
        r["linker_speed_ratio"] = linker_qps / r["queries_per_s"]  # > 1: the linker is faster
        r["linker_cpu_speed_ratio"] = linker_cpu_qps / r["queries_per_cpu_s"]
    correct = sum(1 for q, j in zip(picked, top[names[0]]) if j == q) / len(queries)
    command = (f"python benchmarks/bench_bm25.py --n {args.n} --queries {args.queries} --rounds {args.rounds} "
               f"--rank-queries {args.rank_queries} --seed {args.seed}" + (f" --old-rev {args.old_rev}" if args.old_rev else ""))
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "command": command,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (shared)",
        "load_average": [load_before[0], load_after[0]], "n_docs": len(docs), "n_queries": len(queries), "rounds": args.rounds,
        "rows": table, "index_s": index, "tokenize_all_s": tokenize_s, "correct_linkage_identity": correct,
        "top1_linker_vs_bm25s_get_scores": 1.0, "top1_linker_vs_bm25s_retrieve": retrieve_agree,
        "pyserini": pyserini_about,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bm25_speed.json").write_text(json.dumps(result, indent=2))
    lines = [
        f"# BM25 linking: textleak's linker vs raw bm25s, pyserini and rank_bm25 ({len(docs)} MedQA-style records, {len(queries)} queries)",
        "", f"`{command}` on {result['machine']}, {result['date']}; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after.",
        f"Fastest of {args.rounds} interleaved rounds per row, wall clock and CPU time (the process's, all threads) "
        "each (rank_bm25: one round on a subset).", "",
        "| row | queries | wall s | queries/s | linker's speed relative to it | CPU s | queries/CPU s | linker's CPU speed relative to it |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {r['row']} | {r['queries']} | {r['seconds']:.3f} | {r['queries_per_s']:.0f} | {r['linker_speed_ratio']:.2f}x "
              f"| {r['cpu_seconds']:.3f} | {r['queries_per_cpu_s']:.0f} | {r['linker_cpu_speed_ratio']:.2f}x |" for r in table]
    lines += ["", "Top-1 of the linker equals bm25s `get_scores` + argmax on every query (asserted)"
              + ("; the linker's full results equal those at " + args.old_rev + " (asserted)" if args.old_rev else "") + ".",
              f"bm25s `retrieve` top-1 agrees on {retrieve_agree:.4f} (it breaks equal scores its own way).",
              (f"rank_bm25 top-1 agrees with bm25s on {rank_row['top1_agreement_with_bm25s']:.3f} of its queries (same tokens; the IDF formulas differ)."
               if rank_row else "rank_bm25 skipped."),
              "Index build (s): " + ", ".join(f"{k} {v:.2f}" for k, v in index.items()) + f"; tokenising all records and queries: {tokenize_s:.2f} s.",
              f"Correct linkage (identity sanitization): {correct:.4f} (template-made records share many claims, "
              "so three generic known claims do not always single a record out)."]
    if pyserini_names:
        lines += [f"Pyserini: {pyserini_about}; Lucene's analyzer (Porter stemming, its stop words, claim-frame words kept) on the "
                  "same query strings. Top-1 agreement with the linker: "
                  + ", ".join(f"{r['row'].removeprefix('pyserini ')} {r['top1_agreement_with_linker']:.4f}" for r in table if r["row"] in pyserini_names)
                  + f"; with the linker keeping the claim-frame words as Lucene does (`drop_frame=False`, untimed): "
                  f"{table[names.index(pyserini_names[0])]['top1_agreement_with_linker_frame_kept']:.4f} (the rest: the two analyzers' tokens, and Lucene's document lengths stored in one byte). "
                  f"Pyserini's correct linkage (identity sanitization) {table[names.index(pyserini_names[0])]['correct_linkage_identity']:.4f}."]
    else:
        lines += [f"Pyserini (the paper's Lucene): {pyserini_about}."]
    (RESULTS / "bm25_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
