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
from textleak.io import make_private_dir, read_jsonl, write_json, write_jsonl
from textleak.leakage.config import LeakageConfig

logger = logging.getLogger(__name__)

DEMO_DATA = Path(__file__).parent / "data" / "demo_medqa.jsonl"


def _sanitizer_names() -> list[str]:
    from textleak.registry import sanitizers

    return sanitizers.names()


@dataclass
class StudyConfig:
    """Everything a study depends on (also the YAML config of ``textleak study --config``; the
    ``leakage`` section holds :class:`~textleak.leakage.LeakageConfig`'s fields)."""

    dataset: str = field(default="demo", metadata={"help": "'demo' (bundled), a dataset name (medqa, wildchat, ...) or a data file"})
    config: str | None = field(default=None, metadata={"help": "dataset config (e.g. fixture, pupa_tnb)", "flag": "--dataset-config"})
    split: str | None = field(default=None, metadata={"help": "dataset split"})
    data_files: str | None = field(default=None, metadata={"help": "local file(s) for the dataset, e.g. ../shared/data/medqa/sampled_50.jsonl"})
    text_column: str = field(default="text", metadata={"help": "the private text column"})
    limit: int | None = field(default=None, metadata={"help": "use only the first N records"})
    sanitizers: list[str] = field(default_factory=lambda: ["identity", "presidio", "remove_all"], metadata={
        "help": "comma-separated registered sanitizer names", "cli": False})
    sanitizer_options: dict[str, dict[str, Any]] = field(default_factory=dict, metadata={"help": "options per sanitizer", "cli": False})
    llm: str = field(default="embedded", metadata={"help": "LLM spec for LLM sanitizers and utility"})
    linkage_ablation: bool = field(default=True, metadata={"help": "correct-linkage rate with first / random / last known claims",
                                                           "off_help": "skip the ablation of the correct-linkage rate with first / random / last known claims"})
    utility: bool = field(default=True, metadata={"help": "measure task utility"})
    coherence: bool = field(default=False, metadata={"help": "also rate coherence 1-5 with --llm"})
    dp_sweep: dict[str, str] = field(default_factory=dict, metadata={
        "help": "epsilon -> synthetic data file (JSONL with 'text') to place on the DP sweep plot", "cli": False})
    output: str = field(default="textleak-study", metadata={"help": "output folder"})
    drilldown_limit: int = field(default=50, metadata={
        "help": "records per sanitizer in report.html's drill-down, which shows original (private) text; 0 for none",
        "flag": "--drilldown"})
    leakage: LeakageConfig = field(default_factory=LeakageConfig, metadata={"help": "the leakage pipeline's options", "cli": False})

    def __post_init__(self) -> None:
        if isinstance(self.leakage, dict):
            self.leakage = LeakageConfig(**self.leakage)
        if isinstance(self.sanitizers, str):
            self.sanitizers = [x.strip() for x in self.sanitizers.split(",") if x.strip()]

    @property
    def judge_llm(self) -> str | None:
        """The LLM of an LLM judge: the leakage section's, else the study's ``llm``."""
        return self.leakage.llm if self.leakage.llm is not None else self.llm

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> "StudyConfig":
        import yaml

        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"{path}: unknown study settings {unknown}; known: {sorted(cls.__dataclass_fields__)}")
        leakage = {**(data.pop("leakage", None) or {}), **(overrides.pop("leakage", None) or {})}
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**data, leakage=LeakageConfig(**leakage))


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


def _damaged_stage(path: Path, problem: str) -> ValueError:
    return ValueError(f"study file {path} is damaged ({problem}): it was cut short or edited. Rerun with --fresh "
                      "(run_study(resume=False)), or delete that file to recompute its stage")


def _read_jsonl(path: Path, stage: bool = True) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file (:func:`textleak.io.read_jsonl`); a bad line is one error naming the
    file and the line (for a stage file, what to do: it is recomputed by --fresh)."""
    try:
        return read_jsonl(path)
    except ValueError as e:
        if stage:
            raise _damaged_stage(path, str(e).removeprefix(f"{path} ")) from None
        raise


def _read_json(path: Path) -> Any:
    """A stage's JSON file; a damaged one is one error naming it and what to do."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise _damaged_stage(path, str(e)) from None


def linkage_rates(
    originals: Sequence[str],
    sanitized: Sequence[str],
    strategies: Sequence[str] = ("first", "random", "last"),
    config: LeakageConfig | None = None,
) -> dict[str, float]:
    """Correct-linkage rate of one-to-one sanitized records with the first / random / last ``k``
    claims as the adversary's knowledge (seed 000 table 3), with the configured atomizer and linker.

    Computed by the leakage pipeline's own stages (inputs, normalisation, claims, knowledge with its
    seed and short-record policy, linking, and the report's rule for a correct link), so the rate for
    the strategy the leakage report used is the report's ``linkage_rate``, not a second draw: a page
    shows one figure per strategy. The denominator is every original record with at least one claim
    (empty ones are skipped, as in the leakage report); an unlinked record counts as a miss."""
    from textleak.leakage.atomize import atomize_originals, atomizer_for
    from textleak.leakage.inputs import prepare_inputs
    from textleak.leakage.knowledge import choose_knowledge
    from textleak.leakage.link import link_records, linker_for

    config = (config or LeakageConfig()).replace(alignment="index", empty_originals="skip", paraphrase_knowledge=False)
    if len(originals) != len(sanitized):
        raise ValueError(f"linkage rates need one sanitized record per original ({len(sanitized)} vs {len(originals)})")
    inputs = prepare_inputs(list(originals), list(sanitized), None, None, config)
    atomizer = atomizer_for(config)
    claims = atomize_originals(inputs.originals, inputs.active, atomizer, config)
    scored = [i for i in inputs.active if claims[i]]  # an empty original has nothing to link with
    if not scored:
        raise ValueError("no original record has any claim: nothing to link")
    linker = linker_for(config)
    out = {}
    for strategy in strategies:
        _, known, _ = choose_knowledge(claims, scored, config.replace(knowledge=strategy))
        links = link_records(inputs.pool, known, scored, linker, atomizer, config)
        correct = 0
        for i in scored:  # the report's rule: the linked record came from an original with this text
            src = inputs.source_of[links[i].index] if links[i].index is not None else None
            correct += int(src is not None and inputs.originals[src] == inputs.originals[i])
        out[strategy] = correct / len(scored)
    return out


def _utility(kind: str, cfg: StudyConfig, records: list[dict[str, Any]], sanitized: list[str | None]) -> dict[str, Any] | None:
    """Task utility (and coherence when configured) through :func:`textleak.utility.evaluate_utility`."""
    from textleak.utility import evaluate_utility

    if kind not in ("medqa", "wildchat"):
        return None
    res = evaluate_utility(kind, records, sanitized, cfg.llm, coherence_judge=cfg.coherence, seed=cfg.leakage.seed)
    ci = None
    if kind == "medqa":
        correct = [p == r["answer_idx"] for p, r in zip(res["medqa"]["predictions"], records)]
        ci = _bootstrap_accuracy(correct, cfg.leakage.bootstrap, cfg.leakage.seed)
    name = {"medqa": "MedQA accuracy", "wildchat": "category utility"}[kind]
    detail = {k: v for k, v in res.items() if k not in ("medqa",)}
    return {"name": name, "value": res["task_utility"], "ci95": ci, "coherence": res.get("coherence"), "detail": detail}


def _bootstrap_accuracy(correct: Sequence[bool], n_resamples: int, seed: int) -> list[float] | None:
    from textleak.leakage import bootstrap_ci

    return bootstrap_ci([1.0 if c else 0.0 for c in correct], n_resamples=n_resamples, seed=seed)


class _Stages:
    """The study's stage files under one folder, each reused only when its fingerprint matches.

    A fingerprint is a hash of everything a stage's result depends on (the data, the sanitizer and
    its options, the leakage settings, the utility model, the textleak version), kept in
    ``stages.json`` beside the files; a rerun with other settings or other data recomputes the stage
    instead of showing old numbers under new labels.
    """

    def __init__(self, folder: Path, resume: bool):
        self.folder = folder
        self.resume = resume
        self.index_file = folder / "stages.json"
        self.keys = _read_json(self.index_file) if resume and self.index_file.exists() else {}
        if not isinstance(self.keys, dict):
            raise _damaged_stage(self.index_file, "not a JSON object")

    def fresh(self, stage: str, fingerprint: str, *files: str) -> bool:
        """True when ``stage`` was computed with this fingerprint and all its files exist."""
        return self.resume and self.keys.get(stage) == fingerprint and all((self.folder / f).exists() for f in files)

    def done(self, stage: str, fingerprint: str) -> None:
        self.keys[stage] = fingerprint
        write_json(self.index_file, self.keys)


def run_study(cfg: StudyConfig, resume: bool = True, progress: bool | None = None) -> dict[str, Any]:
    """Run every stage for every sanitizer (skipping finished stages when ``resume`` and their
    fingerprint matches) and write the report; returns the study result (the schema of
    :mod:`textleak.report`). ``progress``: bars (None: when a person is watching, :mod:`textleak.progress`)."""
    from textleak.progress import resolve_progress

    progress = resolve_progress(progress)
    from textleak import sanitize
    from textleak.sanitize.llm import STATUS_REFUSAL
    from textleak.cache import content_hash
    from textleak.leakage import evaluate_leakage
    from textleak.registry import sanitizers as sanitizer_registry
    from textleak.report import write_report

    out = Path(cfg.output)
    make_private_dir(out)
    write_json(out / "config.json", asdict(cfg))
    kind, records = load_study_records(cfg)
    originals = [r[cfg.text_column] for r in records]
    ids = [str(r.get("id", i)) for i, r in enumerate(records)]
    data_key = content_hash("study-data", __version__, ids, records)
    leakage_config = _leakage_config(cfg, progress)
    leakage_key = content_hash(data_key, _key_part(leakage_config.settings()))
    utility_key = content_hash(data_key, _key_part(cfg.llm), cfg.coherence, cfg.leakage.seed)
    logger.info("study on %s (%s): %d records, sanitizers %s", cfg.dataset, kind, len(records), ", ".join(cfg.sanitizers))
    rows, drill, timings = [], {}, {}
    judge_description: dict[str, Any] | None = None
    validity = _utility_validity(kind, cfg, records, originals, _Stages(out, resume), utility_key) if cfg.utility else None

    for name in cfg.sanitizers:
        t0 = time.perf_counter()
        sdir = out / name.replace("/", "_")
        make_private_dir(sdir)
        stages = _Stages(sdir, resume)
        opts = dict(cfg.sanitizer_options.get(name, {}))
        if getattr(sanitizer_registry.get(name), "needs_llm", False):
            opts.setdefault("llm", cfg.llm)
        san_key = content_hash(data_key, name, _key_part(opts))
        # 1. sanitize
        if stages.fresh("sanitize", san_key, "sanitized.jsonl"):
            san_rows = _read_jsonl(sdir / "sanitized.jsonl")
        else:
            sanitizer = sanitize.create_sanitizer(name, **opts)
            if sanitizer.requires_fit:  # e.g. SANTEXT's word frequencies come from the private corpus
                sanitizer.fit(originals)
            results = sanitize.run_sanitizer(sanitizer, originals, use_cache=cfg.leakage.use_cache, progress=progress)
            san_rows = [{"id": i, "sanitized": r.text, "status": r.status} for i, r in zip(ids, results)]
            write_jsonl(sdir / "sanitized.jsonl", san_rows)
            stages.done("sanitize", san_key)
        raw = [r["sanitized"] for r in san_rows]  # utility counts a failed record as a wrong answer
        failed = sum(1 for t in raw if t is None)
        if failed:
            logger.warning("%s failed on %d of %d records: they count as released unsanitized", name, failed, len(raw))
        # fail toward leakage: a record the sanitizer could not process is released as it was (the
        # pipeline's missing="original"), never dropped
        released = sanitize.released_texts(originals, raw, on_failure="original")
        # 2. leakage
        key = content_hash(san_key, leakage_key)
        if stages.fresh("leakage", key, "report.json", "records.jsonl"):
            summary = _read_json(sdir / "report.json")
            rec_rows = _read_jsonl(sdir / "records.jsonl")
        else:
            report = evaluate_leakage(
                originals, raw, leakage_config, original_ids=ids, alignment="index",
                empty_originals="skip",  # reported as skipped; MedQA has items whose whole vignette is the question
            )
            report.write(sdir)
            summary, rec_rows = report.summary(), [r.to_dict() for r in report.records]
            stages.done("leakage", key)
        # 3. linkage ablation
        linkage = None
        if cfg.linkage_ablation:
            key = content_hash(san_key, leakage_key, "linkage-v2")  # v2: the pipeline's stages and rule (one figure per strategy)
            if stages.fresh("linkage", key, "linkage.json"):
                linkage = _read_json(sdir / "linkage.json")
            else:
                linkage = linkage_rates(originals, released, config=cfg.leakage)
                write_json(sdir / "linkage.json", linkage)
                stages.done("linkage", key)
        # 4. utility (+ coherence)
        util = None
        if cfg.utility:
            key = content_hash(san_key, utility_key)
            if stages.fresh("utility", key, "utility.json"):
                util = _read_json(sdir / "utility.json")
            else:
                util = _utility(kind, cfg, records, raw)
                write_json(sdir / "utility.json", util)
                stages.done("utility", key)
        labelled = None
        if (sdir / "labels.jsonl").exists():  # hand labels written by `textleak label` (docs/ppi.md)
            from textleak.leakage.labels import corrected_privacy, read_labels

            try:
                labelled = corrected_privacy(rec_rows, read_labels(sdir / "labels.jsonl"), unparsed=leakage_config.unparsed,
                                             judge_ci=(summary.get("ci95") or {}).get("semantic_privacy"),
                                             source=str(sdir / "labels.jsonl"))
            except ValueError as err:  # the judge-alone figure stays; the labels' problem is named
                logger.warning("%s: labels not used: %s", sdir / "labels.jsonl", err)
        judge_description = summary.get("judge") or judge_description
        ci = summary.get("ci95") or {}
        valid = validity is None or validity["valid"]
        rows.append({
            "sanitizer": name,
            "semantic_privacy": summary.get("semantic_privacy"),
            "semantic_ci95": ci.get("semantic_privacy"),
            "lexical_privacy": summary.get("lexical_privacy"),
            "lexical_ci95": ci.get("lexical_privacy"),
            "linkage_rate": summary.get("linkage_rate"),
            "utility_name": util["name"] if util else None,
            "utility": util["value"] if util and valid else None,
            "utility_ci95": util.get("ci95") if util and valid else None,
            "utility_note": "" if valid else validity["reason"],
            "coherence": util.get("coherence") if util and valid else None,
            "unparsed_claims": summary.get("unparsed_claims", 0),
            "failed_records": failed,
            "labelled": labelled,
            "n_records": len(records),
            "n_scored_claims": summary.get("n_scored_claims"),
            "n_claims": summary.get("n_claims"),
            "n_unscored": summary.get("n_unscored"),
            # refused answers (textleak.llm.refusals): the sanitizer's records (released unsanitized) and the pipeline's
            "llm_refusals": {"sanitizer": sum(1 for r in san_rows if r.get("status") == STATUS_REFUSAL),
                             **(summary.get("llm_refusals") or {})},
            **({"linkage": linkage} if linkage else {}),
        })
        drill[name] = [_drill_row(r, originals, released) for r in rec_rows]
        timings[name] = time.perf_counter() - t0
        logger.info("%s done in %.1fs", name, timings[name])

    dp_sweep = []
    for eps, path in sorted(cfg.dp_sweep.items(), key=lambda kv: float("inf") if str(kv[0]) in ("inf", "none") else float(kv[0])):
        synth = [r["text"] for r in _read_jsonl(Path(path), stage=False)]
        rep = evaluate_leakage(originals, synth, leakage_config.replace(progress=False), original_ids=ids, alignment="none")
        dp_sweep.append({"epsilon": eps, "semantic_privacy": rep.semantic_privacy, "lexical_privacy": rep.lexical_privacy,
                         "n_synthetic": len(synth)})

    result = {
        "dataset": cfg.dataset, "kind": kind, "n_records": len(records), "textleak_version": __version__,
        "settings": {k: v for k, v in asdict(cfg).items() if k not in ("output",)}, "timings_s": timings,
        "judge": judge_description, "rows": rows, **({"dp_sweep": dp_sweep} if dp_sweep else {}), "records": drill,
        **({"utility_validity": validity} if validity else {}),
    }
    result["paths"] = {k: str(v) for k, v in write_report(result, out, cfg.drilldown_limit).items()}
    return result


def _utility_validity(kind: str, cfg: StudyConfig, records: list[dict[str, Any]], originals: list[str], stages: _Stages,
                      key: str) -> dict[str, Any] | None:
    """Whether the utility model measures anything: its utility on the unsanitized records against
    chance (:func:`textleak.utility.utility_validity`); computed once per study."""
    from textleak.utility import evaluate_utility, utility_validity

    if kind not in ("medqa", "wildchat"):
        return None
    if stages.fresh("utility_reference", key, "utility_reference.json"):
        return _read_json(stages.folder / "utility_reference.json")
    reference = evaluate_utility(kind, records, originals, cfg.llm, coherence_judge=False, seed=cfg.leakage.seed)
    validity = utility_validity(kind, reference)
    if not validity["valid"]:
        logger.warning("utility is not reported: %s", validity["reason"])
    write_json(stages.folder / "utility_reference.json", validity)
    stages.done("utility_reference", key)
    return validity


def _key_part(value: Any) -> Any:
    """A JSON-able stand-in for a stage fingerprint: objects (an LLM, a judge) by their ``describe()``."""
    if isinstance(value, dict):
        return {str(k): _key_part(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_key_part(v) for v in value]
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    describe = getattr(value, "describe", None)
    return describe() if callable(describe) else repr(value)


def _leakage_config(cfg: StudyConfig, progress: bool) -> LeakageConfig:
    """The study's leakage options; an LLM judge uses the study's ``llm`` unless the section names one."""
    return cfg.leakage.replace(llm=cfg.judge_llm, progress=progress)


def _drill_row(rec: dict[str, Any], originals: Sequence[str], pool: Sequence[str]) -> dict[str, Any]:
    """One record of the report's drill-down (``pool``: the released sanitized records)."""
    li = rec.get("linked_index")
    return {
        "id": rec.get("id"),
        "original": originals[rec["index"]],
        "linked_id": rec.get("linked_id"),
        "linked_text": pool[li] if li is not None else None,
        "link_score": rec.get("link_score"),
        "known_claims": rec.get("known_claims", []),
        "claims": [c for c in rec.get("claims", []) if not c.get("known")],
    }
