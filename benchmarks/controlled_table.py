"""Seed 004 table 1 at CPU scale: entity leakage of six ways to make synthetic text from private records.

Rows: baseline ICL (three texts, no codes), ICL (codes), ICL + blocking (the contexts' private values
banned), prefix tuning, prefix tuning + masking (contrastive + KL, paper weights 1/1/1), and a DP-SGD
baseline (LoRA fine-tuning at epsilon 8 through ``textleak.synthesis.SyntheticData``, conditioned on
the same entity control codes, generating from fictional ones). Columns: PIPP, ELP (percent, as the
paper prints them), ROUGE-2, ROUGE-L, plus failures and wall time.

ICL rows use the ICL setting (each generation against its own three contexts); the prefix and DP
rows the fine-tuning setting (every training entity; ROUGE max over all training texts).

Data: the bundled fictional TAB fixture (train split, 11 documents, DIRECT identifiers). Model: the
embedded Gemma 3 270M (a base model). Scale: a handful of generations per row, short outputs and a
few training epochs, so the numbers show the shape of the table and the code paths working end to
end, not the paper's values (1,014 documents, Sheared-LLaMA 1.3B, 400-token outputs).

    python benchmarks/controlled_table.py                      # all rows, CPU scale
    python benchmarks/controlled_table.py --rows icl icl_blocking   # some rows (saved per row; --render-only assembles)
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

from textleak.controlled.fictional import FictionalCodeGenerator
from textleak.controlled.generator import ControlledGenerator
from textleak.data.tab import tab_records
from textleak.metrics.entity_leakage import EntityLeakage

logger = logging.getLogger("controlled_table")
RESULTS = Path(__file__).resolve().parent / "results"
ROWS = ("baseline_icl", "icl", "icl_blocking", "prefix", "prefix_masking", "dp_sgd")
LABELS = {
    "baseline_icl": "Baseline (ICL, no codes)",
    "icl": "ICL",
    "icl_blocking": "ICL w/ privacy enhancement (blocking)",
    "prefix": "Prefix tuning",
    "prefix_masking": "Prefix tuning w/ masking",
    "dp_sgd": "DP-SGD (LoRA, ε=8)",
}
PAPER = {  # seed 004 table 1 (TAB, Sheared-LLaMA 1.3B): PIPP %, ELP %, ROUGE-2, ROUGE-L
    "baseline_icl": (50.0, 30.89, 0.3898, 0.4303),
    "dp_sgd": (1.56, 0.73, 0.0635, 0.1328),
    "icl": (3.25, 0.36, 0.2978, 0.3073),
    "icl_blocking": (0.00, 0.00, 0.3361, 0.3645),
    "prefix": (3.94, 0.35, 0.017, 0.133),
    "prefix_masking": (2.56, 0.39, 0.0111, 0.0975),
}


def run_row(row: str, train: list[dict], args) -> dict:
    metric = EntityLeakage()
    common = dict(model="embedded", max_new_tokens=args.max_new_tokens, temperature=0.7, top_p=0.9, seed=args.seed)
    if row in ("baseline_icl", "icl", "icl_blocking"):
        gen = ControlledGenerator(mode="baseline_icl" if row == "baseline_icl" else "icl",
                                  block_private_tokens=row == "icl_blocking", **common)
        syn = gen.fit(train).generate(num_records=args.records, seed=args.seed)
        ok = [i for i, t in enumerate(syn["text"]) if t is not None]
        scores = metric.compute(predictions=[syn["text"][i] for i in ok], references=[syn["references"][i] for i in ok],
                                private_entities=[syn["private_entities"][i] for i in ok])
        texts, failed = syn["text"], args.records - len(ok)
    elif row in ("prefix", "prefix_masking"):
        gen = ControlledGenerator(mode="prefix", masking=row == "prefix_masking", epochs=args.epochs,
                                  learning_rate=args.prefix_lr, batch_size=2, gradient_accumulation_steps=1,
                                  max_length=args.max_length, **common)
        syn = gen.fit(train).generate(num_records=args.records, seed=args.seed)
        scores = metric.compute(predictions=syn["text"], references=gen.training_texts(),
                                private_entities=gen.training_entities())
        texts, failed = syn["text"], 0
        scores["training"] = gen.training_result.history
    else:
        scores, texts, failed = run_dp(train, args, metric)
    return {"row": row, **scores, "failed": failed, "samples": [t for t in texts[:2]]}


def run_dp(train: list[dict], args, metric):
    from textleak.synthesis.synthesizer import SyntheticData

    prep = ControlledGenerator()
    records = prep.prepare(train)
    data = [{"text": r.text, "entity_code": r.code.render()} for r in records]
    synth = SyntheticData(model="embedded", control_code="{entity_code}", epsilon=8.0, delta=1e-5, epochs=args.epochs,
                          lora_r=8, batch_size=4, max_length=args.max_length, max_new_tokens=args.max_new_tokens,
                          temperature=0.7, top_p=0.9, top_k=0, seed=args.seed)
    synth.fit(data)
    fictional = FictionalCodeGenerator(seed=args.seed)
    entities = [v for r in records for v in r.values]
    codes = [fictional.generate(records[i % len(records)].code.types, index=i, avoid=entities)
             for i in range(args.records)]
    # the control-code template renders values on one line, so the fictional codes are rendered the same way
    prompts = [" ".join(c.render().split()) + "\n" for c in codes]
    syn = synth.generate(control_codes=prompts, seed=args.seed)
    ok = [t for t in syn["text"] if t is not None]
    scores = metric.compute(predictions=ok, references=[r.text for r in records], private_entities=entities,
                            setting="fine_tuning")
    scores["privacy"] = synth.privacy_report()
    return scores, syn["text"], len(syn["text"]) - len(ok)


def render(results: list[dict], args) -> str:
    lines = [
        "# Seed 004 table 1 at CPU scale (fictional TAB fixture, embedded Gemma 3 270M)",
        "",
        f"Command: `python benchmarks/controlled_table.py --records {args.records} --max-new-tokens {args.max_new_tokens} "
        f"--epochs {args.epochs} --prefix-lr {args.prefix_lr} --max-length {args.max_length} --seed {args.seed}"
        f"{' --tag ' + args.tag if args.tag else ''}` (rows are saved one by one; `--render-only` assembles them)",
        "",
        f"{len(train_ids(args))} training documents (DIRECT identifiers), {args.records} generations per row, "
        f"T=0.7, top-p 0.9, at most {args.max_new_tokens} new tokens. ICL rows: ICL setting (each generation vs its "
        "three contexts); prefix and DP rows: fine-tuning setting (vs all training entities, ROUGE max over training texts). "
        "PIPP/ELP in percent. Paper values (Sheared-LLaMA 1.3B, 1,014 TAB documents) for the shape only.",
        "",
        "| Method | PIPP (%) | ELP (%) | ROUGE-2 | ROUGE-L | failed | time (s) | paper PIPP / ELP / R-2 / R-L |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        elp = "n/a" if r["elp"] is None else f"{100 * r['elp']:.2f}"
        p = PAPER[r["row"]]
        lines.append(
            f"| {LABELS[r['row']]} | {100 * r['pipp']:.2f} | {elp} | {r['rouge2']:.4f} | {r['rougeL']:.4f} | "
            f"{r['failed']} | {r['seconds']:.0f} | {p[0]} / {p[1]} / {p[2]} / {p[3]} |"
        )
    dp = next((r for r in results if r["row"] == "dp_sgd"), None)
    if dp is not None and dp.get("privacy"):
        pr = dp["privacy"]
        lines += ["", f"DP-SGD: accountant epsilon {pr.get('epsilon')}, delta {pr.get('delta')}, "
                      f"noise multiplier {pr.get('noise_multiplier')}, steps {pr.get('steps')}."]
    lines += ["", "Released-code variants (ICL: `\\b` matching, no de-duplication; fine-tuning: distinct leaked / #generations):", ""]
    for r in results:
        variant = r.get("elp_released", r.get("elp_unique_over_predictions"))
        lines.append(f"- {LABELS[r['row']]}: {'n/a' if variant is None else f'{100 * variant:.2f}'} %")
    return "\n".join(lines) + "\n"


def train_ids(args) -> list[str]:
    return [r["id"] for r in tab_records(split="train")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=4, help="generations per row")
    parser.add_argument("--max-new-tokens", type=int, default=40)
    parser.add_argument("--epochs", type=int, default=2, help="prefix and DP training epochs (paper: 3)")
    parser.add_argument("--prefix-lr", type=float, default=1e-3, help="5e-5 in the paper (1,014 documents); higher at CPU scale")
    parser.add_argument("--max-length", type=int, default=192, help="training tokens per record (fixture records are <= 146 + code)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=ROWS,
                        help="rows to compute now (each is saved on its own, so rows can run in separate processes)")
    parser.add_argument("--render-only", action="store_true", help="only assemble the table from saved rows")
    parser.add_argument("--tag", default="", help="suffix of the result files, to keep a second configuration apart")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    train = tab_records(split="train")
    suffix = f"_{args.tag}" if args.tag else ""
    row_dir = RESULTS / f"controlled_table_rows{suffix}"
    row_dir.mkdir(parents=True, exist_ok=True)
    key = {k: v for k, v in vars(args).items() if k not in ("rows", "render_only", "tag")}
    for row in [] if args.render_only else args.rows:
        path = row_dir / f"{row}.json"
        if path.exists() and json.loads(path.read_text()).get("args") == key:
            logger.info("%s: already done", row)
            continue
        start = time.perf_counter()
        result = run_row(row, train, args)
        result["seconds"] = time.perf_counter() - start
        result["args"] = key
        path.write_text(json.dumps(result, indent=1, default=str, ensure_ascii=False))
        logger.info("%s: pipp %.3f elp %s in %.0f s", row, result["pipp"], result["elp"], result["seconds"])
    results = []
    for row in ROWS:
        path = row_dir / f"{row}.json"
        if path.exists():
            saved = json.loads(path.read_text())
            if saved.get("args") == key:
                results.append(saved)
    (RESULTS / f"controlled_table{suffix}.json").write_text(json.dumps(results, indent=1, default=str, ensure_ascii=False))
    (RESULTS / f"controlled_table{suffix}.md").write_text(render(results, args), encoding="utf-8")
    print(render(results, args))


if __name__ == "__main__":
    main()
