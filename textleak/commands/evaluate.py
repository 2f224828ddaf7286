"""``textleak evaluate``: semantic and lexical leakage of sanitized records against the originals.

With no input it runs the bundled synthetic MedQA demo set against the ``identity`` and
``remove_all`` sanitizers (and ``presidio`` when it is installed): the two baselines bracket every
real sanitizer. Writes ``report.json`` (one row per sanitizer, with judge, linker and settings) and
``records-<sanitizer>.jsonl`` (claims, known claims, linked record and its score, each claim's
rating) to ``--output``, and prints a summary table.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

DEMO_SANITIZERS = ["identity", "remove_all"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    io = parser.add_argument_group("input")
    io.add_argument("--originals", help="original records: .jsonl/.json/.csv/.tsv/.parquet, a save_to_disk folder, hf:<name>[:config] or data:<name> (default: the bundled demo set)")
    io.add_argument("--sanitized", help="sanitized records (same formats); omit when --originals has a --sanitized-column or with --sanitizer")
    io.add_argument("--text-column", default="text", help="column of the original text (default: text; raw MedQA lines give the patient profile)")
    io.add_argument("--sanitized-column", default=None, help="column of the sanitized text (default: 'sanitized' in a combined file, else --text-column)")
    io.add_argument("--id-column", default=None, help="record id column (default: 'id' when present, else the row number)")
    io.add_argument("--source-id-column", default=None, help="column of the sanitized file naming the original id each record came from (for missing or reordered records)")
    io.add_argument("--split", default=None, help="split of a DatasetDict or Hub dataset")
    io.add_argument("--limit", type=int, default=None, help="use only the first N original records")
    io.add_argument("--sanitizer", default=None, help="apply registered sanitizers to the originals first: NAME[,NAME...] (one result row each)")
    io.add_argument("--alignment", default="auto", choices=["auto", "index", "ids", "none"], help="how sanitized records map to originals (auto: ids, else index when sizes match, else none)")
    io.add_argument("--skip-empty-originals", action="store_true", help="skip empty original records instead of failing (they are reported)")
    m = parser.add_argument_group("method")
    m.add_argument("--judge", default="embedding", help="embedding (offline default), lexical or llm")
    m.add_argument("--llm", default=None, help="LLM spec for the llm judge, the llm atomizer and paraphrasing: embedded, hf:<id|path>, openai:<model>@<url>")
    m.add_argument("--judge-option", action="append", default=[], metavar="KEY=VALUE", help="extra judge option (JSON value), repeatable: e.g. n=3 mode=logprob")
    m.add_argument("--atomizer", default="rules", choices=["rules", "llm"], help="rules (offline default) or llm (appendix C.1 prompt)")
    m.add_argument("--k", type=int, default=3, help="claims the adversary knows per record (default 3)")
    m.add_argument("--aux-strategy", default="random", choices=["random", "first", "last", "release_shuffle"], help="which claims the adversary knows")
    m.add_argument("--paraphrase-aux", action="store_true", help="paraphrase the known claims with the LLM (appendix C.2.2)")
    m.add_argument("--linker", default="bm25", choices=["bm25", "bm25-release", "rouge", "dense"], help="bm25 (paper: document index, concatenated query), bm25-release (claim index + vote), rouge, dense")
    m.add_argument("--lexical-variant", default="paper", choices=["paper", "release"], help="1-ROUGE-L F (paper) or the released code's recall without the known sentences")
    m.add_argument("--unlinked", default="score_empty", choices=["score_empty", "skip"], help="rate an unlinked record's claims as unsupported (default) or leave it out of the mean (released code)")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% intervals (0 = none)")
    u = parser.add_argument_group("utility (the other axis of the trade-off)")
    u.add_argument("--utility", default=None, choices=["auto", "medqa", "wildchat"],
                   help="also measure task utility of each sanitized set: medqa (accuracy from the sanitized profile), "
                        "wildchat (task-category chi-square utility), auto (medqa when the records have question/options/answer_idx)")
    u.add_argument("--utility-llm", default="embedded", help="LLM answering/classifying for --utility (default: embedded)")
    u.add_argument("--coherence", action="store_true", help="with --utility, also rate coherence 1-5 (appendix C.5)")
    o = parser.add_argument_group("output")
    o.add_argument("--output", default="textleak-evaluate", help="output folder (default: ./textleak-evaluate)")
    o.add_argument("--no-cache", action="store_true", help="do not read or write the claims/ratings caches")
    o.add_argument("--no-progress", action="store_true", help="no progress bars")


# ---------------------------------------------------------------------------------------------


def _demo_sanitizers() -> list[str]:
    """identity and remove_all, plus presidio when its extra is installed."""
    names = list(DEMO_SANITIZERS)
    import importlib.util

    if importlib.util.find_spec("presidio_analyzer") is not None:
        names.append("presidio")
    return names


def _judge_options(pairs: list[str]) -> dict[str, Any]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"--judge-option takes KEY=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def apply_sanitizer(name: str, texts: list[str], seed: int = 0, progress: bool = True, use_cache: bool = True,
                    llm: str | None = None) -> list[str | None]:
    """Run a registered sanitizer over the texts (batched, per-record index seeds), cached by its
    pickled state and each text, so a rerun after a failure resumes. Failed records come back as None.
    ``llm`` reaches sanitizers that use one; a sanitizer that needs corpus statistics (SANTEXT) is
    fitted on ``texts``, the private corpus itself."""
    from tqdm.auto import tqdm

    from textleak.cache import DiskCache, content_hash
    from textleak.sanitization import create_sanitizer

    sanitizer = create_sanitizer(name, seed=seed)
    if llm is not None and "llm" in sanitizer.get_config():
        sanitizer = create_sanitizer(name, llm=llm, seed=seed)
    if sanitizer.requires_fit:
        sanitizer.fit(texts)
    try:
        state = sanitizer.__getstate__()
        keys = [content_hash("sanitized", state, i, t) for i, t in enumerate(texts)]
    except TypeError:
        logger.info("sanitizer %s has state that cannot be hashed; its outputs are not cached", name)
        keys = None
    cache = DiskCache("sanitized", enabled=use_cache and keys is not None)
    found = cache.get_many(keys) if keys else {}
    out: list[str | None] = [found[keys[i]] if keys and keys[i] in found else None for i in range(len(texts))]
    todo = [i for i in range(len(texts)) if not (keys and keys[i] in found)]
    batch = 16
    bar = tqdm(total=len(todo), desc=f"sanitizing ({name})", unit="rec", disable=not progress or not todo, leave=False)
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        result = sanitizer([texts[i] for i in chunk], chunk)
        column = getattr(sanitizer, "output_column", "sanitized")
        status_column = getattr(sanitizer, "status_column", "sanitize_status")
        fresh = {}
        for i, text, status in zip(chunk, result[column], result.get(status_column, ["ok"] * len(chunk))):
            if status != "ok" or text is None:
                logger.warning("sanitizer %s failed on record %d: %s", name, i, status)
                out[i] = None
                continue
            out[i] = text
            if keys:
                fresh[keys[i]] = text
        cache.set_many(fresh)
        bar.update(len(chunk))
    bar.close()
    return out


def _fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def _ci(ci: list[float] | None) -> str:
    return "" if not ci else f" [{ci[0]:.2f}, {ci[1]:.2f}]"


def format_table(rows: list[dict[str, Any]]) -> str:
    """A plain-text summary table: one row per sanitized set."""
    head = ["sanitizer", "semantic privacy [95% CI]", "lexical privacy", "linkage rate", "records", "claims", "unparsed", "time"]
    with_utility = any(r.get("utility") for r in rows)
    if with_utility:
        head[4:4] = ["utility", "coherence"]
    body = []
    for r in rows:
        u = r.get("utility") or {}
        extra = [_fmt(u.get("value")), _fmt(u.get("coherence"), 2)] if with_utility else []
        body.append([
            r["sanitizer"],
            _fmt(r["semantic_privacy"]) + _ci(r["ci95"].get("semantic_privacy")),
            _fmt(r["lexical_privacy"]),
            _fmt(r["linkage_rate"]) if r["linkage_rate"] is not None else "n/a (unaligned)",
            *extra,
            f"{r['n_records']}" + (f" ({r['n_unlinked']} unlinked)" if r["n_unlinked"] else ""),
            str(r["n_scored_claims"]),
            str(r["unparsed_claims"]),
            f"{r['timings'].get('total_s', 0.0):.1f}s",
        ])
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(head)]
    line = "+".join("-" * (w + 2) for w in widths)
    fmt = lambda cells: " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    return "\n".join([fmt(head), line.replace("+", "|").replace("-", "-"), *(fmt(row) for row in body)])


def run(args: argparse.Namespace) -> int:
    from textleak.io import read_records
    from textleak.leakage import evaluate_leakage

    progress = not args.no_progress and sys.stderr.isatty()
    use_cache = not args.no_cache
    originals_source = args.originals
    sanitizer_names = [s.strip() for s in args.sanitizer.split(",") if s.strip()] if args.sanitizer else []
    if originals_source is None:
        from textleak.data.vignettes import DEMO_PATH

        originals_source = str(DEMO_PATH)
        if not args.sanitized and not sanitizer_names:
            sanitizer_names = _demo_sanitizers()
        logger.info("no --originals: using the bundled synthetic MedQA demo set (%s) with sanitizers %s",
                    DEMO_PATH.name, ", ".join(sanitizer_names))
    originals = read_records(originals_source, text_column=args.text_column, id_column=args.id_column, split=args.split, limit=args.limit)
    for i, r in enumerate(originals):
        if r["text"] is None:
            raise SystemExit(f"original record {i} (id {r['id']!r}) has no text")
    texts = [r["text"] for r in originals]
    ids = [r["id"] for r in originals]

    # the sanitized sets to evaluate: (name, texts, source ids or None)
    runs: list[tuple[str, list[str | None], list[str] | None]] = []
    if args.sanitized:
        column = args.sanitized_column or args.text_column
        san = read_records(args.sanitized, text_column=column, id_column=args.id_column, split=args.split)
        src = [str(r[args.source_id_column]) for r in san] if args.source_id_column else None
        if src is None and args.alignment in ("auto", "ids") and len(san) != len(originals) and all("id" in r for r in san):
            known = set(ids)
            if all(r["id"] in known for r in san):
                src = [r["id"] for r in san]  # the sanitized file keeps the originals' ids
        runs.append((Path(args.sanitized).stem, [r["text"] for r in san], src))
    elif args.originals and not sanitizer_names:
        column = args.sanitized_column or "sanitized"
        if column not in originals[0]:
            raise SystemExit(f"nothing to evaluate: give --sanitized FILE, --sanitizer NAME, or a --sanitized-column in {args.originals} "
                             f"(columns: {', '.join(originals[0])})")
        runs.append((column, [r.get(column) for r in originals], None))
    optional = {"presidio"} if args.originals is None and not args.sanitizer else set()
    for name in sanitizer_names:
        t = time.perf_counter()
        try:
            outputs = apply_sanitizer(name, texts, seed=args.seed, progress=progress, use_cache=use_cache, llm=args.llm)
        except Exception as err:  # noqa: BLE001 - only the demo's optional sanitizers may be skipped
            if name not in optional:
                raise
            logger.warning("skipping the optional %s sanitizer in the demo: %s", name, err)
            continue
        runs.append((name, outputs, None))
        logger.info("sanitized %d records with %s in %.1fs", len(texts), name, time.perf_counter() - t)

    judge_options = _judge_options(args.judge_option)
    out_dir = Path(args.output)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, san_texts, src_ids in runs:
        failed = [i for i, t in enumerate(san_texts) if t is None]
        if failed:
            logger.error("%s: %d sanitized records failed (first: record %d); they are reported and evaluation stops",
                         name, len(failed), failed[0])
            raise SystemExit(f"{name}: sanitized record {failed[0]} is missing (sanitizer failure or null value); "
                             "fix the input, or drop the rows and give --source-id-column")
        report = evaluate_leakage(
            texts, san_texts, original_ids=ids, sanitized_ids=src_ids, alignment=args.alignment,
            judge=args.judge, llm=args.llm, judge_options=judge_options, atomizer=args.atomizer, linker=args.linker,
            k=args.k, aux_strategy=args.aux_strategy, paraphrase_aux=args.paraphrase_aux, seed=args.seed,
            lexical_variant=args.lexical_variant, unlinked=args.unlinked,
            empty_originals="skip" if args.skip_empty_originals else "error", bootstrap=args.bootstrap,
            use_cache=use_cache, progress=progress,
        )
        if args.utility and src_ids is None and len(san_texts) == len(originals):
            from textleak.utility import evaluate_utility

            task = args.utility
            if task == "auto":
                if not all(k in originals[0] for k in ("question", "options", "answer_idx")):
                    raise SystemExit("--utility auto: the originals are not MedQA records (question/options/answer_idx); name the task")
                task = "medqa"
            util = evaluate_utility(task, originals, san_texts, args.utility_llm, coherence_judge=args.coherence, seed=args.seed)
            report_utility = {"task": task, "metric": util["task_metric"], "value": util["task_utility"],
                              "coherence": util.get("coherence"), "llm": args.utility_llm}
        elif args.utility:
            logger.warning("%s: utility needs one sanitized record per original; skipped", name)
            report_utility = None
        else:
            report_utility = None
        safe = "".join(ch if ch.isalnum() or ch in "-_+." else "_" for ch in name)
        report.write_records(out_dir / f"records-{safe}.jsonl")
        row = {"sanitizer": name, **report.summary(), "records_file": f"records-{safe}.jsonl"}
        if report_utility is not None:
            row["utility"] = report_utility
        rows.append(row)
    (out_dir / "report.json").write_text(json.dumps({"originals": originals_source, "n_originals": len(texts), "results": rows},
                                                    indent=2, ensure_ascii=False), encoding="utf-8")
    print(format_table(rows))
    if rows:
        r0 = rows[0]
        print(f"\njudge: {r0['judge'].get('judge') or r0['judge'].get('name')}  linker: {r0['linker'].get('name')} ({r0['linker'].get('index', '')}, "
              f"{r0['linker'].get('query')})  k={args.k} ({args.aux_strategy})  seed={args.seed}")
        print("privacy: 0 = every claim leaks, 1 = nothing leaks. "
              f"Details: {out_dir / 'report.json'} and records-*.jsonl")
    return 0
