"""Seed 000 table 2 with a pretrained model on a CPU: Gemma 3 270M + LoRA on MedQA records at
epsilon = inf, 64, 3, then semantic and lexical privacy of each synthetic set.

    python benchmarks/synthesis_table2.py                          # all rows, resumable
    python benchmarks/synthesis_table2.py --judge nli              # re-judge the same synthetic sets
    python benchmarks/synthesis_table2.py --rows inf --epochs 2    # a quick look at one row
    python benchmarks/synthesis_table2.py --data ../shared/data/pupa/PUPA_TNB.csv --limit 200 --control-code none \
        --rows 3 --out benchmarks/results/synthesis_table1_pupa       # PUPA, table1.py's records

Corpus: the MedQA sample (``../shared/data/medqa/sampled_50.jsonl``, the 49 records with a patient
profile) plus the bundled synthetic demo set (48 records): private text = the patient profile,
control code = the paper's ``Question: <question> | Answer: <answer>``. A ``.csv`` in ``--data`` is read in
PUPA's layout (private text = ``user_query``, as ``benchmarks/table1.py`` reads it; ``predicted_category`` kept as
``category`` for a ``--control-code`` template); seed 000 leaves WildChat uncontrolled (``--control-code none``).
``--limit N`` keeps the first N records, the ones ``table1.py --records N`` uses, and the results carry a digest
of the private texts (``records_sha256``) so ``table1.py`` can tell whether its rows and these share records. Per row:

1. **train** (``SyntheticData.fit``): LoRA on the embedded Gemma 3 270M, float32 base (``--dtype``), fused loss;
   epsilon = inf trains without DP, the others with opacus DP-SGD (Poisson sampling q = batch/N,
   RDP accountant, delta = 1/N, clip 1.0), all rows with the same steps and learning rate;
2. **generate**: one synthetic record per control code (T = 1, top-k 50, as the released code),
   seeded per record, written in chunks so an interrupted run resumes;
3. **evaluate**: ``textleak.leakage.evaluate_leakage(alignment="none")`` (rules atomizer, BM25
   linking, k = 3 random known claims, the judge named by ``--judge``) -> semantic and lexical
   privacy with bootstrap intervals; memorisation (ROUGE-L recall of each synthetic record against
   the record whose code it was generated from, the longest shared word run, the share of records
   sharing a run of at least 12 words); MAUVE (MiniLM features) against the private records as a
   distribution-level quality measure.

Reference rows: the private records themselves (no sanitization), and the base model without
fine-tuning (the release's ``eps_0``). The trained adapters and the synthetic texts stay in
``--work-dir`` (outside the repository: synthetic text from a non-private model reproduces MedQA
records); only aggregates go to ``benchmarks/results/synthesis_table2[_<judge>].{json,md,png}``.
Run it under ``nohup`` and watch the log; every stage is saved as it finishes. The results key holds a
hash of the judge's description (weights, thresholds, settings): after a judge is retrained or
re-thresholded, a rerun re-scores the saved synthetic sets.
"""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import math
import os
import time
from pathlib import Path
from typing import Any

import torch

from textleak.leakage.config import LeakageConfig

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"
logger = logging.getLogger("synthesis_table2")

PAPER = {  # seed 000 table 2, MedQA: lexical privacy, semantic privacy, utility (MedQA accuracy), coherence
    "inf": (0.46, 0.43, 0.62, 3.44), "1024": (0.79, 0.92, 0.40, 2.25), "64": (0.79, 0.92, 0.41, 2.14),
    "3": (0.79, 0.93, 0.40, 2.04),
}
ROW_ORDER = ["none", "inf", "1024", "64", "8", "3", "1", "base"]
COPY_RUN = 12  # words: a shared run this long is a verbatim copy, not a shared clinical phrase


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", nargs="*", default=[str(SHARED / "medqa" / "sampled_50.jsonl"),
                                                 str(REPO / "textleak" / "data" / "demo_medqa.jsonl")])
    p.add_argument("--limit", type=int, default=None, help="keep the first N records (after dropping empty ones), as table1.py --records N")
    p.add_argument("--control-code", default="paper", help="'paper' (MedQA question and answer), 'none' (uncontrolled, seed 000's WildChat) or a {field} template")
    p.add_argument("--rows", default="inf,64,3,base", help="epsilons (inf = no DP) and 'base' (no fine-tuning)")
    p.add_argument("--epochs", type=float, default=10.0)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--lora-targets", default="q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj")
    p.add_argument("--lora-layers", default="-9,-8,-7,-6,-5,-4,-3,-2,-1",
                   help="'all' or comma-separated block indices, negative from the top (write --lora-layers=-6,-5,...); default: the top 9 of 18")
    p.add_argument("--max-length", type=int, default=256)
    p.add_argument("--dtype", default="float32",
                   help="the base model's dtype; bfloat16 only where the CPU has bf16 matrix units or on a GPU: on an AVX2-only CPU "
                        "the fused loss's bfloat16 head gradient took 62.6 s against 0.36 s in float32 (docs/semantic_leakage.md)")
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--generation-batch-size", type=int, default=16)
    p.add_argument("--judge", default=LeakageConfig.judge, help="judge for semantic privacy (textleak.judges.make_judge name; default: the default judge)")
    p.add_argument("--judge-options", default="{}", help="JSON options for the judge")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a shared machine)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--work-dir", default=str(Path.home() / ".cache" / "textleak" / "benchmarks" / "synthesis_table2"))
    p.add_argument("--out", default=None, help="results stem (default benchmarks/results/synthesis_table2[_<judge>])")
    p.add_argument("--render-only", action="store_true")
    return p.parse_args(argv)


def read_pupa_csv(path: str | Path) -> list[dict]:
    """PUPA's CSV as records: ``text`` = ``user_query`` (what table1.py evaluates), ``category`` =
    ``predicted_category`` (PUPA's privacy category), ``id`` = ``conversation_hash``."""
    import csv

    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and "user_query" not in rows[0]:
        raise ValueError(f"{path}: no 'user_query' column (columns: {sorted(rows[0])}); only PUPA's CSV layout is read")
    return [{"id": r.get("conversation_hash") or str(i), "text": r["user_query"] or "",
             "category": r.get("predicted_category")} for i, r in enumerate(rows)]


def load_records(paths: list[str], limit: int | None = None) -> list[dict]:
    """MedQA JSONL (or PUPA CSV) records with a non-empty private text, in file order; the first ``limit``."""
    from textleak.data.medqa import read_medqa_jsonl

    records = []
    for path in paths:
        for r in (read_pupa_csv(path) if str(path).endswith(".csv") else read_medqa_jsonl(path)):
            if r["text"].strip():  # a one-sentence vignette has no profile to keep private
                r["source_file"] = Path(path).name
                records.append(r)
    if limit is not None and len(records) < limit:
        logger.warning("%d records, fewer than --limit %d: using all of them", len(records), limit)
    return records[:limit] if limit is not None else records


def records_digest(texts: list[str]) -> str:
    """SHA-256 of the private texts in order: equal digests mean two benchmarks scored the same records."""
    import hashlib

    return hashlib.sha256(json.dumps(list(texts), ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def training_key(args) -> dict[str, Any]:
    keys = ("data", "epochs", "batch_size", "learning_rate", "lora_r", "lora_targets", "lora_layers", "max_length",
            "dtype", "max_new_tokens", "seed")
    key = {k: getattr(args, k) for k in keys}
    # added later: in the key only when set, so the runs made before them keep their folders and results
    if getattr(args, "limit", None) is not None:
        key["limit"] = args.limit
    if getattr(args, "control_code", "paper") != "paper":
        key["control_code"] = args.control_code
    return key


def judge_identity(args) -> str:
    """A hash of the judge's whole ``describe()`` (weights, thresholds, settings), the same identity the
    rating cache uses: a retrained or re-thresholded judge must re-score the saved synthetic sets (the
    trained adapters and generations in ``--work-dir`` are reused), never keep figures from the old one."""
    from textleak.cache import content_hash
    from textleak.judges import make_judge

    return content_hash("judge", make_judge(args.judge, **json.loads(args.judge_options)).describe())[:16]


def run_dir(args, row: str) -> Path:
    from textleak.cache import content_hash

    key = training_key(args)
    if row == "base":  # no training: only the generation settings matter
        key = {k: key[k] for k in ("data", "dtype", "max_new_tokens", "seed", "max_length", "limit", "control_code") if k in key}
    return Path(args.work_dir) / f"{row}-{content_hash(key)[:10]}"


def make_synth(args, epsilon: float | None):
    from textleak.synthesis.synthesizer import SyntheticData

    layers = None if args.lora_layers == "all" else [int(x) for x in args.lora_layers.split(",")]
    return SyntheticData(
        model="embedded", control_code=args.control_code, epsilon=epsilon, epochs=args.epochs, batch_size=args.batch_size,
        learning_rate=args.learning_rate, lora_r=args.lora_r, lora_target_modules=args.lora_targets.split(","),
        lora_layers=layers, max_length=args.max_length, max_new_tokens=args.max_new_tokens, seed=args.seed,
        generation_batch_size=args.generation_batch_size, dtype=args.dtype,
    )


def train(args, row: str, records: list[dict], folder: Path):
    """The fine-tuned model (trained now, or the saved adapter) and its tokenizer."""
    from peft import PeftModel

    from textleak.synthesis.training import load_causal_lm, save_adapter_or_model

    meta_path = folder / "training.json"
    if row == "base":
        return load_causal_lm("embedded", dtype=args.dtype)
    if meta_path.exists():
        logger.info("%s: loading the trained adapter from %s", row, folder / "model")
        base, tok = load_causal_lm("embedded", dtype=args.dtype)
        model = PeftModel.from_pretrained(base, str(folder / "model"))
        model.eval()
        return model, tok
    epsilon = None if row == "inf" else float(row)
    synth = make_synth(args, epsilon)
    start = time.perf_counter()
    synth.fit(records)
    seconds = time.perf_counter() - start
    save_adapter_or_model(synth._model, synth._tokenizer, folder / "model")
    meta = {"privacy": synth.privacy_report(), "fit": synth._fit_info, "log": synth.training_log, "seconds": seconds,
            "config": synth.get_config()}
    meta_path.write_text(json.dumps(meta, indent=1, default=str))
    logger.info("%s: trained %d steps in %.0f s (final loss %s)", row, meta["fit"]["steps"], seconds, meta["fit"]["final_loss"])
    return synth._model, synth._tokenizer


def generate(args, records: list[dict], model, tok, folder: Path) -> list[str | None]:
    """One record per control code, appended to ``synthetic.jsonl`` chunk by chunk (resumable)."""
    from textleak.text.seeds import record_seed
    from textleak.synthesis.templates import resolve_template
    from textleak.synthesis.generation import GenerationConfig, generate_records

    code = resolve_template(args.control_code)
    prompts = [code.render(r, i) for i, r in enumerate(records)]
    path = folder / "synthetic.jsonl"
    done = [json.loads(line) for line in path.open()] if path.exists() else []
    config = GenerationConfig(max_new_tokens=args.max_new_tokens, batch_size=args.generation_batch_size)
    start = time.perf_counter()
    with path.open("a", encoding="utf-8") as f:
        for lo in range(len(done), len(prompts), args.generation_batch_size):
            hi = min(lo + args.generation_batch_size, len(prompts))
            seeds = [record_seed(args.seed, i, "") for i in range(lo, hi)]
            for i, g in zip(range(lo, hi), generate_records(model, tok, prompts[lo:hi], seeds, config)):
                row = {"index": i, "text": g.text, "status": g.status, "finished": g.finished, "num_tokens": g.num_tokens}
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
                done.append(row)
            f.flush()
            logger.info("generated %d / %d (%.0f s)", hi, len(prompts), time.perf_counter() - start)
    timing = folder / "generation_seconds.json"
    if not timing.exists() or time.perf_counter() - start > 1:
        timing.write_text(json.dumps({"seconds": time.perf_counter() - start}))
    return [r["text"] for r in sorted(done, key=lambda r: r["index"])]


def memorisation(originals: list[str], synthetic: list[str | None]) -> dict[str, float]:
    """How much of its own source record each synthetic record reproduces (word level)."""
    from textleak.text import rouge_l, rouge_tokens

    recalls, runs = [], []
    for orig, syn in zip(originals, synthetic):
        a = rouge_tokens(orig, stem=False)
        b = rouge_tokens(syn or "", stem=False)
        recalls.append(rouge_l(a, b).recall if b else 0.0)
        match = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
        runs.append(match.size)
    n = max(len(recalls), 1)
    return {"source_rougeL_recall": sum(recalls) / n, "longest_shared_run_mean": sum(runs) / n,
            "longest_shared_run_max": max(runs) if runs else 0,
            f"copy_share_{COPY_RUN}w": sum(r >= COPY_RUN for r in runs) / n}


def evaluate(args, row: str, records: list[dict], synthetic: list[str | None]) -> dict[str, Any]:
    from textleak.controlled.quality import mauve_score
    from textleak.leakage import evaluate_leakage

    originals = [r["text"] for r in records]
    start = time.perf_counter()
    leak = evaluate_leakage(originals, synthetic, alignment="none", judge=args.judge,
                            judge_options=json.loads(args.judge_options), bootstrap=1000, seed=args.seed)
    out: dict[str, Any] = {
        "semantic_privacy": leak.semantic_privacy, "lexical_privacy": leak.lexical_privacy, "ci95": leak.ci95,
        "unlinked": leak.n_unlinked, "n_records": leak.n_records, "n_synthetic": leak.n_sanitized,
        "judge": leak.judge, "linker": leak.linker["name"], "atomizer": leak.atomizer.get("name"),
    }
    if args.control_code != "none" or row == "none":
        out["memorisation"] = memorisation(originals, synthetic)
        by_file = {}
        for name in sorted({r["source_file"] for r in records}):
            idx = [i for i, r in enumerate(records) if r["source_file"] == name]
            by_file[name] = memorisation([originals[i] for i in idx], [synthetic[i] for i in idx])
        out["memorisation_by_file"] = by_file
    else:  # uncontrolled: synthetic record i was not generated from record i, so there is no own source
        out["memorisation"] = None
    try:
        out["mauve_minilm"] = mauve_score([t for t in synthetic if t], originals)
    except Exception as err:  # noqa: BLE001 - a quality number must never stop the privacy table
        logger.warning("MAUVE failed: %s", err)
        out["mauve_minilm"] = None
    out["failed_generations"] = sum(t is None for t in synthetic)
    out["evaluate_s"] = time.perf_counter() - start
    return out


def dataset_name(args) -> str:
    return "PUPA" if any(str(d).endswith(".csv") for d in args.data) else "MedQA"


def row_label(row: str) -> str:
    return {"inf": "ε = ∞ (no DP)", "base": "base model, no fine-tuning", "none": "no sanitization (originals)"}.get(
        row, f"ε = {row}")


def render(result: dict, args, note: str = "") -> str:
    rows = result["rows"]
    lines = [
        f"# Seed 000 table 2 on a CPU: Gemma 3 270M + LoRA, DP-SGD, {dataset_name(args)} (judge: {result.get('judge_name', args.judge)})",
        "",
        *([note, ""] if note else []),
        "Command: `python benchmarks/synthesis_table2.py " + " ".join(result["argv"]) + "`",
        "",
        f"{result['n_records']} private records ({result['by_file']}; control code {getattr(args, 'control_code', 'paper')!r}"
        + (f", the first {args.limit}" if getattr(args, "limit", None) else "") + "), one synthetic record per record. "
        f"Training: LoRA r={args.lora_r} on {args.lora_targets} ({args.lora_layers} blocks), {args.dtype} base, "
        f"{args.epochs:g} epochs, batch {args.batch_size} (Poisson under DP), lr {args.learning_rate:g}, "
        f"max_length {args.max_length}; generation T=1, top-k 50, at most {args.max_new_tokens} new tokens. "
        "Privacy: evaluate_leakage(alignment='none'), rules atomizer, BM25, k=3 random known claims; "
        "95% bootstrap intervals in brackets. Memorisation: ROUGE-L recall of each synthetic record against its "
        f"own source record, and the share of synthetic records sharing a run of >= {COPY_RUN} words with it.",
        "",
        "| row | accountant ε (δ) | steps | final loss | lexical privacy | semantic privacy | source ROUGE-L recall | "
        f"copies (>= {COPY_RUN} words) | MAUVE (MiniLM) | unlinked | train / generate / evaluate s | paper lexical / semantic / utility |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def fmt(v):  # memorisation is None for uncontrolled rows (no own source record)
        return "-" if v is None else f"{v:.2f}"

    def ci(r, key):
        c = (r.get("ci95") or {}).get(key)
        return f" [{c[0]:.2f}, {c[1]:.2f}]" if c else ""

    for name, r in sorted(rows.items(), key=lambda kv: ROW_ORDER.index(kv[0]) if kv[0] in ROW_ORDER else 99):
        if "semantic_privacy" not in r:
            continue
        tr = r.get("training") or {}
        priv = tr.get("privacy") or {}
        eps = "-" if not priv.get("dp") else f"{priv['epsilon']:.2f} ({priv['delta']:.3g})"
        steps = (tr.get("fit") or {}).get("steps", "-")
        loss = (tr.get("fit") or {}).get("final_loss")
        mem = r.get("memorisation") or {}
        paper = PAPER.get(name) if dataset_name(args) == "MedQA" else None
        paper_s = f"{paper[0]} / {paper[1]} / {paper[2]}" if paper else ("0 / 0 / -" if name == "none" else "-")
        times = " / ".join("-" if r.get(k) is None else f"{r[k]:.0f}" for k in ("train_s", "generate_s", "evaluate_s"))
        mauve = "-" if r.get("mauve_minilm") is None else f"{r['mauve_minilm']:.2f}"
        lines.append(
            f"| {row_label(name)} | {eps} | {steps} | {'-' if loss is None else f'{loss:.2f}'} | "
            f"{r['lexical_privacy']:.3f}{ci(r, 'lexical_privacy')} | {r['semantic_privacy']:.3f}{ci(r, 'semantic_privacy')} | "
            f"{fmt(mem.get('source_rougeL_recall'))} | {fmt(mem.get(f'copy_share_{COPY_RUN}w'))} | "
            f"{mauve} | {r.get('unlinked', '-')} | {times} | {paper_s} |")
    lines += ["", f"Judge: `{json.dumps(result.get('judge'), default=str)[:400]}`", ""]
    return "\n".join(lines) + "\n"


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(((k, r) for k, r in result["rows"].items() if "semantic_privacy" in r),
                  key=lambda kv: ROW_ORDER.index(kv[0]) if kv[0] in ROW_ORDER else 99)
    if not rows:
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    xs = range(len(rows))
    for offset, key, label in ((-0.2, "lexical_privacy", "lexical privacy (1 - ROUGE-L)"),
                               (0.2, "semantic_privacy", "semantic privacy")):
        vals = [r[key] for _, r in rows]
        errs = [[v - (r["ci95"].get(key) or [v, v])[0] for v, (_, r) in zip(vals, rows)],
                [(r["ci95"].get(key) or [v, v])[1] - v for v, (_, r) in zip(vals, rows)]]
        ax1.bar([x + offset for x in xs], vals, width=0.4, yerr=errs, capsize=3, label=label)
    ax1.set_xticks(list(xs), [row_label(k) for k, _ in rows], rotation=20, ha="right", fontsize=8)
    ax1.set_ylim(0, 1.05)
    ax1.set_ylabel("privacy (higher = less leakage)")
    ax1.legend(fontsize=8)
    ax1.set_title(f"Privacy of the synthetic {result.get('dataset', 'MedQA')} sets (judge: {result['judge_name']})", fontsize=9)
    mem = [(r.get("memorisation") or {}) for _, r in rows]
    ax2.bar([x - 0.2 for x in xs], [m.get("source_rougeL_recall", 0) for m in mem], width=0.4, label="source ROUGE-L recall")
    ax2.bar([x + 0.2 for x in xs], [m.get(f"copy_share_{COPY_RUN}w", 0) for m in mem], width=0.4,
            label=f"share with a >= {COPY_RUN}-word copy")
    ax2.set_xticks(list(xs), [row_label(k) for k, _ in rows], rotation=20, ha="right", fontsize=8)
    ax2.set_ylim(0, 1.05)
    ax2.legend(fontsize=8)
    ax2.set_title("Memorisation: synthetic record vs its own source record", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> None:
    import sys

    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    torch.set_num_threads(args.threads)
    stem = Path(args.out) if args.out else RESULTS / ("synthesis_table2" + ("" if args.judge == LeakageConfig.judge else f"_{args.judge}"))
    stem.parent.mkdir(parents=True, exist_ok=True)
    json_path = stem.with_suffix(".json")
    records = load_records(args.data, args.limit)
    originals = [r["text"] for r in records]
    by_file = {name: sum(r["source_file"] == name for r in records) for name in sorted({r["source_file"] for r in records})}
    key = {**training_key(args), "judge": args.judge, "judge_options": args.judge_options,
           "judge_identity": judge_identity(args)}
    result = json.loads(json_path.read_text()) if json_path.exists() else {}
    # --render-only draws a results file as measured (it never rewrites it); one scored with another judge
    # or other settings is drawn with that said on top, never emptied and never relabelled as this command's
    stale = bool(args.render_only and result and result.get("key") != key)
    note = ""
    if stale:
        note = f"**Scored with other settings or another judge than this command's; its key: `{json.dumps(result.get('key'))}`.**"
        logger.warning("%s was scored with other settings or another judge (key %s); rendering it as it is", json_path, result.get("key"))
    elif result.get("key") != key:
        result = {"key": key, "rows": {}}
    if not args.render_only or "argv" not in result:
        result.update({"argv": sys.argv[1:] if argv is None else list(argv), "n_records": len(records), "by_file": by_file,
                       "judge_name": args.judge})
    if not args.render_only:
        result.update({"dataset": dataset_name(args), "records_sha256": records_digest(originals),
                       "control_code": args.control_code})

    def save():
        """Merge with what other processes (other --rows) saved meanwhile, then write."""
        from filelock import FileLock

        Path(args.work_dir).mkdir(parents=True, exist_ok=True)
        with FileLock(str(Path(args.work_dir) / (stem.name + ".lock"))):
            on_disk = json.loads(json_path.read_text()) if json_path.exists() else {}
            if on_disk.get("key") == key:
                for name, row in on_disk.get("rows", {}).items():
                    result["rows"].setdefault(name, row)
            if not args.render_only:
                json_path.write_text(json.dumps(result, indent=1, default=str, ensure_ascii=False))
            stem.with_suffix(".md").write_text(render(result, args, note), encoding="utf-8")
            plot(result, stem.with_suffix(".png"))

    if not args.render_only:
        if "none" not in result["rows"]:
            ev = evaluate(args, "none", records, originals)
            result["rows"]["none"] = ev
            result["judge"] = ev["judge"]
            save()
        for row in [r.strip() for r in args.rows.split(",") if r.strip()]:
            if "semantic_privacy" in result["rows"].get(row, {}):
                logger.info("%s: done", row)
                continue
            folder = run_dir(args, row)
            folder.mkdir(parents=True, exist_ok=True)
            logger.info("%s: work folder %s (load %s)", row, folder, os.getloadavg())
            model, tok = train(args, row, records, folder)
            synthetic = generate(args, records, model, tok, folder)
            del model
            ev = evaluate(args, row, records, synthetic)
            meta = json.loads((folder / "training.json").read_text()) if (folder / "training.json").exists() else None
            if meta is not None:
                meta.pop("log", None)
                meta.pop("config", None)
            ev["training"] = meta
            ev["train_s"] = meta["seconds"] if meta else None
            ev["generate_s"] = json.loads((folder / "generation_seconds.json").read_text())["seconds"]
            ev["work_dir"] = str(folder)
            result["rows"][row] = ev
            save()
            logger.info("%s: lexical %.3f semantic %.3f memorisation %s", row, ev["lexical_privacy"],
                        ev["semantic_privacy"], ev["memorisation"])
    save()
    print(render(result, args, note))


if __name__ == "__main__":
    main()
