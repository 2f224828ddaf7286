"""DP-SGD step speed of Gemma 3 270M + LoRA on a CPU, before and after, side by side in one run.

Every variant is a real DP run through ``textleak.synthesis.training.train_causal_lm`` (opacus,
Poisson sampling at q = batch / N, RDP accountant, per-record clipping, noise calibrated to
epsilon 8) on the seed 000 table 2 corpus (MedQA sample profiles + the bundled demo set, the
paper's "Question: ... | Answer: ..." control code). The same seed gives every variant the same
Poisson batches. Per variant: one warm-up step, then ``--steps`` timed steps; the table gives the
median wall time and CPU time (this process, all threads) per step, and steps per second.

Variants, each adding one change to the one before:

1. ``before``: float32, full logits at every position, LoRA r=8 on q/v of all 18 blocks,
   max_length 256, 2 torch threads (the configuration measured at ~140 s per step);
2. ``1 thread``: the same with one torch thread (on a shared machine, OpenMP threads that wait at
   every barrier for a descheduled sibling cost more than they bring);
3. ``fused loss``: logits only at labelled positions, in chunks (textleak.synthesis.lm_loss);
4. ``bf16``: base model in bfloat16 (AMX / AVX512-BF16), adapters float32;
5. ``top 6 blocks``: LoRA only in the top 6 blocks (the backward pass stops there);
6. ``no DP`` (reference): variant 5 without opacus (hooks, clipping, noise), same steps.

    python benchmarks/dp_step_speed.py                  # writes benchmarks/results/dp_step_speed.{json,md}
    python benchmarks/dp_step_speed.py --variants before fused_loss --steps 3

Variants are saved as they finish; a rerun skips finished ones (``--force`` redoes them). Report the
machine load (``uptime``) with the numbers: on a shared machine wall times move with other jobs,
CPU times much less.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import statistics
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"
logger = logging.getLogger("dp_step_speed")

BASE = dict(dtype="float32", loss_impl="full", lora_layers=None, max_length=256, threads=2, dp=True)
VARIANTS = {  # name: (label, settings on top of the previous variant)
    "before": ("before: fp32, full logits, LoRA q/v x 18 blocks, 2 threads", {}),
    "one_thread": ("+ 1 torch thread", {"threads": 1}),
    "fused_loss": ("+ fused loss (labelled positions only, chunked)", {"loss_impl": "fused"}),
    "bf16": ("+ bf16 base model (fp32 adapters)", {"dtype": "bfloat16"}),
    "top6": ("+ LoRA only in the top 6 blocks", {"lora_layers": list(range(-6, 0))}),
    "no_dp": ("(reference) the same without DP-SGD", {"dp": False}),
}


def settings_for(name: str) -> dict:
    out = dict(BASE)
    for key, (_, extra) in VARIANTS.items():
        out.update(extra)
        if key == name:
            return out
    raise KeyError(name)


def corpus(args) -> list[dict]:
    from textleak.data.medqa import read_medqa_jsonl

    records = []
    for path in args.data:
        records += [r for r in read_medqa_jsonl(path) if r["text"].strip()]
    return records


def run_variant(name: str, records: list[dict], args) -> dict:
    from textleak.synthesis.templates import resolve_template
    from textleak.synthesis.dp import DPConfig
    from textleak.synthesis.training import TrainingConfig, apply_lora, encode_example, load_causal_lm, train_causal_lm

    s = settings_for(name)
    torch.set_num_threads(s["threads"])
    model, tok = load_causal_lm("embedded", dtype=s["dtype"])
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(args.seed)
        model = apply_lora(model, r=8, layers=s["lora_layers"])
    code = resolve_template("paper")
    examples = [encode_example(tok, code.render(r, i), r["text"], s["max_length"]) for i, r in enumerate(records)]
    stamps: list[tuple[float, float]] = []

    def on_step(step, _model):
        stamps.append((time.perf_counter(), time.process_time()))
        return None

    config = TrainingConfig(max_steps=args.steps + 1, batch_size=args.batch_size, learning_rate=3e-4,
                            max_length=s["max_length"], seed=args.seed, loss_impl=s["loss_impl"])
    dp = DPConfig(epsilon=8.0) if s["dp"] else None
    start = (time.perf_counter(), time.process_time())
    result = train_causal_lm(model, tok, examples, config, dp=dp, step_callback=on_step)
    walls = [b[0] - a[0] for a, b in zip(stamps, stamps[1:])]
    cpus = [b[1] - a[1] for a, b in zip(stamps, stamps[1:])]
    sizes = [log["batch_size"] for log in result.step_logs][1:]
    return {
        "variant": name, "label": VARIANTS[name][0], "settings": s, "loss_impl": result.loss_impl,
        "timed_steps": len(walls), "batch_sizes": sizes,
        "wall_s_per_step": statistics.median(walls), "cpu_s_per_step": statistics.median(cpus),
        "wall_s": walls, "cpu_s": cpus, "first_step_wall_s": stamps[0][0] - start[0],
        "steps_per_s": 1.0 / statistics.median(walls), "losses": result.losses,
        "epsilon": None if result.privacy is None else result.privacy.epsilon,
        "load_before": os.getloadavg(),
    }


def render(rows: list[dict], args) -> str:
    lines = [
        "# DP-SGD step speed: Gemma 3 270M + LoRA r=8 on 2 shared CPU cores",
        "",
        f"Command: `python benchmarks/dp_step_speed.py --steps {args.steps} --batch-size {args.batch_size}` "
        f"({platform.machine()}, {os.cpu_count()} CPUs, shared with other jobs).",
        "",
        f"Each row is a real DP run (opacus, Poisson q = {args.batch_size}/N, epsilon 8, RDP) over the seed 000 "
        "table 2 corpus, the same Poisson batches in every row; median over the timed steps after one warm-up "
        "step. CPU s = CPU time of this process (all its threads) per step: it moves much less with the machine's "
        "load than wall time. Each row adds one change to the row above (the last row is a reference).",
        "",
        "| variant | loss path | wall s/step | CPU s/step | steps/s | x faster (wall) | load avg at start |",
        "|---|---|---|---|---|---|---|",
    ]
    base = next((r for r in rows if r["variant"] == "before"), None)
    for r in rows:
        speedup = f"{base['wall_s_per_step'] / r['wall_s_per_step']:.1f}x" if base else "-"
        lines.append(f"| {r['label']} | {r['loss_impl']} | {r['wall_s_per_step']:.1f} | {r['cpu_s_per_step']:.1f} | "
                     f"{r['steps_per_s']:.3f} | {speedup} | {r['load_before'][0]:.1f} |")
    lines += ["", "Batch sizes of the timed steps (Poisson): " +
              "; ".join(f"{r['variant']}: {r['batch_sizes']}" for r in rows)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="*", default=[str(SHARED / "medqa" / "sampled_50.jsonl"),
                                                      str(REPO / "textleak" / "data" / "demo_medqa.jsonl")])
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--steps", type=int, default=4, help="timed steps per variant (after one warm-up step)")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="redo variants already in the results file")
    parser.add_argument("--out", default=str(RESULTS / "dp_step_speed"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    path = out.with_suffix(".json")
    saved = json.loads(path.read_text()) if path.exists() else {"rows": []}
    key = {"steps": args.steps, "batch_size": args.batch_size, "seed": args.seed, "data": args.data}
    rows = {r["variant"]: r for r in saved["rows"]} if saved.get("key") == key else {}
    records = corpus(args)
    logger.info("%d records", len(records))
    for name in args.variants:
        if name in rows and not args.force:
            logger.info("%s: already measured", name)
            continue
        logger.info("%s: %s", name, settings_for(name))
        rows[name] = run_variant(name, records, args)
        logger.info("%s: %.1f s/step wall, %.1f s CPU", name, rows[name]["wall_s_per_step"], rows[name]["cpu_s_per_step"])
        ordered = [rows[k] for k in VARIANTS if k in rows]
        path.write_text(json.dumps({"key": key, "rows": ordered}, indent=1))
        out.with_suffix(".md").write_text(render(ordered, args), encoding="utf-8")
    print(render([rows[k] for k in VARIANTS if k in rows], args))


if __name__ == "__main__":
    main()
