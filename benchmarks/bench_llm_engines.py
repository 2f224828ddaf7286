"""LLM judge throughput (claims/s) on one machine, side by side in one run: the transformers backend
(``embedded``: the GGUF dequantised to float32), llama.cpp in process (``llamacpp:embedded``: the same
GGUF, quantised kernels), and the llama.cpp OpenAI-compatible server (llama-cpp-python) through the
OpenAI backend at ``max_concurrency`` 1, 4 and 8. Same model file, same prompts, same judge.

    python benchmarks/bench_llm_engines.py [--records 6] [--mode logprob|sample|both] [--threads 2]

Each engine starts with an empty result cache; the load time is reported apart (first load of the
transformers backend on a machine also converts the GGUF once, about 2 minutes; not counted). A cached
rerun is timed for the first engine. Writes ``benchmarks/results/llm_engines.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

DOCS = [
    "A {age}-year-old man has had a fever of 38.{d} C for three days. He takes ibuprofen {d}00 mg and lives in Lyon.",
    "A {age}-year-old woman reports chest pain after exercise. Her blood pressure is 1{d}0/85 and she smokes.",
    "A {age}-year-old teacher has a rash on both arms since {d} weeks. She was treated with amoxicillin.",
]
CLAIMS = [
    ["The patient is {age} years old.", "The patient has a fever.", "The patient lives in Paris."],
    ["The patient reports chest pain.", "The patient is a smoker.", "The patient's blood pressure is normal."],
    ["The patient is a teacher.", "The patient has a rash.", "The patient was given penicillin."],
]


def workload(records: int) -> tuple[list[list[str]], list[str]]:
    claims, docs = [], []
    for i in range(records):
        k = i % len(DOCS)
        slots = {"age": 30 + i, "d": i % 9 + 1}
        docs.append(DOCS[k].format(**slots))
        claims.append([c.format(**slots) for c in CLAIMS[k]])
    return claims, docs


def run_judge(lm, mode: str, claims, docs, new_tokens: int) -> tuple[float, int, int]:
    from textleak.judges.llm import LLMJudge

    judge = LLMJudge(lm, mode=mode, n=3, max_new_tokens=new_tokens, max_retries=0, claims_per_prompt=10)
    start = time.perf_counter()
    ratings = judge.rate(claims, docs, seeds=list(range(len(docs))))
    seconds = time.perf_counter() - start
    flat = [r for rs in ratings for r in rs]
    return seconds, len(flat), sum(r.status == "ok" for r in flat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=6, help="documents (3 claims each)")
    parser.add_argument("--mode", default="both", choices=["logprob", "sample", "both"])
    parser.add_argument("--new-tokens", type=int, default=48, help="max_new_tokens of the sampled judge")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--concurrency", default="1,4,8")
    parser.add_argument("--skip", default="", help="comma-separated engines to leave out (hf, llamacpp, server)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import torch

    torch.set_num_threads(args.threads)
    from textleak.cache import DiskCache
    from textleak.llm import load_llm
    from textleak.llm.llamacpp import LlamaCppLM
    from textleak.llm.llamacpp_server import LlamaServer
    from textleak.llm.openai_compat import OpenAICompatibleLM

    claims, docs = workload(args.records)
    modes = ["logprob", "sample"] if args.mode == "both" else [args.mode]
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    rows, loads = [], {}
    tmp = Path(tempfile.mkdtemp(prefix="bench-engines-"))
    uptime_before = os.getloadavg()

    def bench(engine: str, lm, concurrency: int | None = None) -> None:
        for mode in modes:
            lm.cache = DiskCache("llm", root=tmp / f"{engine}-{concurrency}-{mode}")
            seconds, n, ok = run_judge(lm, mode, claims, docs, args.new_tokens)
            start = time.perf_counter()
            run_judge(lm, mode, claims, docs, args.new_tokens)
            cached = time.perf_counter() - start
            row = {"engine": engine, "concurrency": concurrency, "mode": mode, "claims": n, "parsed": ok,
                   "seconds": round(seconds, 2), "claims_per_s": round(n / seconds, 3), "cached_rerun_s": round(cached, 4)}
            rows.append(row)
            print(json.dumps(row), flush=True)

    if "hf" not in skip:
        from textleak.llm.embedded import embedded_model_path

        embedded_model_path()  # the one-time conversion is not part of the load time
        hf = load_llm("embedded")
        start = time.perf_counter()
        hf.model  # noqa: B018  (loads tokenizer + float32 weights)
        loads["transformers (embedded)"] = round(time.perf_counter() - start, 2)
        bench("transformers", hf)
        del hf
    if "llamacpp" not in skip:
        lc = LlamaCppLM("embedded", n_ctx=4096, n_threads=args.threads, n_threads_batch=args.threads)
        start = time.perf_counter()
        lc.llm  # noqa: B018
        loads["llama.cpp in process"] = round(time.perf_counter() - start, 2)
        bench("llama.cpp in process", lc)
        del lc
    if "server" not in skip:
        with LlamaServer("embedded", n_ctx=3072, n_threads=args.threads) as server:
            loads["llama.cpp server (process start to ready)"] = round(server.startup_seconds, 2)
            for c in [int(x) for x in args.concurrency.split(",")]:
                lm = OpenAICompatibleLM(server.model_alias, server.base_url, **server.client_options(),
                                        max_concurrency=c, timeout=600)
                bench("llama.cpp server", lm, c)
    result = {"records": args.records, "claims": sum(len(c) for c in claims), "threads": args.threads,
              "new_tokens": args.new_tokens, "loads_s": loads, "rows": rows, "machine": platform.platform(),
              "cpus": os.cpu_count(), "loadavg_before": uptime_before, "loadavg_after": os.getloadavg()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "llm_engines.json").write_text(json.dumps(result, indent=2))
    lines = [f"# LLM judge throughput: {result['claims']} claims, Gemma 3 270M Q4_K_M, {args.threads} threads", "",
             f"`python benchmarks/bench_llm_engines.py --records {args.records} --mode {args.mode} --threads {args.threads}`", "",
             f"Load average before/after: {', '.join(f'{x:.1f}' for x in uptime_before)} / "
             f"{', '.join(f'{x:.1f}' for x in result['loadavg_after'])} on {os.cpu_count()} CPUs "
             "(a shared machine: compare rows, not absolute numbers).", "",
             "| load | seconds |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in loads.items()]
    lines += ["", "| engine | concurrency | judge mode | claims | parsed | seconds | claims/s | cached rerun s |",
              "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['engine']} | {r['concurrency'] or '-'} | {r['mode']} | {r['claims']} | {r['parsed']} | {r['seconds']} | "
              f"{r['claims_per_s']} | {r['cached_rerun_s']} |" for r in rows]
    (RESULTS / "llm_engines.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
