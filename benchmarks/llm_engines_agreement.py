"""The LLM judge's ratings from the three engines on the same GGUF and prompts: transformers
(dequantised float32), llama.cpp in process, and the llama.cpp server through the OpenAI backend.
Sampled mode decoding greedily (n=1, 64 tokens) and log-prob mode; prints and writes the parsed
ratings and P(label 1) per claim.

    python benchmarks/llm_engines_agreement.py [--records 3]

Writes ``benchmarks/results/llm_engines_agreement.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench_llm_engines import workload  # noqa: E402 (run from benchmarks/ or with it on sys.path)

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=3)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    from textleak.judges.llm import LLMJudge
    from textleak.llm import load_llm
    from textleak.llm.llamacpp_server import LlamaServer
    from textleak.llm.openai_compat import OpenAICompatibleLM

    claims, docs = workload(args.records)
    res: dict = {}

    def run(name, lm):
        start = time.perf_counter()
        sampled = LLMJudge(lm, mode="sample", n=1, temperature=0.0, max_new_tokens=64, max_retries=0, claims_per_prompt=10)
        res[name] = [[r.rating for r in rs] for rs in sampled.rate(claims, docs, seeds=list(range(len(docs))))]
        scored = LLMJudge(lm, mode="logprob", n=1).rate(claims, docs)
        res[name + "_logprob"] = [[r.rating for r in rs] for rs in scored]
        res[name + "_p1"] = [[round(r.detail["label_p"]["1"], 3) for r in rs] for rs in scored]
        print(name, round(time.perf_counter() - start, 1), res[name], res[name + "_logprob"], res[name + "_p1"], flush=True)

    run("llamacpp", load_llm("llamacpp:embedded", n_ctx=4096, n_threads=1, n_threads_batch=1, use_cache=False))
    run("transformers", load_llm("embedded", use_cache=False))
    with LlamaServer("embedded", n_ctx=2048, n_threads=1) as server:
        run("server", OpenAICompatibleLM(server.model_alias, server.base_url, **server.client_options(),
                                         use_cache=False, timeout=900, max_concurrency=1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "llm_engines_agreement.json").write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
