"""Stop strings in the transformers backend: textleak's criterion against transformers' ``stop_strings``.

Issue 11 asked whether transformers' own ``GenerationConfig(stop_strings=...)`` (with
``generate(tokenizer=...)``) can replace the backend's hand-written stop criterion
(:class:`textleak.llm.hf.decode.StopOnStrings`). For every ``generate`` call transformers builds a
``StopStringCriteria(stop_strings=..., tokenizer=tokenizer)``; this script builds the same object in
the same place (in place of ``StopOnStrings``) and runs, on the embedded Gemma 3 270M (262k-token
vocabulary), in one process, both ways:

- ``icl``: the controlled-generation (ICL) shape: a prompt ending in a new control-code line, stops
  ``"\\n\\n"`` and ``"\\nPERSON:"``, sampled (T 0.7, top-p 0.9);
- ``judge``: the sampled LLM judge's stop ``"**Input**"``, greedy;
- ``boundary``: a stop string that straddles the end of the prompt and the start of the answer
  (``prompt[-3:] + answer[:2]``): textleak counts stop strings inside the generated text only.

Reports, per workload, the wall time of each way, how many outputs differ, and the time transformers
spends building its criterion (a pass over the whole vocabulary per call). Writes
``benchmarks/results/llm_stop_strings.{md,json}``.

    OMP_NUM_THREADS=1 python benchmarks/bench_llm_stop_strings.py [--samples 4] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import torch

import textleak.llm.hf.generate as hf_generate
from textleak.llm.embedded import EmbeddedGemma

RESULTS = Path(__file__).resolve().parent / "results"

ICL_PROMPT = (
    "PERSON: Alice Smith\nAlice Smith was admitted to the hospital on Monday with chest pain.\n\n"
    "PERSON: Bob Jones\nBob Jones lives in Boston and works as a nurse at the clinic.\n\n"
    "PERSON: Carol White\n"
)
JUDGE_PROMPTS = [
    "**Input**\nDocument: A 41-year-old nurse presents with back pain.\nClaims: 1. The patient is a nurse.\n"
    "**Output**\n1. Rating:",
    "**Input**\nDocument: A retired teacher reports dizziness.\nClaims: 1. The patient lives in Boston.\n"
    "**Output**\n1. Rating:",
    "**Input**\nDocument: A man with type 2 diabetes has blurred vision.\nClaims: 1. The patient has diabetes.\n"
    "**Output**\n1. Rating:",
]
BOUNDARY_PROMPT = "The capital of France is"


class TransformersStops:
    """Builds transformers' criterion where the backend builds its own, timing each build."""

    def __init__(self):
        from transformers.generation.stopping_criteria import StopStringCriteria

        self.cls = StopStringCriteria
        self.builds: list[float] = []

    def __call__(self, tokenizer, stops, prompt_width):
        start = time.perf_counter()
        criterion = self.cls(tokenizer=tokenizer, stop_strings=[s for s in stops if s])
        self.builds.append(time.perf_counter() - start)
        return criterion


def timed(lm, prompts, **kw):
    start = time.perf_counter()
    out = lm.generate(prompts, **kw)
    return out, round(time.perf_counter() - start, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4, help="samples of the ICL prompt")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: leave the default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    lm = EmbeddedGemma(use_cache=False, batch_size=8)
    start = time.perf_counter()
    lm._load()
    load_seconds = time.perf_counter() - start
    answer = lm.generate([BOUNDARY_PROMPT], max_new_tokens=8)[0][0]
    workloads = {
        "icl": ([ICL_PROMPT], dict(max_new_tokens=48, temperature=0.7, top_p=0.9, n=args.samples, seed=0,
                                   stop=("\n\n", "\nPERSON:"))),
        "judge": (JUDGE_PROMPTS, dict(max_new_tokens=24, stop=("**Input**",))),
        "boundary": ([BOUNDARY_PROMPT], dict(max_new_tokens=8, stop=(BOUNDARY_PROMPT[-3:] + answer[:2],))),
    }
    ours = hf_generate.StopOnStrings
    rows = []
    for name, (prompts, kw) in workloads.items():
        lm.generate(prompts[:1], max_new_tokens=2)  # warm-up
        hf_generate.StopOnStrings = ours
        a, a_s = timed(lm, prompts, **kw)
        theirs = TransformersStops()
        hf_generate.StopOnStrings = theirs
        try:
            b, b_s = timed(lm, prompts, **kw)
        finally:
            hf_generate.StopOnStrings = ours
        outs_a, outs_b = [x for row in a for x in row], [x for row in b for x in row]
        rows.append({
            "workload": name, "outputs": len(outs_a), "stop": list(kw["stop"]),
            "textleak_s": a_s, "transformers_s": b_s,
            "transformers_builds": len(theirs.builds), "transformers_build_s": round(sum(theirs.builds), 2),
            "differing_outputs": sum(x != y for x, y in zip(outs_a, outs_b)),
            "examples": [[x, y] for x, y in zip(outs_a, outs_b) if x != y][:2],
        })

    meta = {"model": "embedded gemma-3-270m (float32, CPU)", "torch_threads": torch.get_num_threads(),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "load_seconds": round(load_seconds, 1),
            "machine": platform.platform(), "load_average": os.getloadavg()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "llm_stop_strings.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    lines = [
        "# Stop strings: textleak's criterion vs transformers' `stop_strings` (embedded Gemma 3 270M)", "",
        f"`python benchmarks/bench_llm_stop_strings.py --samples {args.samples}"
        f"{f' --threads {args.threads}' if args.threads else ''}`; torch threads {meta['torch_threads']}, "
        f"load average {', '.join(f'{x:.1f}' for x in meta['load_average'])} at the end, {meta['machine']}", "",
        "| workload | outputs | stop | textleak s | transformers s (criterion builds: n, s) | differing outputs |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['outputs']} | {', '.join(repr(s) for s in r['stop'])} | {r['textleak_s']} | "
                     f"{r['transformers_s']} ({r['transformers_builds']}, {r['transformers_build_s']}) | {r['differing_outputs']} |")
    for r in rows:
        for x, y in r["examples"]:
            lines.append(f"\n{r['workload']}: textleak {x!r} vs transformers {y!r}")
    (RESULTS / "llm_stop_strings.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
