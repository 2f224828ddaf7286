"""The semantic-leakage pipeline of seed 000 ("A False Sense of Privacy"), end to end.

``evaluate_leakage(originals, sanitized)`` runs:

1. atomize every original record into claims (cached by content: computed once per original set and
   reused for every sanitizer evaluated against it);
2. give the adversary k claims per record (random, seeded per record; or first / last k; optionally
   paraphrased);
3. link each original to one sanitized record from those claims (BM25 by default);
4. let a judge rate every *other* claim of the original against the linked record: 1 same, 2 similar,
   3 unsupported, normalised to (r-1)/2;
5. aggregate: a record's privacy is the mean normalised rating of its non-aux claims; the set's
   semantic privacy is the mean over original records (eq. 1); plus the lexical baseline
   1 - ROUGE-L(original, linked), the correct-linkage rate and linkage@k when the true alignment is
   known, and bootstrap 95% intervals.

Policies (each pinned by a test; see docs/semantic_leakage.md):

- an empty sanitized record is legitimate (what "remove all information" produces): it supports no
  claim, so its claims are rated 3 without calling the judge;
- ``None`` in the sanitized set is an error by default (it is what a failed sanitizer returns;
  treating it as empty would turn a failure into privacy); ``missing="drop"`` treats it as a record
  the sanitizer withheld;
- an unlinked record (no sanitized record shares a single term with the adversary's claims) is
  counted in every denominator and reported; by default its claims are rated against nothing, i.e. 3
  (``unlinked="score_empty"``: the adversary learned nothing), or it is left out of the privacy mean
  (``unlinked="skip"``, the released code's behaviour);
- a claim whose judge answer could not be parsed is reported (``unparsed_claims``) and left out of its
  record's mean (``unparsed="exclude"``), or counted as full leakage (``unparsed="leak"``); a record
  with no scorable claim (all claims known to the adversary, or all unparsed) is reported as unscored;
- empty original records are an error naming the record (``empty_originals="skip"`` skips them,
  reported).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from textleak._version import __version__
from textleak.adversary import AuxParaphraser, select_aux_indices
from textleak.cache import DiskCache, content_hash
from textleak.claims import Atomizer, atomize_records, make_atomizer
from textleak.judges.base import OK, UNPARSED, ClaimRating, Judge
from textleak.lexical import lexical_privacy
from textleak.linking import Linker, make_linker
from textleak.sanitization import record_seed

logger = logging.getLogger(__name__)


@dataclass
class RecordResult:
    """One original record's evaluation (a line of the per-record JSONL)."""

    index: int
    id: str
    status: str  # ok | unlinked | unscored | skipped_empty
    claims: list[dict[str, Any]]  # {text, aux, rating, score, status}
    known_claims: list[str]  # what the adversary used (paraphrased when enabled)
    linked_index: int | None
    linked_id: str | None
    link_score: float
    correct_link: bool | None
    true_rank: int | None  # 1-based rank of the true record in the linker's top list, when known
    privacy: float | None
    lexical_privacy: float | None
    unparsed_claims: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LeakageReport:
    semantic_privacy: float | None
    lexical_privacy: float | None
    linkage_rate: float | None
    linkage_at_k: dict[str, float] | None
    n_records: int
    n_sanitized: int
    n_claims: int
    n_scored_claims: int
    unparsed_claims: int
    n_unlinked: int
    n_unscored: int
    n_skipped: int
    ci95: dict[str, list[float] | None]
    judge: dict[str, Any]
    atomizer: dict[str, Any]
    linker: dict[str, Any]
    settings: dict[str, Any]
    records: list[RecordResult] = field(default_factory=list, repr=False)
    timings: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Everything but the per-record details (what ``report.json`` and the metric return)."""
        d = {k: v for k, v in asdict(self).items() if k != "records"}
        d["textleak_version"] = __version__
        return d

    def write(self, folder: str | Path, name: str = "") -> dict[str, Path]:
        """``report.json`` (summary) and ``records.jsonl`` (one line per original record)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        prefix = f"{name}." if name else ""
        report = folder / f"{prefix}report.json"
        records = folder / f"{prefix}records.jsonl"
        report.write_text(json.dumps(self.summary(), indent=2, ensure_ascii=False), encoding="utf-8")
        self.write_records(records)
        return {"report": report, "records": records}

    def write_records(self, path: str | Path) -> Path:
        """One JSON line per original record: claims with ratings, known claims, link and scores."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            for r in self.records:
                f.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
        return path


# ---------------------------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------------------------


def _check_texts(texts: Any, what: str, allow_none: bool = False) -> list:
    if texts is None:
        raise ValueError(f"{what} is None: pass a list of strings")
    if isinstance(texts, str):
        raise TypeError(f"{what} is a single string: pass a list of strings (one per record)")
    texts = list(texts)
    for i, t in enumerate(texts):
        if t is None and allow_none:
            continue
        if t is None:
            raise ValueError(
                f"{what} record {i} is None. A failed sanitization must not count as an empty (private) record: "
                "fix or drop it, or pass missing='drop' to treat None as a record the sanitizer withheld"
            )
        if not isinstance(t, str):
            raise TypeError(f"{what} record {i} is {type(t).__name__}, expected a string")
    return texts


def _resolve_alignment(alignment: str, n_orig: int, n_san: int, sanitized_ids: Sequence[str] | None) -> str:
    if alignment not in ("auto", "index", "ids", "none"):
        raise ValueError(f"alignment must be auto, index, ids or none, got {alignment!r}")
    if alignment == "auto":
        if sanitized_ids is not None:
            return "ids"
        return "index" if n_orig == n_san else "none"
    if alignment == "index" and n_orig != n_san:
        raise ValueError(
            f"alignment='index' declares one sanitized record per original, but there are {n_orig} originals and "
            f"{n_san} sanitized records (pass alignment='none' for synthetic data, or sanitized_ids for missing records)"
        )
    if alignment == "ids" and sanitized_ids is None:
        raise ValueError("alignment='ids' needs sanitized_ids: the original id each sanitized record came from")
    return alignment


def bootstrap_ci(values: Sequence[float], n_resamples: int = 1000, seed: int = 0, alpha: float = 0.05) -> list[float] | None:
    """Percentile bootstrap interval of the mean (records resampled with replacement)."""
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    if arr.size == 0 or n_resamples <= 0:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, 200):  # bounded memory for large sets
        stop = min(n_resamples, start + 200)
        means[start:stop] = arr[rng.integers(0, arr.size, size=(stop - start, arr.size))].mean(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return [float(lo), float(hi)]


# ---------------------------------------------------------------------------------------------
# judging with a resumable cache
# ---------------------------------------------------------------------------------------------


def _rate_with_cache(judge: Judge, jobs: list[tuple[list[str], str, int]], cache: DiskCache | None,
                     batch_records: int, progress: bool, desc: str) -> list[list[ClaimRating]]:
    """Ratings for (claims, document, seed) jobs. Empty documents rate 3 without the judge; the rest
    are judged in batches whose results are saved as they come, so a failed run resumes."""
    settings = judge.describe()
    out: list[list[ClaimRating] | None] = [None] * len(jobs)
    keys = [content_hash("ratings", settings, claims, doc, seed) for claims, doc, seed in jobs]
    found = cache.get_many(set(keys)) if cache is not None else {}
    todo = []
    for j, (claims, doc, _) in enumerate(jobs):
        if not claims:
            out[j] = []
        elif not doc.strip():
            out[j] = [ClaimRating(3, 1.0, OK, {"reason": "empty document"}) for _ in claims]
        elif keys[j] in found:
            out[j] = [ClaimRating(r["rating"], r["score"], r["status"], r.get("detail", {})) for r in found[keys[j]]]
        else:
            todo.append(j)
    if todo:
        from tqdm.auto import tqdm

        from textleak.distributed import rate_sharded

        bar = tqdm(total=len(todo), desc=desc, unit="rec", disable=not progress, leave=False)
        for start in range(0, len(todo), batch_records):
            chunk = todo[start : start + batch_records]
            # under `accelerate launch` each process rates a share of the batch and all get the whole
            ratings = rate_sharded(judge, [jobs[j][0] for j in chunk], [jobs[j][1] for j in chunk], [jobs[j][2] for j in chunk])
            if len(ratings) != len(chunk):
                raise RuntimeError(f"judge {settings.get('name')} returned {len(ratings)} rating lists for {len(chunk)} documents")
            fresh = {}
            for j, rs in zip(chunk, ratings):
                if len(rs) != len(jobs[j][0]):
                    raise RuntimeError(f"judge returned {len(rs)} ratings for {len(jobs[j][0])} claims")
                out[j] = list(rs)
                if all(r.status == OK for r in rs):  # unparsed answers are retried on the next run
                    fresh[keys[j]] = [r.to_dict() for r in rs]
            if cache is not None:
                cache.set_many(fresh)
            bar.update(len(chunk))
        bar.close()
    return out  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# the pipeline
# ---------------------------------------------------------------------------------------------


def evaluate_leakage(
    originals: Sequence[str],
    sanitized: Sequence[str | None],
    *,
    original_ids: Sequence[Any] | None = None,
    sanitized_ids: Sequence[Any] | None = None,
    alignment: str = "auto",
    judge: "str | Judge" = "embedding",
    llm: Any = None,
    judge_options: dict[str, Any] | None = None,
    atomizer: "str | Atomizer" = "rules",
    linker: "str | Linker" = "bm25",
    k: int = 3,
    aux_strategy: str = "random",
    paraphrase_aux: bool = False,
    seed: int = 0,
    lexical_variant: str = "paper",
    unlinked: str = "score_empty",
    unparsed: str = "exclude",
    empty_originals: str = "error",
    missing: str = "error",
    bootstrap: int = 1000,
    linkage_ks: Sequence[int] = (1, 5, 10),
    original_claims: Sequence[Sequence[str]] | None = None,
    use_cache: bool = True,
    judge_batch_records: int = 64,
    progress: bool = False,
) -> LeakageReport:
    """Semantic and lexical leakage of ``sanitized`` with respect to ``originals``.

    ``alignment``: ``"index"`` when ``sanitized[i]`` came from ``originals[i]``; ``"ids"`` with
    ``sanitized_ids`` (the original id each sanitized record came from) when some are missing or
    reordered; ``"none"`` for synthetic sets (no linkage rate); ``"auto"`` picks ids when given, else
    index when the sizes match, else none. ``judge``/``llm``/``judge_options`` go to
    :func:`textleak.judges.make_judge`; ``atomizer`` is ``"rules"`` (default) or ``"llm"`` (uses ``llm``)
    or an Atomizer; ``linker`` is ``"bm25"`` (paper), ``"bm25-release"``, ``"rouge"``, ``"dense"`` or a
    Linker. See the module docstring for the policies on empty, missing, unlinked and unparsed input.
    """
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    for name, value, allowed in (("unlinked", unlinked, ("score_empty", "skip")), ("unparsed", unparsed, ("exclude", "leak")),
                                 ("empty_originals", empty_originals, ("error", "skip")), ("missing", missing, ("error", "drop")),
                                 ("lexical_variant", lexical_variant, ("paper", "release"))):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    originals = _check_texts(originals, "originals")
    if not originals:
        raise ValueError("originals is empty: there is nothing to evaluate")
    sanitized = _check_texts(sanitized, "sanitized", allow_none=(missing == "drop"))
    ids = [str(x) for x in original_ids] if original_ids is not None else [str(i) for i in range(len(originals))]
    if len(ids) != len(originals):
        raise ValueError(f"{len(ids)} original ids for {len(originals)} originals")
    if len(set(ids)) != len(ids):
        dup = next(x for x in ids if ids.count(x) > 1)
        raise ValueError(f"original id {dup!r} appears more than once")
    if sanitized_ids is not None and len(sanitized_ids) != len(sanitized):
        raise ValueError(f"{len(sanitized_ids)} sanitized ids for {len(sanitized)} sanitized records")
    mode = _resolve_alignment(alignment, len(originals), len(sanitized), sanitized_ids)

    # the sanitized pool: None (withheld) records leave it; remember where each came from
    source_of: list[int | None] = []  # for each pool record, the original index it came from (if known)
    pool: list[str] = []
    pool_ids: list[str] = []
    id_pos = {x: i for i, x in enumerate(ids)}
    for j, text in enumerate(sanitized):
        if mode == "index":
            src: int | None = j
        elif mode == "ids":
            sid = str(sanitized_ids[j])  # type: ignore[index]
            if sid not in id_pos:
                raise ValueError(f"sanitized record {j} names original id {sid!r}, which is not among the originals")
            src = id_pos[sid]
        else:
            src = None
        if text is None:
            continue
        pool.append(text)
        pool_ids.append(str(sanitized_ids[j]) if sanitized_ids is not None else (ids[j] if mode == "index" else f"s{j}"))
        source_of.append(src)
    if missing == "drop" and len(pool) < len(sanitized):
        logger.warning("%d sanitized records are None and were treated as withheld", len(sanitized) - len(pool))

    # empty originals
    active = []
    for i, t in enumerate(originals):
        if t.strip():
            active.append(i)
        elif empty_originals == "error":
            raise ValueError(f"original record {i} (id {ids[i]!r}) is empty: nothing in it can leak. "
                             "Remove it, or pass empty_originals='skip' to skip such records (they are reported)")
    n_skipped = len(originals) - len(active)

    # 1. claims of the originals (cached, shared across sanitizers)
    from textleak.judges import make_judge

    atom = make_atomizer(atomizer, llm=llm)
    cache_claims = DiskCache("claims", enabled=use_cache)
    t = time.perf_counter()
    if original_claims is not None:
        if len(original_claims) != len(originals):
            raise ValueError(f"{len(original_claims)} claim lists for {len(originals)} originals")
        claims = [list(c) for c in original_claims]
    else:
        claims = [[] for _ in originals]
        got = atomize_records([originals[i] for i in active], atom, seeds=active, cache=cache_claims,
                              progress=progress, desc="atomizing originals")
        for i, c in zip(active, got):
            claims[i] = c
    timings["atomize_originals_s"] = time.perf_counter() - t

    # 2. adversary knowledge
    aux_idx = select_aux_indices([len(c) for c in claims], k=k, strategy=aux_strategy, seed=seed)
    known = [[claims[i][j] for j in aux_idx[i]] for i in range(len(originals))]
    paraphraser = None
    if paraphrase_aux:
        paraphraser = AuxParaphraser(llm=llm if llm is not None else "embedded")
        flat = [(i, n) for i in active for n in range(len(known[i]))]
        para = paraphraser.paraphrase([known[i][n] for i, n in flat], [record_seed(seed, i, "") + n for i, n in flat])
        for (i, n), p in zip(flat, para):
            known[i][n] = p

    # 3. linking
    t = time.perf_counter()
    link = make_linker(linker)
    pool_claims = None
    if link.needs_claims:
        pool_claims = atomize_records(pool, atom, cache=cache_claims, progress=progress, desc="atomizing sanitized")
    link.fit(pool, pool_claims)
    links = {i: l for i, l in zip(active, link.link([known[i] for i in active]))}
    timings["link_s"] = time.perf_counter() - t

    # 4. judging the non-aux claims against the linked record
    t = time.perf_counter()
    # the llm reaches the judge only when the judge uses one (it may be meant for the atomizer/paraphraser)
    judge_llm = llm if isinstance(judge, str) and judge.strip().lower() == "llm" else None
    judge_obj = make_judge(judge, llm=judge_llm, **(judge_options or {}))
    jobs, job_of = [], {}
    for i in active:
        l = links[i]
        if l.index is None and unlinked == "skip":
            continue
        doc = pool[l.index] if l.index is not None else ""
        aux = set(aux_idx[i])
        to_rate = [c for j, c in enumerate(claims[i]) if j not in aux]
        job_of[i] = len(jobs)
        jobs.append((to_rate, doc, record_seed(seed, i, "") % (2**31)))
    ratings = _rate_with_cache(judge_obj, jobs, DiskCache("ratings", enabled=use_cache), judge_batch_records, progress,
                               "judging claims")
    timings["judge_s"] = time.perf_counter() - t

    # 5. aggregate
    t = time.perf_counter()
    records: list[RecordResult] = []
    n_unparsed = n_unscored = n_unlinked = n_scored_claims = 0
    rank_hits = {kk: 0 for kk in linkage_ks}
    correct_flags: list[float] = []
    positions_by_text: dict[str, list[int]] = {}
    for p, src in enumerate(source_of):
        if src is not None:
            positions_by_text.setdefault(originals[src], []).append(p)
    for i in range(len(originals)):
        if i not in links:
            records.append(RecordResult(i, ids[i], "skipped_empty", [], [], None, None, 0.0, None, None, None, None))
            continue
        l = links[i]
        aux = set(aux_idx[i])
        rs = ratings[job_of[i]] if i in job_of else None
        claim_rows, scores, unparsed_here, r_iter = [], [], 0, iter(rs or [])
        for j, c in enumerate(claims[i]):
            row: dict[str, Any] = {"text": c, "aux": j in aux}
            if j not in aux and rs is not None:
                r = next(r_iter)
                row.update(rating=r.rating, score=r.score, status=r.status)
                if r.detail:
                    row["detail"] = r.detail
                if r.status == OK and r.score is not None:
                    scores.append(float(r.score))
                else:
                    unparsed_here += 1
                    if unparsed == "leak":
                        scores.append(0.0)
            claim_rows.append(row)
        n_unparsed += unparsed_here
        n_scored_claims += len(scores)
        linked_src = source_of[l.index] if l.index is not None else None
        correct: bool | None = None
        true_rank: int | None = None
        if mode != "none":
            true_positions = positions_by_text.get(originals[i], [])
            correct = linked_src is not None and originals[linked_src] == originals[i]
            ranks = [l.ranking.index(p) + 1 for p in true_positions if p in l.ranking]
            true_rank = min(ranks) if ranks else None
            if correct:
                true_rank = 1
            correct_flags.append(1.0 if correct else 0.0)
            for kk in linkage_ks:
                rank_hits[kk] += int(true_rank is not None and true_rank <= kk)
        status = "ok"
        if l.index is None:
            status = "unlinked"
            n_unlinked += 1
        privacy = float(np.mean(scores)) if scores else None
        if privacy is None and status == "ok":
            status = "unscored"
        if privacy is None:
            n_unscored += 1
        lex = None
        if l.index is not None or unlinked == "score_empty":
            lex = lexical_privacy(originals[i], pool[l.index] if l.index is not None else None, known[i], lexical_variant)
        records.append(RecordResult(
            index=i, id=ids[i], status=status, claims=claim_rows, known_claims=known[i], linked_index=l.index,
            linked_id=pool_ids[l.index] if l.index is not None else None, link_score=l.score, correct_link=correct,
            true_rank=true_rank, privacy=privacy, lexical_privacy=lex, unparsed_claims=unparsed_here,
        ))

    privacies = [r.privacy for r in records if r.privacy is not None]
    lexicals = [r.lexical_privacy for r in records if r.lexical_privacy is not None]
    n_eval = len(active)
    linkage_rate = float(np.mean(correct_flags)) if correct_flags else None
    report = LeakageReport(
        semantic_privacy=float(np.mean(privacies)) if privacies else None,
        lexical_privacy=float(np.mean(lexicals)) if lexicals else None,
        linkage_rate=linkage_rate,
        linkage_at_k={str(kk): rank_hits[kk] / n_eval for kk in linkage_ks} if mode != "none" and n_eval else None,
        n_records=len(originals),
        n_sanitized=len(pool),
        n_claims=sum(len(c) for c in claims),
        n_scored_claims=n_scored_claims,
        unparsed_claims=n_unparsed,
        n_unlinked=n_unlinked,
        n_unscored=n_unscored,
        n_skipped=n_skipped,
        ci95={
            "semantic_privacy": bootstrap_ci(privacies, bootstrap, seed),
            "lexical_privacy": bootstrap_ci(lexicals, bootstrap, seed),
            "linkage_rate": bootstrap_ci(correct_flags, bootstrap, seed) if correct_flags else None,
        },
        judge=judge_obj.describe(),
        atomizer=atom.describe() if original_claims is None else {"name": "precomputed"},
        linker=link.describe(),
        settings={
            "k": k, "aux_strategy": aux_strategy, "paraphrase_aux": paraphrase_aux,
            "paraphraser": paraphraser.describe() if paraphraser else None, "seed": seed, "alignment": mode,
            "lexical_variant": lexical_variant, "unlinked": unlinked, "unparsed": unparsed,
            "empty_originals": empty_originals, "missing": missing, "bootstrap": bootstrap,
        },
        records=records,
        timings=timings,
    )
    timings["aggregate_s"] = time.perf_counter() - t
    timings["total_s"] = time.perf_counter() - t0
    return report
