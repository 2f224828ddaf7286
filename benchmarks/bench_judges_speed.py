"""Judge throughput side by side, in one run, on 2 threads: the NLI judge (and its speed-up variants),
the embedding judge (batch 16 and the former batch 128), and the raw limit (one MiniLM encode of the
claims and the documents' sentences with sentence-transformers, batch 16).

    python benchmarks/bench_judges_speed.py                        # writes benchmarks/results/judges_speed.{md,json}
    python benchmarks/bench_judges_speed.py --records 200 --repeat 2

Workload: synthetic MedQA-style records (``textleak.data.vignettes``, seed 7, so nothing private) with the
rule atomizer's claims, each rated against three sanitized versions of its record, as a study would:
the record itself (identity), the record with every number changed, and another record (own record
absent). Judges are called in chunks of 64 records, as ``evaluate_leakage`` does. Models are loaded
before timing. Reported per variant: wall seconds, claims per second (wall), CPU seconds of the process
(all threads) and claims per CPU-second (it does not grow when other jobs share the machine), plus the
machine load. Timings on a shared machine are indicative; rerun on a quiet one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from sanitizers.record import change_numbers

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def workload(n: int):
    from textleak.atomizers.rules import RuleAtomizer
    from textleak.data.medqa import medqa_record
    from textleak.data.vignettes import generate_vignettes

    texts = [medqa_record(r, i)["text"] for i, r in enumerate(generate_vignettes(n, seed=7))]
    claims = RuleAtomizer().atomize(texts)
    docs, cl = [], []
    for i, t in enumerate(texts):
        for d in (t, change_numbers(t), texts[(i + 1) % len(texts)]):
            docs.append(d)
            cl.append(claims[i])
    return cl, docs


def timed(fn):
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - started, time.process_time() - cpu


def run_judge(judge, claims, docs, chunk=64):
    for s in range(0, len(docs), chunk):
        judge.rate(claims[s : s + chunk], docs[s : s + chunk])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=1, help="repeat each variant, keep the fastest")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated variant names")
    ap.add_argument("--weights", default=None, help="NLI weights folder (default: the shipped adapter)")
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(args.threads)
    from textleak.text import split_sentences
    from textleak.encoders import load_sentence_encoder
    from textleak.judges.embedding import EmbeddingJudge
    from textleak.judges.nli import NLIJudge, load_nli_model

    claims, docs = workload(args.records)
    n_claims = sum(len(c) for c in claims)
    model = load_sentence_encoder()
    if not args.only or "nli" in args.only:
        load_nli_model(args.weights, True)
        load_nli_model(args.weights, False)
    sentences = [s for d in docs for s in split_sentences(d)]

    def raw():
        # each distinct text once, as the judges encode them (a record's claims meet three documents)
        texts = list(dict.fromkeys([c for cs in claims for c in cs] + sentences))
        model.encode(texts, batch_size=16, convert_to_numpy=True, normalize_embeddings=True)

    variants = {
        "raw limit: one MiniLM encode of the distinct claims + sentences (batch 16)": raw,
        "embedding (batch 16, the default)": lambda: run_judge(EmbeddingJudge(batch_size=16), claims, docs),
        "embedding (batch 128, the former default)": lambda: run_judge(EmbeddingJudge(batch_size=128), claims, docs),
        "nli (default: fp32, cascade, verbatim shortcut, 1 span)": lambda: run_judge(NLIJudge(weights=args.weights), claims, docs),
        "nli int8": lambda: run_judge(NLIJudge(weights=args.weights, int8=True), claims, docs),
        "nli without shortcut or cascade": lambda: run_judge(NLIJudge(weights=args.weights, verbatim=False, cascade=None), claims, docs),
        "nli int8 without shortcut or cascade": lambda: run_judge(NLIJudge(weights=args.weights, verbatim=False, cascade=None, int8=True), claims, docs),
        "nli, 2 spans": lambda: run_judge(NLIJudge(weights=args.weights, spans=2), claims, docs),
    }
    if args.only:
        keep = [v.strip() for v in args.only.split(",")]
        variants = {k: v for k, v in variants.items() if any(k.startswith(x) for x in keep)}
    run_judge(EmbeddingJudge(batch_size=16), claims[:4], docs[:4])  # warm-up
    if not args.only or "nli" in args.only:
        run_judge(NLIJudge(weights=args.weights, verbatim=False, cascade=None), claims[:4], docs[:4])
    load_before = os.getloadavg()
    rows = []
    for name, fn in variants.items():
        best = None
        for _ in range(args.repeat):
            wall, cpu = timed(fn)
            if best is None or wall < best[0]:
                best = (wall, cpu)
        rows.append({"variant": name, "wall_s": best[0], "claims_per_s": n_claims / best[0], "cpu_s": best[1], "claims_per_cpu_s": n_claims / best[1]})
        print(f"{name:70s} {best[0]:7.1f} s  {n_claims / best[0]:7.1f} claims/s  cpu {best[1]:7.1f} s  {n_claims / best[1]:7.1f} claims/cpu-s", flush=True)
    load_after = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    date = time.strftime("%Y-%m-%d")
    lines = [f"# Judge throughput ({date})", "",
             f"{len(docs)} (claims, document) pairs: {args.records} synthetic MedQA-style records x (identity, numbers changed, another record); "
             f"{n_claims} claims, {len(sentences)} document sentences; chunks of 64 records; {args.threads} threads; "
             f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} cores).", "",
             "| variant | wall s | claims/s | CPU s | claims per CPU-second |", "|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {r['wall_s']:.1f} | {r['claims_per_s']:.1f} | {r['cpu_s']:.1f} | {r['claims_per_cpu_s']:.1f} |" for r in rows]
    (RESULTS / "judges_speed.md").write_text("\n".join(lines) + "\n")
    (RESULTS / "judges_speed.json").write_text(json.dumps({"date": date, "records": args.records, "claims": n_claims, "pairs": len(docs),
                                                           "threads": args.threads, "load_before": load_before, "load_after": load_after,
                                                           "platform": platform.platform(), "rows": rows}, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
