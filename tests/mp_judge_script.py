"""Run by tests/test_distributed.py, alone or under ``accelerate launch --num_processes 2 --cpu``:
the leakage pipeline with an LLM judge (a ScriptedLM, or the llama.cpp backend) on small synthetic
records; rank 0 writes the per-claim ratings and the privacy figure as JSON; every rank writes how
many prompts its judge answered."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from textleak.distributed import world
from textleak.judges.llm import LLMJudge
from textleak.leakage import evaluate_leakage
from textleak.llm import ScriptedLM, load_llm


def scripted_answer(prompt, i: int, seed: int) -> str:
    """A rating per claim from a hash of the claim, the seed and the sample index."""
    text = prompt[-1]["content"]
    claims = re.findall(r"- Claim \d+: (.*)", text)
    lines = ["**Output**:"]
    for k, c in enumerate(claims, 1):
        r = int(hashlib.sha256(f"{c}|{seed}|{i}".encode()).hexdigest(), 16) % 3 + 1
        lines.append(f"- Claim {k} Similarity Rating: {r}")
    return "\n".join(lines)


def main() -> None:
    out, backend = Path(sys.argv[1]), sys.argv[2]
    rank, size = world()
    originals = [f"Patient {i} is a {20 + i}-year-old with fever of 38.{i} C. The patient takes drug {i % 5}. "
                 f"Blood pressure was {110 + i}/70. The patient lives in town {i % 7}." for i in range(12)]
    sanitized = [t.replace("fever", "a temperature").replace("drug", "medication") for t in originals]
    if backend == "scripted":
        lm = ScriptedLM(scripted_answer, name="mp-script")
        judge = LLMJudge(lm, mode="sample", n=3, claims_per_prompt=2)
    else:  # llama.cpp in process, log-prob judge (slower: a manual check, not in the test)
        lm = load_llm("llamacpp:embedded", n_ctx=4096, n_threads=1, n_threads_batch=1)
        judge = LLMJudge(lm, mode="logprob", n=3)
    report = evaluate_leakage(originals, sanitized, judge=judge, k=1, bootstrap=0, use_cache=False,
                              judge_batch_records=5)
    calls = len(lm.calls) if backend == "scripted" else lm.stats["decode_calls"]
    (out / f"rank{rank}.json").write_text(json.dumps({"rank": rank, "size": size, "work": calls}))
    if rank == 0:
        records = [[(c.get("rating"), c.get("score"), c.get("status")) for c in r.claims if not c.get("aux")]
                   for r in report.records]
        (out / "result.json").write_text(json.dumps({"privacy": report.semantic_privacy, "records": records}))


if __name__ == "__main__":
    main()
