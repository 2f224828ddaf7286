"""The whole seed-000 study for one dataset: sanitize, link, judge and measure utility for every
sanitizer, then write the report.

Each stage writes its output under ``<output>/<sanitizer>/`` (``sanitized.jsonl``, ``report.json``,
``records.jsonl``, ``utility.json``, ``linkage.json``) and is skipped when that file exists, so an
interrupted study resumes where it stopped; LLM answers, claims and judge ratings are also cached by
content underneath. ``--fresh`` (``resume=False``) recomputes the stage files (the content caches still
answer for work already done).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from textleak._version import __version__

logger = logging.getLogger(__name__)

DEMO_DATA = Path(__file__).parent / "data" / "demo_medqa.jsonl"


@dataclass
class StudyConfig:
    """Everything a study depends on (also the YAML config of ``textleak study --config``)."""

    dataset: str = "demo"  # "demo", a textleak dataset name ("medqa", "wildchat"), or a data file
    config: str | None = None  # dataset config
    split: str | None = None
    data_files: str | None = None  # local file(s) for the dataset builder
    text_column: str = "text"
    limit: int | None = None
    sanitizers: list[str] = field(default_factory=lambda: ["identity", "presidio", "remove_all"])
    sanitizer_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    llm: str = "embedded"  # for LLM sanitizers and utility
    judge: str = "embedding"
    judge_llm: str | None = None  # for judge="llm"; defaults to ``llm``
    judge_options: dict[str, Any] = field(default_factory=dict)
    linker: str = "bm25"
    k: int = 3
    aux_strategy: str = "random"
    linkage_ablation: bool = True
    utility: bool = True
    coherence: bool = False
    dp_sweep: dict[str, str] = field(default_factory=dict)  # epsilon -> synthetic data file (JSONL with "text")
    seed: int = 0
    bootstrap: int = 1000
    output: str = "textleak-study"
    drilldown_limit: int = 50

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> "StudyConfig":
        import yaml

        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"{path}: unknown study settings {unknown}; known: {sorted(cls.__dataclass_fields__)}")
        data.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(data.get("sanitizers"), str):
            data["sanitizers"] = [s.strip() for s in data["sanitizers"].split(",") if s.strip()]
        return cls(**data)


def load_study_records(cfg: StudyConfig) -> tuple[str, list[dict[str, Any]]]:
    """(dataset kind, records in the project schema) for the configured dataset."""
    from textleak.data import load

    if cfg.dataset == "demo":
        ds = load("medqa", data_files=str(DEMO_DATA), split=cfg.split)
    else:
        ds = load(cfg.dataset, cfg.config, split=cfg.split, data_files=cfg.data_files)
    if isinstance(ds.column_names, dict):  # a DatasetDict: one split only
        split = "test" if "test" in ds else next(iter(ds))
        logger.info("using split %r of %s", split, cfg.dataset)
        ds = ds[split]
    kind = "medqa" if {"question", "options", "answer_idx"} <= set(ds.column_names) else (
            "wildchat" if "task_category" in ds.column_names else "generic")
    if cfg.limit:
        ds = ds.select(range(min(cfg.limit, len(ds))))
    if cfg.text_column not in ds.column_names:
        raise KeyError(f"dataset has no column {cfg.text_column!r}; columns: {ds.column_names}")
    return kind, ds.to_list()


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    tmp.replace(path)  # a half-written file is never mistaken for a finished stage


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    tmp.replace(path)


def linkage_rates(
    originals: Sequence[str],
    sanitized: Sequence[str],
    strategies: Sequence[str] = ("first", "random", "last"),
    k: int = 3,
    linker: str = "bm25",
    seed: int = 0,
) -> dict[str, float]:
    """Correct-linkage rate of one-to-one sanitized records with the first / random / last ``k``
    claims as the adversary's knowledge (seed 000 table 3). The denominator is every original record
    with at least one claim (empty ones are skipped, as in the leakage report); an unlinked record
    counts as a miss."""
    from textleak.adversary import select_aux_indices
    from textleak.cache import DiskCache
    from textleak.claims import atomize_records, make_atomizer
    from textleak.linking import make_linker

    if len(originals) != len(sanitized):
        raise ValueError(f"linkage rates need one sanitized record per original ({len(sanitized)} vs {len(originals)})")
    atomizer = make_atomizer("rules")
    cache = DiskCache("claims")
    claims = atomize_records(list(originals), atomizer, cache=cache)
    pool = [s if s is not None else "" for s in sanitized]
    link = make_linker(linker)
    link.fit(pool, atomize_records(pool, atomizer, cache=cache) if link.needs_claims else None)
    scored = [i for i, c in enumerate(claims) if c]  # an empty original has nothing to link with
    if not scored:
        raise ValueError("no original record has any claim: nothing to link")
    out = {}
    for strategy in strategies:
        aux = select_aux_indices([len(c) for c in claims], k=k, strategy=strategy, seed=seed)
        links = link.link([[claims[i][j] for j in aux[i]] for i in scored])
        out[strategy] = sum(1 for i, l in zip(scored, links) if l.index == i) / len(scored)
    return out


def _utility(kind: str, cfg: StudyConfig, records: list[dict[str, Any]], sanitized: list[str | None]) -> dict[str, Any] | None:
    """Task utility (and coherence when configured) through :func:`textleak.utility.evaluate_utility`."""
    from textleak.utility import evaluate_utility

    if kind not in ("medqa", "wildchat"):
        return None
    res = evaluate_utility(kind, records, sanitized, cfg.llm, coherence_judge=cfg.coherence, seed=cfg.seed)
    ci = None
    if kind == "medqa":
        correct = [p == r["answer_idx"] for p, r in zip(res["medqa"]["predictions"], records)]
        ci = _bootstrap_accuracy(correct, cfg.bootstrap, cfg.seed)
    name = {"medqa": "MedQA accuracy", "wildchat": "category utility"}[kind]
    detail = {k: v for k, v in res.items() if k not in ("medqa",)}
    return {"name": name, "value": res["task_utility"], "ci95": ci, "coherence": res.get("coherence"), "detail": detail}


def _bootstrap_accuracy(correct: Sequence[bool], n_resamples: int, seed: int) -> list[float] | None:
    from textleak.leakage import bootstrap_ci

    return bootstrap_ci([1.0 if c else 0.0 for c in correct], n_resamples=n_resamples, seed=seed)


def run_study(cfg: StudyConfig, resume: bool = True, progress: bool = True) -> dict[str, Any]:
    """Run every stage for every sanitizer (skipping finished stages when ``resume``) and write the
    report; returns the study result (the schema of :mod:`textleak.report`)."""
    from datasets import Dataset

    from textleak.leakage import evaluate_leakage
    from textleak.report import write_report
    from textleak.sanitization import apply_sanitizer, create_sanitizer

    out = Path(cfg.output)
    out.mkdir(parents=True, exist_ok=True)
    _write_json(out / "config.json", asdict(cfg))
    kind, records = load_study_records(cfg)
    originals = [r[cfg.text_column] for r in records]
    ids = [str(r.get("id", i)) for i, r in enumerate(records)]
    logger.info("study on %s (%s): %d records, sanitizers %s", cfg.dataset, kind, len(records), ", ".join(cfg.sanitizers))
    rows, drill, timings = [], {}, {}

    for name in cfg.sanitizers:
        t0 = time.perf_counter()
        sdir = out / name.replace("/", "_")
        sdir.mkdir(exist_ok=True)
        # 1. sanitize
        san_file = sdir / "sanitized.jsonl"
        if resume and san_file.exists():
            san_rows = _read_jsonl(san_file)
        else:
            opts = dict(cfg.sanitizer_options.get(name, {}))
            sanitizer = create_sanitizer(name, **opts)
            if "llm" in sanitizer.get_config() and "llm" not in opts:
                sanitizer = create_sanitizer(name, llm=cfg.llm, **opts)
            if sanitizer.requires_fit:  # e.g. SANTEXT's word frequencies come from the private corpus
                sanitizer.fit(originals)
            ds = apply_sanitizer(Dataset.from_dict({"id": ids, "text": originals}), sanitizer, text_column="text")
            san_rows = [{"id": i, "sanitized": s, "status": st} for i, s, st in
                        zip(ds["id"], ds[sanitizer.output_column], ds[sanitizer.status_column])]
            _write_jsonl(san_file, san_rows)
        failed = sum(1 for r in san_rows if r["sanitized"] is None)
        if failed:
            # fail toward leakage: a record the sanitizer could not process is released as it was,
            # never dropped (a dropped record would be judged against some other record and look private)
            logger.warning("%s failed on %d of %d records: they count as released unsanitized", name, failed, len(san_rows))
        raw = [r["sanitized"] for r in san_rows]  # utility counts a failed record as a wrong answer
        sanitized = [t if t is not None else o for t, o in zip(raw, originals)]
        # 2. leakage (failed records are missing from the release, not free privacy)
        rep_file = sdir / "report.json"
        if resume and rep_file.exists() and (sdir / "records.jsonl").exists():
            summary = json.loads(rep_file.read_text(encoding="utf-8"))
            rec_rows = _read_jsonl(sdir / "records.jsonl")
        else:
            report = evaluate_leakage(
                originals, sanitized, original_ids=ids, alignment="index", judge=cfg.judge,
                llm=_judge_llm(cfg), judge_options=cfg.judge_options, linker=cfg.linker, k=cfg.k,
                aux_strategy=cfg.aux_strategy, seed=cfg.seed, bootstrap=cfg.bootstrap, progress=progress,
                empty_originals="skip",  # reported as skipped; MedQA has items whose whole vignette is the question
            )
            report.write(sdir)
            summary, rec_rows = report.summary(), [r.to_dict() for r in report.records]
        # 3. linkage ablation
        linkage = None
        if cfg.linkage_ablation:
            lfile = sdir / "linkage.json"
            if resume and lfile.exists():
                linkage = json.loads(lfile.read_text(encoding="utf-8"))
            else:
                linkage = linkage_rates(originals, sanitized, k=cfg.k, linker=cfg.linker, seed=cfg.seed)
                _write_json(lfile, linkage)
        # 4. utility (+ coherence)
        util = None
        if cfg.utility:
            ufile = sdir / "utility.json"
            if resume and ufile.exists():
                util = json.loads(ufile.read_text(encoding="utf-8"))
            else:
                util = _utility(kind, cfg, records, raw)
                _write_json(ufile, util)
        coherence_value = util.get("coherence") if util else None
        ci = summary.get("ci95") or {}
        rows.append({
            "sanitizer": name,
            "semantic_privacy": summary.get("semantic_privacy"),
            "semantic_ci95": ci.get("semantic_privacy"),
            "lexical_privacy": summary.get("lexical_privacy"),
            "lexical_ci95": ci.get("lexical_privacy"),
            "linkage_rate": summary.get("linkage_rate"),
            "utility_name": util["name"] if util else None,
            "utility": util["value"] if util else None,
            "utility_ci95": util.get("ci95") if util else None,
            "coherence": coherence_value,
            "unparsed_claims": summary.get("unparsed_claims", 0),
            "failed_records": failed,
            "n_records": len(records),
            **({"linkage": linkage} if linkage else {}),
        })
        drill[name] = [_drill_row(r, originals, sanitized) for r in rec_rows]
        timings[name] = time.perf_counter() - t0
        logger.info("%s done in %.1fs", name, timings[name])

    dp_sweep = []
    for eps, path in sorted(cfg.dp_sweep.items(), key=lambda kv: float("inf") if str(kv[0]) in ("inf", "none") else float(kv[0])):
        synth = [r["text"] for r in _read_jsonl(Path(path))]
        rep = evaluate_leakage(originals, synth, original_ids=ids, alignment="none", judge=cfg.judge,
                               llm=_judge_llm(cfg), judge_options=cfg.judge_options, linker=cfg.linker, k=cfg.k, seed=cfg.seed, bootstrap=cfg.bootstrap)
        dp_sweep.append({"epsilon": eps, "semantic_privacy": rep.semantic_privacy, "lexical_privacy": rep.lexical_privacy,
                         "n_synthetic": len(synth)})

    result = {
        "dataset": cfg.dataset, "kind": kind, "n_records": len(records), "textleak_version": __version__,
        "settings": {k: v for k, v in asdict(cfg).items() if k not in ("output",)}, "timings_s": timings,
        "rows": rows, **({"dp_sweep": dp_sweep} if dp_sweep else {}), "records": drill,
    }
    result["paths"] = {k: str(v) for k, v in write_report(result, out, cfg.drilldown_limit).items()}
    return result


def _judge_llm(cfg: StudyConfig) -> str | None:
    return (cfg.judge_llm or cfg.llm) if cfg.judge == "llm" else None


def _drill_row(rec: dict[str, Any], originals: Sequence[str], pool: Sequence[str]) -> dict[str, Any]:
    """One record of the report's drill-down (``pool``: the released sanitized records)."""
    li = rec.get("linked_index")
    return {
        "id": rec.get("id"),
        "original": originals[rec["index"]],
        "linked_id": rec.get("linked_id"),
        "linked_text": pool[li] if li is not None else None,
        "link_score": rec.get("link_score"),
        "aux_claims": rec.get("known_claims", []),
        "claims": [c for c in rec.get("claims", []) if not c.get("aux")],
    }
