"""Seed 000 table 2 on a CPU: synthetic MedQA at epsilon = inf, 1024, 64, 3, then lexical and semantic
privacy of each synthetic set against the private records, end to end.

    python benchmarks/synthesis_sweep.py                       # tiny model, ~minutes on 2 cores
    python benchmarks/synthesis_sweep.py --model embedded --lora-r 8 --epochs 3   # Gemma (slow on CPU)

Pipeline per setting: MedQA sample (50 records; private text = patient profile, control code =
"Question: ... | Answer: ...") -> fine-tune (DP-SGD via opacus at the target epsilon, or none) ->
one synthetic record per control code -> ``textleak.leakage.evaluate_leakage`` (rule atomizer,
embedding judge, BM25 linking; ``alignment="none"``: synthetic records are not rewrites of one
original) -> lexical privacy (1 - ROUGE-L) and semantic privacy. Writes
``benchmarks/results/synthesis_sweep.{json,md}``.

The default model is a small GPT-2 trained from scratch over a byte-level tokenizer (no private
data in the vocabulary), because the embedded Gemma 3 270M takes minutes per DP step on this CPU
(see the results file for the measurement).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"
logger = logging.getLogger("synthesis_sweep")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(SHARED / "medqa" / "sampled_50.jsonl"))
    parser.add_argument("--model", default="tiny", help="'tiny' (GPT-2 from scratch, byte tokenizer) or a model spec")
    parser.add_argument("--epsilons", default="inf,1024,64,3")
    parser.add_argument("--epochs", type=float, default=12.0)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--lora-r", type=int, default=0, help="0: full fine-tuning (the tiny model needs it)")
    parser.add_argument("--max-length", type=int, default=384)
    parser.add_argument("--max-new-tokens", type=int, default=384)
    parser.add_argument("--hidden", type=int, default=96)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(RESULTS / "synthesis_sweep"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    torch.set_num_threads(args.threads)

    from textleak.data.medqa import read_medqa_jsonl
    from textleak.leakage import evaluate_leakage
    from textleak.synthesis.synthesizer import SyntheticData
    from textleak.synthesis.tiny import tiny_causal_lm

    all_records = list(read_medqa_jsonl(args.data))
    records = [r for r in all_records if r["text"].strip()]  # a one-sentence vignette has no profile
    logger.info("%d of %d MedQA records have a patient profile (the others are left out)", len(records), len(all_records))
    originals = [r["text"] for r in records]
    rows = []
    for eps_text in args.epsilons.split(","):
        epsilon = None if eps_text.strip() in ("inf", "none") else float(eps_text)
        if args.model == "tiny":
            model, tokenizer = tiny_causal_lm("gpt2", seed=args.seed, hidden=args.hidden, layers=args.layers,
                                              max_positions=max(args.max_length, 64) + args.max_new_tokens + 64)
        else:
            model, tokenizer = args.model, None
        synth = SyntheticData(model=model, tokenizer=tokenizer, epsilon=epsilon, epochs=args.epochs,
                              batch_size=args.batch_size, learning_rate=args.learning_rate, lora_r=args.lora_r or None,
                              max_length=args.max_length, max_new_tokens=args.max_new_tokens, seed=args.seed,
                              generation_batch_size=25)
        t0 = time.perf_counter()
        synth.fit(records)
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        synthetic = synth.generate(seed=args.seed)
        t_gen = time.perf_counter() - t0
        report = synth.privacy_report()
        texts = synthetic["text"]
        failed = sum(t is None for t in texts)
        t0 = time.perf_counter()
        leak = evaluate_leakage(originals, texts, alignment="none", bootstrap=1000, seed=args.seed)
        t_eval = time.perf_counter() - t0
        losses = [x for x in synth.training_log if x["loss"] == x["loss"]]
        row = {
            "epsilon": "inf" if epsilon is None else epsilon,
            "accountant_epsilon": None if math.isinf(report["epsilon"]) else report["epsilon"],
            "delta": report.get("delta"), "noise_multiplier": report.get("noise_multiplier"),
            "steps": report["steps"], "sample_rate": report.get("sample_rate"),
            "first_loss": losses[0]["loss"], "final_loss": losses[-1]["loss"],
            "lexical_privacy": leak.lexical_privacy, "semantic_privacy": leak.semantic_privacy,
            "ci95": leak.ci95, "failed_generations": failed, "unlinked": leak.n_unlinked,
            "fit_s": round(t_fit, 1), "generate_s": round(t_gen, 1), "evaluate_s": round(t_eval, 1),
            "example": (texts[0] or "")[:300],
        }
        logger.info("epsilon %s: %s", row["epsilon"], {k: v for k, v in row.items() if k != "example"})
        rows.append(row)
    # reference rows: the private records themselves (no sanitization) through the same pipeline
    ident = evaluate_leakage(originals, originals, alignment="none", bootstrap=1000, seed=args.seed)
    result = {"data": args.data, "records": len(records), "records_without_profile": len(all_records) - len(records), "model": args.model, "settings": vars(args), "rows": rows,
              "no_sanitization": {"lexical_privacy": ident.lexical_privacy, "semantic_privacy": ident.semantic_privacy},
              "judge": leak.judge, "atomizer": leak.atomizer, "linker": leak.linker}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    lines = ["| epsilon (target) | accountant epsilon | noise multiplier | steps | final loss | lexical privacy | semantic privacy | failed |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        acc = "-" if r["accountant_epsilon"] is None else f"{r['accountant_epsilon']:.2f}"
        nm = "-" if r["noise_multiplier"] is None else f"{r['noise_multiplier']:.3f}"
        lines.append(f"| {r['epsilon']} | {acc} | {nm} | {r['steps']} | {r['final_loss']:.2f} | "
                     f"{r['lexical_privacy']:.3f} | {r['semantic_privacy']:.3f} | {r['failed_generations']} |")
    lines.append(f"| (no sanitization) | | | | | {ident.lexical_privacy:.3f} | {ident.semantic_privacy:.3f} | |")
    print("\n".join(lines))
    logger.info("wrote %s", out.with_suffix(".json"))


if __name__ == "__main__":
    main()
