"""Seed 000's table 1 on the shared samples: one row per record-level sanitizer with lexical and
semantic privacy, task utility and coherence.

    python benchmarks/utility_table.py                       # MedQA sampled_50 + PUPA_TNB (first 50)
    python benchmarks/utility_table.py --llm hf:Qwen/Qwen2.5-7B-Instruct --judge llm --judge-scoring generate

Privacy comes from :func:`textleak.leakage.evaluate_leakage` (rules atomizer, BM25 linking, k=3 random
claims, the judge named by ``--judge``); utility from :func:`textleak.utility.evaluate_utility`
(MedQA accuracy from the sanitized profile with log-prob letter scoring; the WildChat task-category
chi-square normalised against random categories; coherence 1-5). Every model used is named in the
output. LLM calls and sanitized texts are cached, so a rerun only computes what is new.

Writes ``benchmarks/results/table1.md`` and ``table1.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"
DEFAULT_SANITIZERS = ["identity", "remove_all", "presidio", "llm_anonymizer", "sanitize_paraphrase", "span_abstraction"]
LLM_SANITIZERS = {"llm_anonymizer", "sanitize_paraphrase", "span_abstraction"}

logger = logging.getLogger("utility_table")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--medqa", default=str(SHARED / "medqa" / "sampled_50.jsonl"))
    p.add_argument("--pupa", default=str(SHARED / "pupa" / "PUPA_TNB.csv"))
    p.add_argument("--limit-medqa", type=int, default=50)
    p.add_argument("--limit-pupa", type=int, default=50, help="first N PUPA queries (default 50 of 237)")
    p.add_argument("--sanitizers", default=",".join(DEFAULT_SANITIZERS))
    p.add_argument("--limit-llm-sanitizers", type=int, default=None,
                   help="run LLM-based sanitizers on the first N records only (their rows say so)")
    p.add_argument("--llm", default="embedded", help="model for utility (and LLM sanitizers/judge): embedded, hf:..., openai:...")
    p.add_argument("--sanitizer-llm", default=None, help="model for the LLM sanitizers (default: --llm)")
    p.add_argument("--sanitizer-max-new-tokens", type=int, default=None,
                   help="cap the LLM sanitizers' generation length (their defaults: 1024; 128 for span abstraction)")
    p.add_argument("--judge", default="embedding", help="privacy judge: embedding (offline), lexical or llm")
    p.add_argument("--judge-scoring", default="logprob", choices=["logprob", "generate"],
                   help="category/coherence judgements: logprob (base models) or generate (instruction models, seed 000)")
    p.add_argument("--coherence-max-chars", type=int, default=3000)
    p.add_argument("--medqa-demos", default="default", choices=["default", "none"],
                   help="the shipped 3-shot demos (seed 000 layout) or zero-shot (shorter prompts on a slow CPU)")
    p.add_argument("--datasets", default="medqa,wildchat")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(RESULTS / "table1"))
    return p.parse_args(argv)


def load_records(name: str, path: str, limit: int) -> list[dict]:
    from textleak.data import load

    if name == "medqa":
        ds = load("medqa", data_files={"test": path}, split="test")
    else:
        ds = load("wildchat", data_files={"train": path}, split="train")
    return ds.select(range(min(limit, ds.num_rows))).to_list()


def sanitize(name: str, texts: list[str], args) -> tuple[list[str | None], float]:
    from textleak import registry
    from textleak.commands.evaluate import apply_sanitizer

    t = time.perf_counter()
    if name in LLM_SANITIZERS:
        # configured with the benchmark's model; apply_sanitizer creates sanitizers with defaults
        options = {"llm": args.sanitizer_llm or args.llm}
        if args.sanitizer_max_new_tokens:
            options["max_new_tokens"] = args.sanitizer_max_new_tokens
        if name in ("llm_anonymizer", "sanitize_paraphrase", "span_abstraction"):
            options["domain"] = "medqa" if args.current_dataset == "medqa" else "wildchat"
        sanitizer = registry.sanitizers.create(name, **options)
        result = sanitizer(texts, list(range(len(texts))))
        out = [t_ if s == "ok" else None for t_, s in zip(result[sanitizer.output_column], result[sanitizer.status_column])]
    else:
        out = apply_sanitizer(name, texts, seed=args.seed, progress=False)
    return out, time.perf_counter() - t


def fmt(x, digits=2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    from textleak import registry
    from textleak.leakage import evaluate_leakage
    from textleak.llm import load_llm
    from textleak.utility import evaluate_utility, medqa_remove_all_baseline

    lm = load_llm(args.llm)
    wanted = [s.strip() for s in args.sanitizers.split(",") if s.strip()]
    available = [s for s in wanted if s in registry.sanitizers]
    for s in set(wanted) - set(available):
        logger.warning("sanitizer %s is not registered; skipped", s)
    rows, models = [], {"utility_llm": lm.describe()}
    for dataset in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        path, limit = (args.medqa, args.limit_medqa) if dataset == "medqa" else (args.pupa, args.limit_pupa)
        args.current_dataset = dataset
        if not Path(path).exists():
            logger.warning("%s not found; %s skipped", path, dataset)
            continue
        originals = load_records(dataset, path, limit)
        texts = [r["text"] for r in originals]
        ids = [r["id"] for r in originals]
        if dataset == "medqa":
            t = time.perf_counter()
            base = medqa_remove_all_baseline(lm, [r["question"] for r in originals], [r["options"] for r in originals],
                                             [r["answer_idx"] for r in originals], seed=args.seed,
                                             demos=None if args.medqa_demos == "none" else "default")
            logger.info("medqa remove-all baseline accuracy %.3f (%.0fs)", base["accuracy"], time.perf_counter() - t)
        for name in available:
            n = len(originals)
            if name in LLM_SANITIZERS and args.limit_llm_sanitizers:
                n = min(n, args.limit_llm_sanitizers)
            sub_orig, sub_texts, sub_ids = originals[:n], texts[:n], ids[:n]
            logger.info("%s / %s: sanitizing %d records", dataset, name, n)
            try:
                sanitized, t_san = sanitize(name, sub_texts, args)
            except Exception as e:  # noqa: BLE001 - a broken sanitizer is a row with its error, not a crash
                logger.error("%s failed: %s", name, e)
                rows.append({"dataset": dataset, "sanitizer": name, "n": n, "error": f"{type(e).__name__}: {e}"})
                continue
            failed = sum(t is None for t in sanitized)
            t = time.perf_counter()
            # fail toward leakage: a record the sanitizer failed on is released as the original text
            # (dropping it would make a failing sanitizer look more private); its utility counts as wrong
            released = [o if s is None else s for o, s in zip(sub_texts, sanitized)]
            leak = evaluate_leakage(sub_texts, released, original_ids=sub_ids, alignment="index", judge=args.judge,
                                    llm=lm if args.judge == "llm" else None, seed=args.seed,
                                    empty_originals="skip", bootstrap=0)
            t_priv = time.perf_counter() - t
            t = time.perf_counter()
            util = evaluate_utility(dataset, sub_orig, sanitized, lm, judge_scoring=args.judge_scoring,
                                    coherence_max_chars=args.coherence_max_chars, seed=args.seed,
                                    medqa_demos=None if args.medqa_demos == "none" else "default")
            t_util = time.perf_counter() - t
            row = {
                "dataset": dataset, "sanitizer": name, "n": n, "failed": failed,
                "lexical_privacy": leak.lexical_privacy, "semantic_privacy": leak.semantic_privacy,
                "linkage_rate": leak.linkage_rate, "task_metric": util["task_metric"], "task_utility": util["task_utility"],
                "coherence": util["coherence"],
                "coherence_unparsed": util.get("coherence_detail", {}).get("unparsed"),
                "unparsed_answers": util.get("medqa", {}).get("unparsed"),
                "unparsed_categories": util.get("unparsed_categories"),
                "original_top_category_share": util.get("categories", {}).get("original_top_share"),
                "seconds": {"sanitize": round(t_san, 1), "privacy": round(t_priv, 1), "utility": round(t_util, 1)},
            }
            if dataset == "medqa":
                row["remove_all_baseline"] = base["accuracy"]
            models.setdefault("privacy_judge", leak.judge)
            models.setdefault("atomizer", leak.atomizer)
            models.setdefault("linker", leak.linker)
            rows.append(row)
            logger.info("%s / %s: %s", dataset, name, {k: row[k] for k in ("lexical_privacy", "semantic_privacy", "task_utility", "coherence")})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"command": "python benchmarks/" + Path(__file__).name + " " + " ".join(sys.argv[1:] if argv is None else argv),
            "models": models, "settings": vars(args)}
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2, default=str), encoding="utf-8")
    out.with_suffix(".md").write_text(render_markdown(rows, meta), encoding="utf-8")
    print(render_markdown(rows, meta))
    return 0


def render_markdown(rows: list[dict], meta: dict) -> str:
    lines = ["# Table 1 (seed 000 shape): privacy and utility per record-level sanitizer", "",
             f"Command: `{meta['command']}`", ""]
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        metric = next((r.get("task_metric") for r in rows if r["dataset"] == dataset and r.get("task_metric")), "")
        lines += [f"## {dataset} ({metric})", "",
                  "| sanitizer | n | lexical privacy (1-ROUGE-L) | semantic privacy | linkage rate | task utility | coherence 1-5 | unparsed (answers/categories, coherence) | failed |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["dataset"] != dataset:
                continue
            if "error" in r:
                lines.append(f"| {r['sanitizer']} | {r['n']} | error: {r['error'][:80]} | | | | | | |")
                continue
            unparsed_task = r.get("unparsed_answers") if dataset == "medqa" else r.get("unparsed_categories")
            lines.append(f"| {r['sanitizer']} | {r['n']} | {fmt(r['lexical_privacy'])} | {fmt(r['semantic_privacy'])} | "
                         f"{fmt(r['linkage_rate'])} | {fmt(r['task_utility'])} | {fmt(r['coherence'])} | "
                         f"{unparsed_task}, {r.get('coherence_unparsed')} | {r['failed']} |")
        share = next((r.get("original_top_category_share") for r in rows if r["dataset"] == dataset
                      and r.get("original_top_category_share") is not None), None)
        lines += ["", "`failed`: records the sanitizer failed on; they count as released unchanged for privacy "
                      "(fail toward leakage) and as wrong or missing for utility."]
        if share is not None:
            lines += ["", f"Share of the original conversations in their most frequent predicted category: {fmt(share)} "
                          "(near 1 means the classifier ignores the text and the category utility cannot separate sanitizers)."]
        base = next((r.get("remove_all_baseline") for r in rows if r["dataset"] == dataset and r.get("remove_all_baseline") is not None), None)
        if base is not None:
            lines += ["", f"Remove-all-information baseline accuracy (question and options only): {fmt(base)}."]
        lines.append("")
    m = meta["models"]
    lines += ["## Models and settings", "",
              f"- utility model (MedQA answers, task categories, coherence): `{m.get('utility_llm')}`",
              f"- privacy judge: `{m.get('privacy_judge')}`",
              f"- atomizer: `{m.get('atomizer')}`; linker: `{m.get('linker')}`",
              f"- judge scoring for categories/coherence: {meta['settings']['judge_scoring']}; "
              f"MedQA demos: {meta['settings']['medqa_demos']}",
              ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
