"""``textleak evaluate``: semantic and lexical leakage of sanitized records against the originals.

With no input it runs the bundled synthetic MedQA demo set against the ``identity`` and
``remove_all`` sanitizers (and ``presidio`` when it is installed): the two baselines bracket every
real sanitizer. Writes ``report.json`` (one row per sanitizer, with judge, linker and settings) and
``records-<sanitizer>.jsonl`` (claims, known claims, linked record and its score, each claim's
rating) to ``--output``, and prints a summary table.
"""

from __future__ import annotations

import argparse
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
    io.add_argument("--skip-empty-originals", action="store_true", help="skip empty original records instead of failing (they are reported)")
    from textleak.config import add_arguments as add_config_arguments
    from textleak.leakage import LeakageConfig

    add_config_arguments(parser.add_argument_group("method (textleak.leakage.LeakageConfig)"), LeakageConfig, exclude=("empty_originals",))
    u = parser.add_argument_group("utility (the other axis of the trade-off)")
    u.add_argument("--utility", default=None, choices=["auto", "medqa", "wildchat"],
                   help="also measure task utility of each sanitized set: medqa (accuracy from the sanitized profile), "
                        "wildchat (task-category chi-square utility), auto (medqa when the records have question/options/answer_idx)")
    u.add_argument("--utility-llm", default="embedded", help="LLM answering/classifying for --utility (default: embedded)")
    u.add_argument("--coherence", action="store_true", help="with --utility, also rate coherence 1-5 (appendix C.5)")
    o = parser.add_argument_group("output")
    o.add_argument("--output", default="textleak-evaluate", help="output folder (default: ./textleak-evaluate)")
    o.add_argument("--labels", default=None, help="hand labels of judged claims (written by textleak label, JSONL or CSV): also report "
                   "semantic privacy corrected by prediction-powered inference, with its interval and the judge's agreement")
    o.add_argument("--html", action="store_true", help="also write report.html (the study's report page: summary, plots, "
                   "per-record drill-down, settings) to --output")
    o.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars on stderr with counts, rates and time left (default: on when stderr is a terminal and CI "
                        "is unset; TEXTLEAK_PROGRESS=1/0 overrides); --no-progress turns them off")


# ---------------------------------------------------------------------------------------------


def _demo_sanitizers() -> list[str]:
    """identity and remove_all, plus presidio when its extra is installed."""
    names = list(DEMO_SANITIZERS)
    import importlib.util

    if importlib.util.find_spec("presidio_analyzer") is not None:
        names.append("presidio")
    return names


def sanitize_for_evaluation(name: str, texts: list[str], seed: int = 0, progress: bool = True, use_cache: bool = True,
                            llm: str | None = None) -> tuple[list[str | None], int]:
    """Run a registered sanitizer over the texts (``textleak.sanitize.run_sanitizer``): the outputs, failed
    records as None, and how many of them the LLM refused (status ``refusal``, for the report). ``llm``
    reaches sanitizers that use one; one that needs corpus statistics (SANTEXT) is fitted on ``texts``,
    the private corpus itself."""
    from textleak.registry import sanitizers
    from textleak.sanitize import create_sanitizer, run_sanitizer

    sanitizer = create_sanitizer(name, llm=llm if getattr(sanitizers.get(name), "needs_llm", False) else None, seed=seed)
    if sanitizer.requires_fit:
        sanitizer.fit(texts)
    from textleak.sanitize.llm import STATUS_REFUSAL

    results = run_sanitizer(sanitizer, texts, use_cache=use_cache, progress=progress)
    return [r.text for r in results], sum(1 for r in results if r.status == STATUS_REFUSAL)


def sanitized_source_ids(args: argparse.Namespace, san: list[dict[str, Any]], ids: list[str] | None,
                         original_texts: list[str]) -> list[str] | None:
    """The original id of each record of ``--sanitized`` (None: the rows pair by position), or one
    clear error. Row numbers are never ids: a file without an id column pairs by position only when it
    has one row per original; a file whose rows carry the originals' ids (or ``--source-id-column``)
    is a sanitized set, which ``--alignment none`` (synthetic data) must not evaluate unaligned."""
    source = args.sanitized
    if args.source_id_column:
        if args.source_id_column not in san[0]:
            raise ValueError(f"{source} has no column {args.source_id_column!r} (--source-id-column); columns: {', '.join(san[0])}")
        src = [str(r[args.source_id_column]) for r in san]
    elif ids is not None and all(r["id"] is not None for r in san) and {r["id"] for r in san} & set(ids):
        src = [r["id"] for r in san]  # the sanitized file keeps the originals' ids
        known = set(ids)
        unknown = next((n for n, x in enumerate(src) if x not in known), None)
        if unknown is not None:
            raise ValueError(f"{source} row {unknown} has id {src[unknown]!r}, which no original has")
    else:
        src = None
    if args.alignment == "index":  # the engine's own errors would name its arguments, not the flags
        if len(san) != len(original_texts):
            raise ValueError(f"--alignment index pairs row i of {source} with original i, but it has {len(san)} records for "
                             f"{len(original_texts)} originals. Give each sanitized record the id of its original (an 'id' "
                             "column, --id-column or --source-id-column) and leave --alignment at auto: missing records then "
                             "count as released unsanitized")
        # originals without an id column are named by row number, as the engine names them
        expected = ids if ids is not None else [str(i) for i in range(len(original_texts))]
        if src is not None and src != expected:
            j = next(n for n, (a, b) in enumerate(zip(src, expected)) if a != b)
            raise ValueError(f"--alignment index pairs rows by position, but row {j} of {source} carries the id {src[j]!r} of "
                             f"another original (original {j} is {expected[j]!r}); leave --alignment at auto to pair rows by id")
    if args.alignment == "ids" and src is None:
        raise ValueError(f"--alignment ids needs the original id of each record of {source}: an 'id' column holding the "
                         "originals' ids, --id-column or --source-id-column")
    if args.alignment == "none":
        if src is not None:
            raise ValueError(f"--alignment none is for synthetic data, but the rows of {source} carry the originals' ids: "
                             "it is a sanitized set; leave --alignment at auto (missing records then count as released "
                             "unsanitized)")
        released = [r["text"] for r in san if r["text"] is not None]
        if len(released) < sum(1 for t in original_texts if t.strip()):
            from textleak.leakage.pairing import PAIRED, text_pairing

            pairing = text_pairing(original_texts, released)
            if pairing.one_to_one:
                raise ValueError(
                    f"--alignment none is for synthetic data, but {pairing.paired} of the {len(released)} records of {source} "
                    f"each {PAIRED}: it is a "
                    "sanitized set that lost records. Give each record the id of its original (an 'id' column, --id-column "
                    "or --source-id-column) and leave --alignment at auto: missing records then count as released unsanitized")
        return None
    if src is not None and src == ids:
        return None  # one row per original, in order: the plain index alignment
    if src is None and len(san) != len(original_texts):
        from textleak.leakage.pairing import PAIRED, text_pairing

        texts = [r["text"] for r in san if r["text"] is not None]
        pairing = text_pairing(original_texts, texts)
        linked = (f" Its texts pair one-to-one with originals ({pairing.paired} of {len(texts)} {PAIRED}): it is a "
                  "sanitized set that lost rows.") if pairing.one_to_one else ""
        raise ValueError(
            f"{source} has {len(san)} records for {len(original_texts)} originals and no ids naming them, and row numbers are "
            "not ids (after "
            f"a missing row every later one would pair with the wrong original).{linked} Give each sanitized record the id of "
            "its original (an 'id' column, --id-column or --source-id-column; missing records then count as released "
            "unsanitized), or, for synthetic data only, --alignment none")
    return src


def _fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def _ci(ci: list[float] | None) -> str:
    return "" if not ci else f" [{ci[0]:.2f}, {ci[1]:.2f}]"


def format_table(rows: list[dict[str, Any]]) -> str:
    """A plain-text summary table: one row per sanitized set."""
    head = ["sanitizer", "semantic privacy [95% CI]", "lexical privacy", "linkage rate", "records", "claims scored/all",
            "unscored", "unparsed", "missing", "time"]
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
            f"{r['n_scored_claims']}/{r['n_claims']}",
            str(r["n_unscored"]),
            str(r["unparsed_claims"]),
            str(r.get("n_missing", 0)),
            f"{r['timings'].get('total_s', 0.0):.1f}s",
        ])
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(head)]
    line = "+".join("-" * (w + 2) for w in widths)
    fmt = lambda cells: " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    return "\n".join([fmt(head), line.replace("+", "|").replace("-", "-"), *(fmt(row) for row in body)])


def run(args: argparse.Namespace) -> int:
    from textleak.io import make_private_dir, read_records, write_json
    from textleak.leakage import LeakageConfig, evaluate_leakage
    from textleak.leakage.limits import RecordTooLongError

    from textleak.progress import resolve_progress

    progress = resolve_progress(args.progress)
    use_cache = args.use_cache
    originals_source = args.originals
    sanitizer_names = [s.strip() for s in args.sanitizer.split(",") if s.strip()] if args.sanitizer else []
    if originals_source is None:
        from textleak.data.vignettes import DEMO_PATH

        originals_source = str(DEMO_PATH)
        if not args.sanitized and not sanitizer_names:
            sanitizer_names = _demo_sanitizers()
        logger.info("no --originals: using the bundled synthetic MedQA demo set (%s) with sanitizers %s",
                    DEMO_PATH.name, ", ".join(sanitizer_names))
    originals = read_records(originals_source, text_column=args.text_column, id_column=args.id_column, split=args.split,
                             limit=args.limit, row_ids=False)
    has_ids = all(r["id"] is not None for r in originals)  # an id column, not row numbers
    for i, r in enumerate(originals):
        if r["id"] is None:
            r["id"] = str(i)
        if r["text"] is None:
            raise ValueError(f"{originals_source} record {i} (id {r['id']!r}) has no text")
    texts = [r["text"] for r in originals]
    ids = [r["id"] for r in originals]

    # the sanitized sets to evaluate: (name, texts, source ids or None)
    runs: list[tuple[str, list[str | None], list[str] | None]] = []
    sources: list[str] = []  # where each run's sanitized records come from, to name in an error
    refused: list[int] = []  # records each run's sanitizer refused (status 'refusal', as `textleak sanitize` writes)
    from textleak.sanitize.llm import STATUS_REFUSAL
    if args.sanitized:
        # the column a sanitizer wrote: `textleak sanitize` adds 'sanitized' and keeps the original in 'text'
        column = args.sanitized_column or ["sanitized", args.text_column]
        san = read_records(args.sanitized, text_column=column, id_column=args.id_column, split=args.split, row_ids=False)
        src = sanitized_source_ids(args, san, ids if has_ids else None, texts)
        runs.append((Path(args.sanitized).stem, [r["text"] for r in san], src))
        sources.append(args.sanitized)
        refused.append(sum(1 for r in san if r.get("sanitize_status") == STATUS_REFUSAL))
    elif args.originals and not sanitizer_names:
        column = args.sanitized_column or "sanitized"
        if column not in originals[0]:
            raise ValueError(f"nothing to evaluate: give --sanitized FILE, --sanitizer NAME, or a --sanitized-column in {args.originals} "
                             f"(columns: {', '.join(originals[0])})")
        # the row names the file, as a --sanitized row does (its column only when it is not the usual one)
        label = Path(args.originals).stem + ("" if column == "sanitized" else f":{column}")
        runs.append((label, [r.get(column) for r in originals], None))
        sources.append(f"{args.originals} (column {column!r})")
        refused.append(sum(1 for r in originals if r.get("sanitize_status") == STATUS_REFUSAL))
    optional = {"presidio"} if args.originals is None and not args.sanitizer else set()
    for name in sanitizer_names:
        t = time.perf_counter()
        try:
            outputs, n_refused = sanitize_for_evaluation(name, texts, seed=args.seed, progress=progress, use_cache=use_cache,
                                                         llm=args.llm)
        except Exception as err:  # noqa: BLE001 - only the demo's optional sanitizers may be skipped
            if name not in optional:
                raise
            logger.warning("skipping the optional %s sanitizer in the demo: %s", name, err)
            continue
        runs.append((name, outputs, None))
        sources.append(f"the output of sanitizer {name}")
        refused.append(n_refused)
        logger.info("sanitized %d records with %s in %.1fs", len(texts), name, time.perf_counter() - t)

    from textleak.config import from_args

    config = from_args(LeakageConfig, args, empty_originals="skip" if args.skip_empty_originals else "error", progress=progress)
    out_dir = make_private_dir(args.output)
    rows = []
    drill: dict[str, list[dict[str, Any]]] = {}  # records for the --html page
    for (name, san_texts, src_ids), source, n_refused in zip(runs, sources, refused):
        # a failed or null sanitized record follows --missing: by default it counts as released unsanitized
        try:
            report = evaluate_leakage(texts, san_texts, config, original_ids=ids, sanitized_ids=src_ids)
        except RecordTooLongError as err:  # one line that also names the file
            raise RecordTooLongError(f"{originals_source if err.what == 'original' else source}: {err}", err.what) from None
        report.llm_refusals = {"sanitizer": n_refused, **report.llm_refusals}  # its records count as released unsanitized
        if args.labels:
            from textleak.leakage.labels import attach_labels, read_labels

            attach_labels(report, read_labels(args.labels), unparsed=config.unparsed, source=args.labels)
        if args.utility and src_ids is None and len(san_texts) == len(originals):
            from textleak.utility import evaluate_utility

            task = args.utility
            if task == "auto":
                if not all(k in originals[0] for k in ("question", "options", "answer_idx")):
                    raise ValueError("--utility auto: the originals are not MedQA records (question/options/answer_idx); name the task")
                task = "medqa"
            util = evaluate_utility(task, originals, san_texts, args.utility_llm, coherence_judge=args.coherence, seed=args.seed,
                                    progress=progress)
            report_utility = {"task": task, "metric": util["task_metric"], "value": util["task_utility"],
                              "coherence": util.get("coherence"), "llm": args.utility_llm}
        elif args.utility:
            logger.warning("%s: utility needs one sanitized record per original; skipped", name)
            report_utility = None
        else:
            report_utility = None
        safe = "".join(ch if ch.isalnum() or ch in "-_+." else "_" for ch in name)
        report.write_records(out_dir / f"records-{safe}.jsonl")
        if args.html:
            drill[name] = [r.to_dict() for r in report.records]
        row = {"sanitizer": name, **report.summary(), "records_file": f"records-{safe}.jsonl"}
        if report_utility is not None:
            row["utility"] = report_utility
        rows.append(row)
    write_json(out_dir / "report.json", {"originals": originals_source, "n_originals": len(texts), "results": rows})
    if args.html:
        from textleak.report.evaluate_page import write_evaluate_report

        page = write_evaluate_report(out_dir, originals_source, texts, rows, drill)
        logger.info("report page: %s", page["html"])
    print(format_table(rows))
    if rows:
        r0 = rows[0]
        from textleak.judges.agreement import measured_agreement
        from textleak.report import REFUSAL_FATES, refused_counts

        print(f"\njudge: {r0['judge'].get('name')} ({measured_agreement(r0['judge'])})  linker: {r0['linker'].get('name')} ({r0['linker'].get('index', '')}, "
              f"{r0['linker'].get('query')})  k={config.k} ({config.knowledge})  seed={config.seed}")
        for r in rows:
            notes = []
            if r["n_unscored"]:
                notes.append(f"{r['n_unscored']} of {r['n_records']} records had no claim left to score beyond the k known "
                             "(left out of the mean; --short-records reduce_k keeps one)")
            if r.get("n_missing"):
                notes.append(f"{r['n_missing']} records had no sanitized version and count as released unsanitized")
            if r.get("n_tied_links"):
                notes.append(f"{r['n_tied_links']} links were score ties (broken toward the lower record id)")
            if r.get("n_non_english"):
                notes.append(f"{r['n_non_english']} records are not in English"
                             + (f", {r['n_atomizer_fallback']} split on sentence punctuation only (--atomizer llm reads "
                                "other languages)" if r.get("n_atomizer_fallback") else ""))
            if r.get("n_unreadable"):
                policy = (r.get("settings") or {}).get("unreadable", "leak")
                notes.append(f"{r['n_unreadable']} records were judged against released text in a language the judge "
                             "does not read: " + {"leak": "their claims count as leaked (--unreadable exclude leaves them out)",
                                         "exclude": "their claims are left out of the mean (--unreadable exclude)",
                                         "judge": "rated anyway (--unreadable judge)"}.get(policy, policy))
            refused = refused_counts(r.get("llm_refusals"))
            if refused:
                notes.append(f"the LLM refused: {refused} ({REFUSAL_FATES})")
            if notes:
                print(f"note ({r['sanitizer']}): " + "; ".join(notes))
        print("privacy: 0 = every claim leaks, 1 = nothing leaks. "
              f"Details: {out_dir / 'report.json'} and records-*.jsonl")
    if args.labels:
        from textleak.leakage.labels import format_corrected

        for r in rows:
            if r.get("labelled"):
                print(f"\n{r['sanitizer']}: " + format_corrected(r["labelled"]))
        if not any(r.get("labelled") for r in rows):
            logger.warning("%s: no label matches a judged claim of this run (labels are keyed by record id, claim and released "
                           "text): nothing corrected", args.labels)
    return 0
