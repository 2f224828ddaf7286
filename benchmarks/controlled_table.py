"""Seed 004 table 1 at CPU scale: entity leakage of six ways to make synthetic text from private
records, with at least 50 generations per row and bootstrap intervals.

Rows: baseline ICL (three texts, no codes), ICL (codes), ICL + blocking (the contexts' private values
banned), prefix tuning, prefix tuning + masking (contrastive + KL, paper weights 1/1/1), and a DP-SGD
baseline (LoRA fine-tuning at epsilon 8 through ``textleak.synthesis.SyntheticData``, conditioned on
the same entity control codes, generating from fictional ones). Columns: PIPP, ELP (percent, as the
paper prints them) and ROUGE-2/ROUGE-L, each with a 95% bootstrap interval over the generations.

ICL rows use the ICL setting (each generation against the private values of its own three
contexts; ROUGE best of the three contexts); the prefix and DP rows the fine-tuning setting (every
training entity; ROUGE max over all training texts).

Datasets (``--dataset``):

- ``tab``: the bundled fictional TAB-format fixture (train split, 11 ECHR-style documents, DIRECT
  identifiers: CODE, PERSON, ...).
- ``medqa_demo``: the bundled synthetic MedQA demo set (48 vignettes). It has no entity annotations;
  the private values are the per-patient facts its generator randomises and a reader could know:
  the age ("53-year-old", DEM), the occupation ("truck driver", DEM) and the place a patient came
  from ("Peru", LOC), found by the demo's fixed phrasing. These are quasi-identifiers drawn from
  short lists, so in the fine-tuning setting (any training value counts) chance matches are frequent:
  read the MedQA prefix rows through ELP, not PIPP.

    python benchmarks/controlled_table.py --dataset tab                  # all rows, 50 generations each
    python benchmarks/controlled_table.py --dataset medqa_demo --rows baseline_icl icl icl_blocking
    python benchmarks/controlled_table.py --dataset tab --llm hf:princeton-nlp/Sheared-LLaMA-1.3B   # other backend

Rows are saved one by one (``benchmarks/results/controlled_table_rows_<dataset>/``; ``--render-only``
assembles the table and the PNG); ICL answers are also cached by the LLM runtime, so an interrupted
row resumes where it stopped. Generated texts go to ``--work-dir`` (outside the repository).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import time
from pathlib import Path

import torch

from textleak.controlled.fictional import FictionalCodeGenerator
from textleak.controlled.generator import ControlledGenerator
from textleak.controlled.entity_metrics import entity_key, find_leaked, max_rouge, unique_entities

logger = logging.getLogger("controlled_table")
REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
ROWS = ("baseline_icl", "icl", "icl_blocking", "prefix", "prefix_masking", "dp_sgd")
ICL_ROWS = ("baseline_icl", "icl", "icl_blocking")
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

# ---- data -----------------------------------------------------------------------------------------
_AGE = re.compile(r"\b\d{1,3}-year-old\b")
_OCCUPATION = re.compile(r"\bworks as an? ([a-z][a-z ]*?)\.")
_ORIGIN = re.compile(r"\b(?:moved from|trip to|emigrated from) ([A-Z][a-z]+)")


def medqa_demo_mentions(text: str) -> list[dict]:
    """TAB-style mentions of a demo vignette's age (DEM), occupation (DEM) and origin (LOC)."""
    found = []
    for pattern, etype, group in ((_AGE, "DEM", 0), (_OCCUPATION, "DEM", 1), (_ORIGIN, "LOC", 1)):
        for m in pattern.finditer(text):
            found.append({"entity_type": etype, "start_offset": m.start(group), "end_offset": m.end(group),
                          "span_text": m.group(group), "identifier_type": "DIRECT", "entity_id": "", "confidential_status": ""})
    return sorted(found, key=lambda m: m["start_offset"])


def load_dataset(name: str) -> list[dict]:
    if name == "tab":
        from textleak.data.tab import tab_records

        return tab_records(split="train")
    if name == "medqa_demo":
        from textleak.data.medqa import read_medqa_jsonl
        from textleak.data.vignettes import DEMO_PATH

        return [{"id": r["id"], "text": r["text"], "entity_mentions": medqa_demo_mentions(r["text"])}
                for r in read_medqa_jsonl(DEMO_PATH) if r["text"].strip()]
    raise ValueError(f"unknown dataset {name!r}")


# ---- rows -----------------------------------------------------------------------------------------
def row_model(row: str, llm: str) -> str:
    """The model a row actually runs: the ICL rows use ``--llm``; the prefix rows train a transformers
    model (``--llm`` when it is one, else the embedded Gemma); the DP row always trains the embedded one."""
    if row in ICL_ROWS:
        return llm
    if row in ("prefix", "prefix_masking"):
        return llm if llm == "embedded" or llm.startswith("hf:") else "embedded"
    return "embedded"


def row_key(row: str, key: dict) -> dict:
    """The settings a saved row must match to be reused: ``llm`` is the model the row ran."""
    return {**key, "llm": row_model(row, key["llm"])}


def same_settings(saved: dict | None, wanted: dict, at_least: int = 0) -> bool:
    """A saved row matches when every setting but the number of generations is the same (each row
    prints its own n) and it holds at least ``at_least`` generations."""
    if not saved:
        return False
    strip = lambda d: {k: v for k, v in d.items() if k != "records"}
    return strip(saved) == strip(wanted) and saved.get("records", 0) >= at_least


def pipp_difference(a: dict, b: dict, bootstrap: int, seed: int) -> tuple[float, list[float], float]:
    """PIPP of row b minus row a, a 95% bootstrap interval (each row's generations resampled on their
    own) and the share of resamples in which b is not below a (a one-sided bootstrap p-value)."""
    la = [bool(g["leaked"]) for g in a["per_generation"]]
    lb = [bool(g["leaked"]) for g in b["per_generation"]]
    rng = random.Random(seed)
    diffs = sorted(sum(rng.choice(lb) for _ in lb) / len(lb) - sum(rng.choice(la) for _ in la) / len(la) for _ in range(bootstrap))
    point = sum(lb) / len(lb) - sum(la) / len(la)
    return point, [diffs[int(0.025 * (bootstrap - 1))], diffs[int(0.975 * (bootstrap - 1))]], sum(d >= 0 for d in diffs) / bootstrap


def run_row(row: str, train: list[dict], args) -> dict:
    """Generations and their entity pools for one row: ``texts``, ``entities`` (per generation in the
    ICL setting, one pool in the fine-tuning setting) and ``references``."""
    common = dict(max_new_tokens=args.max_new_tokens, temperature=0.7, top_p=0.9, seed=args.seed, dtype=args.dtype)
    if row in ICL_ROWS:
        gen = ControlledGenerator(model=args.llm, mode="baseline_icl" if row == "baseline_icl" else "icl",
                                  block_private_tokens=row == "icl_blocking", **common)
        syn = gen.fit(train).generate(num_records=args.records, seed=args.seed)
        return {"setting": "icl", "texts": list(syn["text"]), "entities": list(syn["private_entities"]),
                "references": list(syn["references"]), "status": list(syn["generation_status"])}
    if row in ("prefix", "prefix_masking"):
        gen = ControlledGenerator(model=row_model(row, args.llm), mode="prefix", masking=row == "prefix_masking", epochs=args.epochs,
                                  learning_rate=args.prefix_lr, batch_size=2, gradient_accumulation_steps=1,
                                  max_length=args.max_length, **common)
        syn = gen.fit(train).generate(num_records=args.records, seed=args.seed)
        return {"setting": "fine_tuning", "texts": list(syn["text"]), "entities": gen.training_entities(),
                "references": gen.training_texts(), "status": list(syn["generation_status"]),
                "training": gen.training_result.history}
    return run_dp(train, args)


def run_dp(train: list[dict], args) -> dict:
    from textleak.synthesis.synthesizer import SyntheticData

    records = ControlledGenerator().prepare(train)
    data = [{"text": r.text, "entity_code": r.code.render()} for r in records]
    synth = SyntheticData(model="embedded", control_code="{entity_code}", epsilon=8.0, delta=1e-5, epochs=args.epochs,
                          lora_r=8, batch_size=4, max_length=args.max_length, max_new_tokens=args.max_new_tokens,
                          temperature=0.7, top_p=0.9, top_k=0, seed=args.seed, dtype=args.dtype or "float32")
    synth.fit(data)
    fictional = FictionalCodeGenerator(seed=args.seed)
    entities = unique_entities(v for r in records for v in r.values)
    codes = [fictional.generate(records[i % len(records)].code.types, index=i, avoid=entities) for i in range(args.records)]
    # the control-code template renders values on one line, so the fictional codes are rendered the same way
    prompts = [" ".join(c.render().split()) + "\n" for c in codes]
    syn = synth.generate(control_codes=prompts, seed=args.seed)
    return {"setting": "fine_tuning", "texts": list(syn["text"]), "entities": entities,
            "references": [r.text for r in records], "status": list(syn["sanitize_status"]),
            "privacy": synth.privacy_report()}


# ---- scoring --------------------------------------------------------------------------------------
def score(out: dict, bootstrap: int, seed: int) -> dict:
    """PIPP / ELP / ROUGE with 95% bootstrap intervals over generations. A failed generation (no
    text) is left out of the rates rather than scored as clean (which would lower them), and
    ``failed`` says how many there were."""
    ok = [i for i, t in enumerate(out["texts"]) if t is not None]
    if not ok:
        raise RuntimeError("every generation failed: nothing to score")
    texts = [out["texts"][i] for i in ok]
    n = len(texts)
    if out["setting"] == "icl":
        found = [find_leaked(texts[j], unique_entities(out["entities"][i])) for j, i in enumerate(ok)]
        sizes = [len(unique_entities(out["entities"][i])) for i in ok]
        refs = [out["references"][i] for i in ok]
    else:
        pool = unique_entities(out["entities"])
        found = [find_leaked(t, pool) for t in texts]
        sizes = [len(pool)] * n
        refs = [out["references"]] * n
    rouge = [max_rouge([t], [r]) for t, r in zip(texts, refs)]
    r2 = [x["rouge2"] for x in rouge]
    rl = [x["rougeL"] for x in rouge]

    def stats(idx: list[int]) -> tuple[float, float | None, float, float]:
        pipp = sum(bool(found[i]) for i in idx) / len(idx)
        if out["setting"] == "icl":
            ratios = [len(found[i]) / sizes[i] for i in idx if sizes[i]]
            elp = sum(ratios) / len(ratios) if ratios else None
        else:
            leaked = {entity_key(e) for i in idx for e in found[i]}
            elp = len(leaked) / sizes[0] if sizes and sizes[0] else None
        return pipp, elp, sum(r2[i] for i in idx) / len(idx), sum(rl[i] for i in idx) / len(idx)

    point = stats(list(range(n)))
    rng = random.Random(seed)
    samples = [stats([rng.randrange(n) for _ in range(n)]) for _ in range(bootstrap)]

    def ci(k: int) -> list[float] | None:
        vals = sorted(s[k] for s in samples if s[k] is not None)
        if not vals:
            return None
        return [vals[int(0.025 * (len(vals) - 1))], vals[int(0.975 * (len(vals) - 1))]]

    leaked_values = sorted({e for f in found for e in f}, key=str.casefold)
    return {
        "pipp": point[0], "elp": point[1], "rouge2": point[2], "rougeL": point[3],
        # no bootstrap interval for ELP in the fine-tuning setting: it counts distinct training values leaked
        # by all generations together, and generations resampled with repetition find fewer, so a percentile
        # bootstrap lies below the point (31.4% with [15.7, 29.4] on the MedQA demo's prefix row); the table
        # prints elp_jackknife's interval instead
        "ci95": {"pipp": ci(0), "elp": ci(1) if out["setting"] == "icl" else None, "rouge2": ci(2), "rougeL": ci(3)},
        "n": n, "failed": sum(1 for t in out["texts"] if t is None), "setting": out["setting"], "pool_size": sizes[0] if sizes else 0,
        "leaking_generations": sum(bool(f) for f in found), "leaked_values": leaked_values[:40],
        "mean_words": sum(len(t.split()) for t in texts) / max(n, 1),
        "per_generation": [{"leaked": f, "rouge2": a, "rougeL": b} for f, a, b in zip(found, r2, rl)],
    }


def elp_jackknife(row: dict) -> list[float] | None:
    """A 95% delete-one jackknife interval for ELP in the fine-tuning setting (distinct training values
    leaked by all generations together, over the pool size): a percentile bootstrap is biased low
    there (resamples repeat generations and find fewer values), the jackknife drops each generation
    once. None in the ICL setting (it has a bootstrap interval) or when nothing leaked."""
    if row.get("setting") != "fine_tuning" or not row.get("elp"):
        return None
    found = [{entity_key(e) for e in g["leaked"]} for g in row["per_generation"]]
    n = len(found)
    counts: dict[str, int] = {}
    for f in found:
        for e in f:
            counts[e] = counts.get(e, 0) + 1
    pool = row.get("pool_size") or round(len(counts) / row["elp"])
    # leaving generation i out loses the values only it found
    loo = [(len(counts) - sum(counts[e] == 1 for e in f)) / pool for f in found]
    mean = sum(loo) / n
    se = ((n - 1) / n * sum((x - mean) ** 2 for x in loo)) ** 0.5
    return [max(0.0, row["elp"] - 1.96 * se), min(1.0, row["elp"] + 1.96 * se)]


# ---- output ---------------------------------------------------------------------------------------
def pct(x, ci=None):
    if x is None:
        return "n/a"
    s = f"{100 * x:.1f}"
    return s + (f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else "")


def num(x, ci=None):
    return f"{x:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def render(results: list[dict], args, n_train: int) -> str:
    ds = {"tab": "the fictional TAB fixture (11 training documents, DIRECT identifiers)",
          "medqa_demo": "the synthetic MedQA demo set (48 vignettes; private values: age, occupation, origin)"}[args.dataset]
    lines = [
        f"# Seed 004 table 1 at CPU scale: {args.dataset} (embedded Gemma 3 270M)",
        "",
        "Command: `python benchmarks/controlled_table.py " + " ".join(args.argv) + "`",
        "",
        f"Data: {ds}; {n_train} training records. Generations per row: the n under 'leaking gens'; T=0.7, top-p 0.9, at most "
        f"{args.max_new_tokens} new tokens, the model of each row in its column (`embedded` = Gemma 3 270M with transformers, {args.dtype or 'default'} weights; `llamacpp:embedded` = the same model's Q4_K_M GGUF with llama.cpp). Prefix rows: "
        f"20 virtual tokens, {args.epochs} epochs, lr {args.prefix_lr}; DP-SGD: LoRA r=8, ε=8, δ=1e-5, {args.epochs} epochs. "
        "ICL rows: ICL setting (each generation vs its three contexts); prefix and DP rows: fine-tuning setting (vs every "
        "training entity; ROUGE max over the training texts). PIPP/ELP in percent; 95% bootstrap intervals over the "
        "generations in brackets (for ELP in the fine-tuning setting, a count of distinct values that a "
        "percentile bootstrap over generations biases low, a delete-one jackknife interval instead). Paper values (Sheared-LLaMA 1.3B, 1,014 TAB documents) for the shape only.",
        "",
        "| Method | model | PIPP (%) | ELP (%) | ROUGE-2 | ROUGE-L | leaking gens | failed | words/gen | time (s) | paper PIPP / ELP / R-2 / R-L |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        c = {**r["ci95"], "elp": r["ci95"]["elp"] or elp_jackknife(r)}
        p = PAPER[r["row"]]
        lines.append(
            f"| {LABELS[r['row']]} | `{r['args']['llm']}` | {pct(r['pipp'], c['pipp'])} | {pct(r['elp'], c['elp'])} | {num(r['rouge2'], c['rouge2'])} | "
            f"{num(r['rougeL'], c['rougeL'])} | {r['leaking_generations']}/{r['n']} | {r['failed']} | {r['mean_words']:.0f} | "
            f"{r['seconds']:.0f} | {p[0]} / {p[1]} / {p[2]} / {p[3]} |")
    by_row = {r["row"]: r for r in results}
    pairs = [(a, b) for a, b in (("baseline_icl", "icl"), ("icl", "icl_blocking"), ("prefix", "prefix_masking")) if a in by_row and b in by_row]
    if pairs:
        lines += ["", "Does the privacy step lower PIPP? The difference (second row minus first), its 95% bootstrap interval, "
                      "and the share of resamples where it is not below zero:", ""]
        for a, b in pairs:
            d, ci, p = pipp_difference(by_row[a], by_row[b], args.bootstrap, args.seed)
            lines.append(f"- {LABELS[b]} vs {LABELS[a]}: {100 * d:+.1f} points [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}], "
                         f"p = {p:.3f} (n = {by_row[b]['n']} / {by_row[a]['n']})")
    lines += ["", "Values that leaked, per row (first 40):", ""]
    for r in results:
        lines.append(f"- {LABELS[r['row']]}: {', '.join(r['leaked_values']) or '(none)'}")
    dp = next((r for r in results if r["row"] == "dp_sgd"), None)
    if dp is not None and dp.get("privacy"):
        pr = dp["privacy"]
        lines += ["", f"DP-SGD: accountant epsilon {pr.get('epsilon'):.3f}, delta {pr.get('delta')}, "
                      f"noise multiplier {pr.get('noise_multiplier'):.3f}, steps {pr.get('steps')}."]
    return "\n".join(lines) + "\n"


def plot(results: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not results:
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4))
    xs = list(range(len(results)))
    names = [LABELS[r["row"]].replace(" w/ ", "\nw/ ").replace(" (", "\n(") for r in results]
    for ax, keys, scale, ylabel in ((ax1, ("pipp", "elp"), 100, "percent"), (ax2, ("rouge2", "rougeL"), 1, "F1")):
        for j, key in enumerate(keys):
            vals = [(r[key] or 0) * scale for r in results]
            lo = [max(0.0, v - r["ci95"][key][0] * scale) if r["ci95"][key] else 0 for v, r in zip(vals, results)]
            hi = [max(0.0, r["ci95"][key][1] * scale - v) if r["ci95"][key] else 0 for v, r in zip(vals, results)]
            ax.bar([x + (j - 0.5) * 0.4 for x in xs], vals, width=0.4, yerr=[lo, hi], capsize=3, label=key.upper() if scale == 100 else key)
        ax.set_xticks(xs, names, fontsize=7)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
    ax1.set_title(f"Entity leakage ({title}; lower is better)", fontsize=9)
    ax2.set_title("ROUGE against the private texts (lower = more synthetic)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="tab", choices=("tab", "medqa_demo"))
    parser.add_argument("--records", type=int, default=50, help="generations per row")
    parser.add_argument("--max-new-tokens", type=int, default=160)
    parser.add_argument("--epochs", type=int, default=8, help="prefix and DP training epochs (paper: 3 on 1,014 documents)")
    parser.add_argument("--prefix-lr", type=float, default=1e-3, help="5e-5 in the paper (1,014 documents); higher at CPU scale")
    parser.add_argument("--max-length", type=int, default=320, help="training tokens per record")
    parser.add_argument("--llm", default="embedded", help="LLM spec for the ICL rows (load_llm: embedded, hf:<id>, openai:..., ...)")
    parser.add_argument("--dtype", default="bfloat16", help="weights dtype of the transformers backends and of training ('' = default)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a shared machine)")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=ROWS,
                        help="rows to compute now (each is saved on its own, so rows can run in separate processes)")
    parser.add_argument("--render-only", action="store_true", help="only assemble the table from saved rows")
    parser.add_argument("--work-dir", default=str(Path.home() / ".cache" / "textleak" / "benchmarks" / "controlled_table"))
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    args.dtype = args.dtype or None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    torch.set_num_threads(args.threads)
    train = load_dataset(args.dataset)
    row_dir = RESULTS / f"controlled_table_rows_{args.dataset}"
    row_dir.mkdir(parents=True, exist_ok=True)
    work = Path(args.work_dir) / args.dataset
    work.mkdir(parents=True, exist_ok=True)
    key = {k: v for k, v in vars(args).items() if k not in ("rows", "render_only", "argv", "threads", "work_dir", "bootstrap")}
    for row in [] if args.render_only else args.rows:
        path = row_dir / f"{row}.json"
        if path.exists() and same_settings(json.loads(path.read_text()).get("args"), row_key(row, key), at_least=args.records):
            logger.info("%s: already done", row)
            continue
        logger.info("%s: starting", row)
        start = time.perf_counter()
        out = run_row(row, train, args)
        seconds = time.perf_counter() - start
        (work / f"{row}.json").write_text(json.dumps(out, indent=1, default=str, ensure_ascii=False))
        result = {"row": row, **score(out, args.bootstrap, args.seed), "seconds": seconds, "args": row_key(row, key),
                  "samples": [t for t in out["texts"][:2]],
                  **{k: out[k] for k in ("training", "privacy") if k in out}}
        path.write_text(json.dumps(result, indent=1, default=str, ensure_ascii=False))
        logger.info("%s: pipp %.3f elp %s in %.0f s", row, result["pipp"], result["elp"], seconds)
    results = []
    for row in ROWS:
        path = row_dir / f"{row}.json"
        if path.exists():
            saved = json.loads(path.read_text())
            if same_settings(saved.get("args"), row_key(row, key)):
                results.append(saved)
    stem = RESULTS / f"controlled_table_{args.dataset}"
    stem.with_suffix(".json").write_text(json.dumps(
        [{k: v for k, v in r.items() if k != "per_generation"} for r in results], indent=1, default=str, ensure_ascii=False))
    stem.with_suffix(".md").write_text(render(results, args, len(train)), encoding="utf-8")
    plot(results, stem.with_suffix(".png"), args.dataset)
    print(render(results, args, len(train)))


if __name__ == "__main__":
    main()
