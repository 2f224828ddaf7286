"""White-box canary scoring of the audit with Gemma 3 270M + LoRA on a CPU: full logits vs the fused
loss (logits only at the suffix positions), side by side in one run, with the scores compared.

The canaries, prompts and sizes are those of the MedQA audit rows (docs/synthesis.md): the first 12
MedQA records, the paper's control code, 8 prefix and 8 suffix words from the 500 rarest words, LoRA
r=16 on all projections of the top 6 blocks (adapters given small seeded random weights so the
adapter-on and adapter-off passes differ), float32, batches of 8. Per variant: one warm-up batch,
then the timed call over ``--canaries`` canaries; wall and CPU seconds of this process. Report
``uptime`` with the numbers: wall times move with other jobs on a shared machine, CPU times less.

    OMP_NUM_THREADS=1 python benchmarks/audit_scoring_speed.py --canaries 32 --threads 1
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from pathlib import Path

import numpy as np
import torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/work/shared/data/medqa/sampled_50.jsonl")
    parser.add_argument("--canaries", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="benchmarks/results/audit_scoring_speed.json")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from textleak.commands.synthesize import read_records
    from textleak.synthesis.audit import AuditConfig, make_canaries, target_loss_scores
    from textleak.synthesis.templates import resolve_template
    from textleak.synthesis.training import apply_lora, load_causal_lm

    records = read_records(args.data, "medqa")[:12]
    canaries = make_canaries(records, AuditConfig(canaries=args.canaries, prefix_words=8, suffix_words=8,
                                                  suffix_pool_size=500))
    code = resolve_template("paper")
    prompts = [code.render(records[c.source_index], c.source_index) for c in canaries]
    model, tok = load_causal_lm("embedded", dtype="float32")
    model = apply_lora(model, r=16, layers=[-6, -5, -4, -3, -2, -1],
                       target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.01)
    rows, scores = [], {}
    for impl in ("full", "auto"):
        target_loss_scores(model, tok, prompts[:8], canaries[:8], batch_size=8, loss_impl=impl)  # warm-up
        wall, cpu = time.perf_counter(), time.process_time()
        scores[impl] = target_loss_scores(model, tok, prompts, canaries, batch_size=8, loss_impl=impl)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows.append({"variant": "full logits" if impl == "full" else "fused (suffix positions only)",
                     "canaries": len(canaries), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                     "wall_s_per_canary": round(wall / len(canaries), 3)})
        logging.info("%s", rows[-1])
    diff = {k: float(np.abs(scores["full"][k] - scores["auto"][k]).max()) for k in scores["full"]}
    out = {"rows": rows, "max_abs_score_difference": diff, "threads": args.threads,
           "load_average": os.getloadavg(), "torch": torch.__version__}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2), encoding="utf-8")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
