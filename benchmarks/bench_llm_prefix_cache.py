"""Scoring and generation with vs without reuse of shared-prefix KV caches, on the embedded Gemma 3 270M.

Three workloads, each run both ways on the same loaded model, in one process:

- ``judge``: many prompts share a long instruction + demonstrations and differ in a short record;
  three rating choices each (the shape of an LLM-judge call).
- ``choices``: few prompts, several multi-token choices each (the shape of multiple-choice utility).
- ``judge-generate``: the judge prompts answered by greedy generation (8 new tokens) instead; by
  default the backend's cost estimate batches different prompts together here, so it is also run
  with ``prefix_cache="always"`` (one prompt per batch, prefix KV reused) to show why.

Reports wall time, forward passes, tokens fed to the model, and the largest difference between the
two ways' log-probabilities (they must agree). Writes ``benchmarks/results/llm_prefix_cache.{md,json}``.

    python benchmarks/bench_llm_prefix_cache.py [--records 12] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import torch

from textleak.llm.embedded import EmbeddedGemma

RESULTS = Path(__file__).resolve().parent / "results"

INSTRUCTION = (
    "You compare a claim about a person with a document. Rate how well the document supports the claim.\n"
    "1 means the document states the same information. 2 means it states similar but less specific "
    "information. 3 means the document does not support the claim at all.\n\n"
    "Example. Claim: The patient is 25 years old. Document: A woman in her twenties reports a cough. "
    "Rating: 2\n"
    "Example. Claim: The patient took aspirin. Document: A man with intermittent headaches over the past "
    "week; no medication is mentioned. Rating: 3\n"
    "Example. Claim: The patient is a researcher. Document: A scientist at a university volunteers for a "
    "memory study. Rating: 1\n\n"
)
RECORDS = [
    ("The patient is a nurse.", "A 41-year-old nurse presents with back pain after a night shift."),
    ("The patient lives in Boston.", "A retired teacher from Massachusetts reports dizziness."),
    ("The patient has diabetes.", "A man with type 2 diabetes mellitus has blurred vision for two days."),
    ("The patient is pregnant.", "A 30-year-old woman at 12 weeks of gestation has nausea."),
    ("The patient smokes.", "A 55-year-old man with a 30 pack-year history has a chronic cough."),
    ("The patient is a child.", "A 6-year-old boy is brought in with a rash on his arms."),
    ("The patient plays football.", "A college athlete injured his knee during a match."),
    ("The patient is allergic to penicillin.", "A woman develops hives after amoxicillin."),
]
QUESTIONS = [
    ("A 23-year-old woman has burning on urination. The most likely organism is", [" Escherichia coli", " Staphylococcus aureus", " Candida albicans", " Neisseria gonorrhoeae"]),
    ("A man has crushing chest pain radiating to the left arm. The first test to order is", [" an electrocardiogram", " a chest radiograph", " a lumbar puncture", " an abdominal ultrasound"]),
    ("A child has a barking cough and stridor. The most likely diagnosis is", [" croup", " epiglottitis", " asthma", " pneumonia"]),
]


def workloads(n_records: int):
    judge = [INSTRUCTION + f"Claim: {RECORDS[i % len(RECORDS)][0]} Document: {RECORDS[i % len(RECORDS)][1]} Rating:"
             for i in range(n_records)]
    return {
        "judge": (judge, [" 1", " 2", " 3"]),
        "choices": ([q for q, _ in QUESTIONS], [c for _, c in QUESTIONS]),
        "judge-generate": (judge[: max(2, n_records // 2)], None),
    }


def run(lm: EmbeddedGemma, prompts, choices) -> tuple[list[list], dict]:
    """Score the choices (or, with ``choices=None``, generate greedily) and count the work."""
    before = lm.forward_stats
    start = time.perf_counter()
    scores = lm.generate(prompts, max_new_tokens=8) if choices is None else lm.score(prompts, choices)
    seconds = time.perf_counter() - start
    after = lm.forward_stats
    return scores, {
        "seconds": round(seconds, 2),
        "forward_calls": after["forward_calls"] - before["forward_calls"],
        "forward_tokens": after["forward_tokens"] - before["forward_tokens"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=12)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: leave the default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    reuse = EmbeddedGemma(use_cache=False, batch_size=args.batch_size, prefix_cache=True)
    plain = EmbeddedGemma(use_cache=False, batch_size=args.batch_size, prefix_cache=False)
    t0 = time.perf_counter()
    reuse._load()
    load_seconds = time.perf_counter() - t0
    always = EmbeddedGemma(use_cache=False, batch_size=args.batch_size, prefix_cache="always")
    for other in (plain, always):
        other._model, other._tokenizer = reuse._model, reuse._tokenizer  # one copy of the weights

    rows = []
    jobs = [(name, prompts, choices, reuse) for name, (prompts, choices) in workloads(args.records).items()]
    jobs.append(("judge-generate, prefix_cache='always'", *workloads(args.records)["judge-generate"], always))
    for name, prompts, choices, reuse in jobs:
        warm = None if choices is None else choices if isinstance(choices[0], str) else choices[:1]
        run(plain, prompts[:1], warm)  # warm-up
        with_scores, with_stats = run(reuse, prompts, choices)
        without_scores, without_stats = run(plain, prompts, choices)
        if choices is None:  # generation: count differing outputs instead of a log-prob difference
            diff = sum(a != b for a, b in zip(with_scores, without_scores))
            with_scores = without_scores = [[0.0]] * len(prompts)
        else:
            diff = max(abs(a - b) for ra, rb in zip(with_scores, without_scores) for a, b in zip(ra, rb))
        rows.append({
            "workload": name, "prompts": len(prompts),
            "choices_per_prompt": "generate 8" if choices is None else len(choices) if isinstance(choices[0], str) else len(choices[0]),
            "prompt_tokens_mean": round(sum(len(reuse.encode(p)) for p in prompts) / len(prompts), 1),
            "with_prefix_reuse": with_stats, "without": without_stats,
            "speedup": round(without_stats["seconds"] / max(with_stats["seconds"], 1e-9), 2),
            "token_ratio": round(without_stats["forward_tokens"] / max(with_stats["forward_tokens"], 1), 2),
            "max_abs_logprob_diff": diff,
            "same_argmax": all(max(range(len(a)), key=a.__getitem__) == max(range(len(b)), key=b.__getitem__)
                               for a, b in zip(with_scores, without_scores)),
        })

    meta = {"model": "embedded gemma-3-270m (float32, CPU)", "torch_threads": torch.get_num_threads(),
            "machine": platform.platform(), "processor": platform.processor(), "load_seconds": round(load_seconds, 1),
            "batch_size": args.batch_size}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "llm_prefix_cache.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    lines = [
        "# Scoring and generation with vs without shared-prefix KV reuse (embedded Gemma 3 270M)", "",
        f"`python benchmarks/bench_llm_prefix_cache.py --records {args.records} --batch-size {args.batch_size}"
        f"{f' --threads {args.threads}' if args.threads else ''}` — torch threads {meta['torch_threads']}, {meta['machine']}", "",
        "| workload | prompts × choices | mean prompt tokens | reuse: s / forward tokens | no reuse: s / forward tokens | speed-up | token ratio | max |Δ log-prob| (generate: # differing outputs) | same ranking |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        w, wo = r["with_prefix_reuse"], r["without"]
        lines.append(f"| {r['workload']} | {r['prompts']} × {r['choices_per_prompt']} | {r['prompt_tokens_mean']} | "
                     f"{w['seconds']} / {w['forward_tokens']} | {wo['seconds']} / {wo['forward_tokens']} | "
                     f"{r['speedup']}× | {r['token_ratio']}× | {r['max_abs_logprob_diff']:.2g} | {r['same_argmax']} |")
    (RESULTS / "llm_prefix_cache.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
