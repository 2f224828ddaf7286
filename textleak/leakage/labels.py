"""Hand labels on judged claims: the sample to label, the labels file, and the corrected privacy.

A label is a person's rating of one judged claim against the released text it was judged against,
on the judge's rubric (seed 000: 1 same, 2 similar, 3 unsupported). Labels join claims by a stable
key (:func:`claim_key`: record id, claim index, a hash of the claim and a hash of the released
text), so a label never lands on another claim or on the same claim judged against other text: a
label whose key no longer matches is counted and named in one warning, never used.

:func:`draw_sample` draws the claims to label: within each judge rating (so every rating is
labelled), a simple random sample, whose inclusion probabilities (``n_s / N_s``) are known exactly;
:func:`textleak.leakage.ppi.stratified_ppi_mean` weights each label by its claim's weight in the
report's aggregate (records count equally, claims equally within a record) over that probability.
:func:`corrected_privacy` turns the labels into the corrected semantic privacy with its interval,
beside the judge alone and the judge's agreement with the labels on this data set.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from textleak.judges.base import NOT_JUDGED

logger = logging.getLogger(__name__)

RATINGS = (1, 2, 3)


def rubric() -> dict[int, str]:
    """Seed 000's rubric, word for word as the LLM judge's prompt states it (``textleak/prompts/judge_task.txt``):
    what the labelling page shows, so a labeller rates by the rubric the judge and the paper rate by."""
    from textleak.prompts import load_prompt

    found = {int(k): f"{name}: {text.strip()}"
             for k, name, text in re.findall(r"^([123])\. \*([^*]+)\*: (.+)$", load_prompt("judge_task"), re.MULTILINE)}
    if sorted(found) != list(RATINGS):
        raise RuntimeError("textleak/prompts/judge_task.txt: no rubric entries 1, 2 and 3 ('1. *Same Information*: ...')")
    return found

MIN_PER_RATING = 10  # labels drawn in each judge rating (fewer when the rating holds fewer claims)
# The standard deviation of (label - judge score) within a judge rating, measured with the default NLI
# judge on the hand-labelled held-out sets: 0.25 to 0.37 at 62579e3, 0.23 to 0.32 at 4bce9a1 (benchmarks/ppi_coverage.py,
# docs/ppi.md); --plan's typical case, kept at 0.33 (a little wide: the planned interval errs wide, not narrow).
TYPICAL_RESIDUAL_SD = 0.33
WORST_RESIDUAL_SD = 0.5  # no [0, 1] score varies more


def _hash(text: str, n: int) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def claim_key(record_id: Any, claim_index: int, claim: str, released: str | None) -> str:
    """The stable key of one judged claim: ``record id # claim index # claim hash # released-text hash``."""
    return f"{record_id}#{claim_index}#{_hash(claim, 12)}#{_hash(released or '', 8)}"


@dataclass
class JudgedClaim:
    """One judged claim of a report, as the labelling and the correction see it."""

    key: str
    record_index: int
    record_id: str
    claim_index: int
    claim: str
    rating: int | None
    score: float  # the score it has in the report (an unparsed claim: 0, leaked)
    weight: float  # its weight in the report's semantic privacy (sums to 1 over the scored claims)
    span: str | None  # the judge's best span of the released text, when it has one
    released: str | None  # the released (linked) text it was judged against
    # not rated "ok" by the judge (unparsed...) or not judged at all (NOT_JUDGED): it keeps its score and no
    # label changes it (fail toward leakage)
    fixed: bool = False


def _get(r: Any, name: str) -> Any:
    return r.get(name) if isinstance(r, dict) else getattr(r, name)


def judged_claims(records: Iterable[Any], unparsed: str = "leak") -> list[JudgedClaim]:
    """Every claim that counts in the report's semantic privacy, with its weight there.

    ``records``: :class:`~textleak.leakage.report.RecordResult` objects or their dicts (a
    ``records-*.jsonl`` line). ``unparsed`` is the report's policy: ``leak`` keeps unparsed claims
    (score 0, fixed), ``exclude`` leaves them out, as :mod:`textleak.leakage.aggregate` does; a claim of
    any status but ``ok`` is unparsed there, whatever score it carries. A record whose claims do not average to its
    privacy (a records file of another version) is one warning."""
    per_record: list[tuple[Any, list[tuple[int, dict]]]] = []
    for r in records:
        if _get(r, "privacy") is None:
            continue
        rows = []
        for j, c in enumerate(_get(r, "claims") or []):
            if c.get("known") or "status" not in c:
                continue
            if (c.get("detail") or {}).get(NOT_JUDGED) and c.get("score") is not None:
                rows.append((j, c, float(c["score"]), True))  # a policy's rating (unread text: leaked), never labelled
                continue
            # as textleak.leakage.aggregate counts them: any status but ok (and unreadable, left out) is
            # unparsed, leaked (0) or left out by the policy, whatever score it carries
            if c.get("status") == "ok" and c.get("score") is not None:
                rows.append((j, c, float(c["score"]), False))
            elif c.get("status") != "unreadable" and unparsed == "leak":
                rows.append((j, c, 0.0, True))
        if rows:
            per_record.append((r, rows))
    out = []
    n_records = len(per_record)
    mismatched = 0
    for r, rows in per_record:
        released = _get(r, "linked_text") if (isinstance(r, dict) and "linked_text" in r) or hasattr(r, "linked_text") else None
        mismatched += abs(sum(s for *_, s, _f in rows) / len(rows) - float(_get(r, "privacy"))) > 1e-6
        for j, c, score, fixed in rows:
            out.append(JudgedClaim(
                key=claim_key(_get(r, "id"), j, c["text"], released), record_index=int(_get(r, "index")), record_id=str(_get(r, "id")),
                claim_index=j, claim=c["text"], rating=None if fixed else c.get("rating"), score=score,
                weight=1.0 / (n_records * len(rows)), span=(c.get("detail") or {}).get("span"), released=released, fixed=fixed))
    if mismatched:
        logger.warning("%d records' claims do not average to their privacy: the claims to label may not match the report", mismatched)
    return out


def allocate(weights_by_rating: dict[int, float], counts: dict[int, int], n: int) -> dict[int, int]:
    """Labels per judge rating: proportional to the rating's weight in the estimate, at least
    :data:`MIN_PER_RATING` (fewer when ``n`` is small, never under 2, or all of the rating's claims),
    ``n`` in all where the claims allow."""
    present = [s for s in weights_by_rating if counts[s]]
    floor = {s: min(counts[s], MIN_PER_RATING, max(2, n // max(1, len(present)))) for s in present}
    alloc = {s: min(counts[s], max(floor[s], int(round(n * weights_by_rating[s])))) for s in present}
    while sum(alloc.values()) > n:  # trim the largest stratum that stays above its minimum
        s = max((s for s in alloc if alloc[s] > floor[s]), key=lambda s: alloc[s], default=None)
        if s is None:
            break
        alloc[s] -= 1
    while sum(alloc.values()) < min(n, sum(counts.values())):  # room left: the heaviest stratum with claims left
        s = max((s for s in alloc if alloc[s] < counts[s]), key=lambda s: weights_by_rating[s] / (alloc[s] + 1))
        alloc[s] += 1
    return alloc


def draw_sample(claims: Sequence[JudgedClaim], n: int = 100, seed: int = 0) -> list[JudgedClaim]:
    """``n`` claims to label, seeded: a simple random sample within each judge rating (unparsed claims are
    never drawn: they count as leaked). Equal chances, not chances proportional to the claim's weight:
    numpy's weighted draw without replacement has inclusion probabilities that are not its ``p``, and
    the estimator needs them exactly (it weights each label by weight over ``n_s / N_s``)."""
    rng = np.random.default_rng(seed)
    scorable = [c for c in claims if not c.fixed]
    by_rating: dict[int, list[JudgedClaim]] = {}
    for c in scorable:
        by_rating.setdefault(int(c.rating), []).append(c)  # type: ignore[arg-type]
    total = sum(c.weight for c in scorable) or 1.0
    alloc = allocate({s: sum(c.weight for c in cs) / total for s, cs in by_rating.items()},
                     {s: len(cs) for s, cs in by_rating.items()}, n)
    sample = []
    for s in sorted(alloc):
        cs = by_rating[s]
        take = rng.choice(len(cs), size=alloc[s], replace=False)
        sample.extend(cs[i] for i in sorted(take))
    order = rng.permutation(len(sample))  # mixed ratings on the page: the labeller cannot guess the judge
    return [sample[i] for i in order]


def locate_span(released: str | None, span: str | None) -> tuple[int, int, bool] | None:
    """Where the judge's best span lies in the released text, for the labelling page to mark:
    ``(start, end, exact)``, or None when nothing is close.

    The NLI judge reads the text as a reader does (units, dates, clock times and typos in the claim's
    form, :func:`textleak.judges.values.reader_view`) and may cut a long sentence to a window joined by
    single spaces, so its span is not always a substring of what was released ('53-year-old' reads as
    '53 years-old'; on 20 MedQA records a quarter of the spans). Then the released sentence that holds
    most of the span's words (ROUGE-L recall at least 0.5) is marked instead, with ``exact`` False."""
    from textleak.text.lcs import rouge_l
    from textleak.text.sentences import sentence_spans
    from textleak.text.tokens import rouge_tokens

    if not released or not span or not span.strip():
        return None
    at = released.find(span)
    if at >= 0:
        return at, at + len(span), True
    words = span.split()
    m = re.search(r"\s+".join(re.escape(w) for w in words), released)
    if m:
        return m.start(), m.end(), True
    target = rouge_tokens(span)
    if not target:
        return None
    best: tuple[float, float, int, int] | None = None
    for a, b in sentence_spans(released):
        r = rouge_l(target, rouge_tokens(released[a:b]))
        if r.recall >= 0.5 and (best is None or (r.recall, r.fmeasure) > best[:2]):
            best = (r.recall, r.fmeasure, a, b)
    return None if best is None else (best[2], best[3], False)


# ---- the labels file -------------------------------------------------------------------------------
def read_labels(path: str | Path) -> dict[str, int | None]:
    """key -> label (1/2/3, or None for a skipped claim) from a labels JSONL or CSV (``key``, ``label``
    columns); the last row of a key wins. A bad row is one error naming the file and the line."""
    path = Path(path)
    rows: list[tuple[int, dict[str, Any]]] = []
    with open(path, encoding="utf-8", newline="") as fh:
        if path.suffix.lower() in (".csv", ".tsv"):
            rows = list(enumerate(csv.DictReader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ","), 2))
        else:
            for line_no, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        rows.append((line_no, json.loads(line)))
                    except json.JSONDecodeError as err:
                        raise ValueError(f"{path}:{line_no}: not JSON ({err})") from None
    out: dict[str, int | None] = {}
    for line_no, row in rows:
        key, label = row.get("key"), row.get("label")
        if not key:
            raise ValueError(f"{path}:{line_no}: no 'key' (labels join claims by the key textleak label writes)")
        if label in (None, "", "skip"):
            out[str(key)] = None
            continue
        try:  # a whole rating only: truncating '2.5' or 3.7 would invent privacy
            number = float(label)
            value = int(number) if number.is_integer() and not isinstance(label, bool) else -1
        except (TypeError, ValueError):
            value = -1
        if value not in RATINGS:
            raise ValueError(f"{path}:{line_no}: label {label!r} is not 1, 2, 3 or empty (skipped)")
        out[str(key)] = value
    return out


def label_row(claim: JudgedClaim, label: int | None) -> dict[str, Any]:
    """One line of the labels file (private: it quotes the claim)."""
    return {"key": claim.key, "record_id": claim.record_id, "claim_index": claim.claim_index, "claim": claim.claim,
            "label": label, "judge_rating": claim.rating, "judge_score": claim.score, "time": time.strftime("%Y-%m-%dT%H:%M:%S")}


# ---- the correction --------------------------------------------------------------------------------
def corrected_privacy(records: Iterable[Any], labels: dict[str, int | None] | str | Path, *, unparsed: str = "leak",
                      alpha: float = 0.05, judge_ci: Sequence[float] | None = None, source: str = "labels") -> dict[str, Any]:
    """Semantic privacy corrected by the labels (:func:`~textleak.leakage.ppi.stratified_ppi_mean`),
    with its ``1 - alpha`` interval, the judge-alone figure, and the judge's agreement on the labels.

    Labels whose key matches no judged claim (the run changed) are counted in ``n_unmatched`` and
    named in one warning, never used; skipped claims (label None) are left out. The estimate and its
    interval's ends are clipped to [0, 1], where privacy lies (the unclipped estimate and interval can
    leave it: a weighted rectifier on few labels)."""
    from textleak.judges.agreement import agreement
    from textleak.leakage.ppi import stratified_ppi_mean

    if not isinstance(labels, dict):
        source = str(labels)
        labels = read_labels(labels)
    claims = judged_claims(records, unparsed)
    by_key = {c.key: c for c in claims}
    unmatched = [k for k in labels if k not in by_key]
    fixed_keys = [k for k in labels if k in by_key and by_key[k].fixed]
    if unmatched:
        logger.warning("%s: %d of %d labels match no judged claim of this run (the claim, its record or the released text "
                       "changed; first: %s): they are not used", source, len(unmatched), len(labels), unmatched[0])
    if fixed_keys:
        logger.warning("%s: %d labels are on claims the judge could not rate; those count as leaked whatever the label",
                       source, len(fixed_keys))
    use = [c for c in claims if not c.fixed]
    labelled = [labels.get(c.key) is not None for c in use]
    y = [(labels[c.key] - 1) / 2 for c, m in zip(use, labelled) if m]  # type: ignore[operator]
    judge_alone = float(sum(c.weight * c.score for c in claims))
    # claims the judge could not rate keep their score (a stratum known exactly, no label changes it), but
    # stay in their records, so the record-sampling part of the interval sees how their number varies
    fixed = [c for c in claims if c.fixed]
    result = stratified_ppi_mean([c.score for c in use + fixed], [c.rating for c in use] + ["fixed"] * len(fixed),
                                 labelled + [True] * len(fixed), y + [c.score for c in fixed],
                                 weights=[c.weight for c in use + fixed], groups=[c.record_index for c in use + fixed], alpha=alpha)
    lab = [c for c, m in zip(use, labelled) if m]
    gold = [labels[c.key] for c in lab]
    agree = agreement(gold, [c.rating for c in lab], scores=[c.score for c in lab])  # type: ignore[arg-type]
    lean = float(np.mean([c.score for c in lab]) - np.mean(y))  # type: ignore[arg-type]
    return {
        "semantic_privacy": float(np.clip(result.estimate, 0.0, 1.0)),
        "ci95" if math.isclose(alpha, 0.05) else f"ci{round(100 * (1 - alpha))}": [float(np.clip(x, 0.0, 1.0)) for x in result.ci],
        "n_labels": len(y),
        "n_skipped": sum(1 for k, v in labels.items() if v is None and k in by_key),
        "n_unmatched": len(unmatched),
        "n_on_unparsed": len(fixed_keys),
        "method": result.method,
        "lam": result.lam,
        "std_error": result.std_error,
        "label_se": result.detail["label_se"],
        "sampling_se": result.detail["sampling_se"],
        "strata": result.detail["strata"],
        "judge_alone": {"semantic_privacy": judge_alone, "ci95": list(judge_ci) if judge_ci else None},
        "agreement": {"spearman": agree.spearman, "spearman_score": agree.spearman_score, "accuracy": agree.accuracy,
                      "cohen_kappa_linear": agree.cohen_kappa_linear, "confusion": agree.confusion,
                      "mean_judge_score": float(np.mean([c.score for c in lab])), "mean_label_score": float(np.mean(y)),
                      "lean": lean},
        "labels": source,
    }


def format_corrected(c: dict[str, Any]) -> str:
    """``semantic privacy 0.57 [0.51, 0.63] with 100 labels (judge alone 0.71 [0.68, 0.74])`` and the agreement line."""
    ci = c.get("ci95") or next(v for k, v in c.items() if k.startswith("ci"))
    j = c["judge_alone"]
    jci = f" [{j['ci95'][0]:.2f}, {j['ci95'][1]:.2f}]" if j.get("ci95") else ""
    a = c["agreement"]
    conf = " ".join("/".join(str(x) for x in row) for row in a["confusion"])
    lean = a["lean"]
    return (f"semantic privacy {c['semantic_privacy']:.2f} [{ci[0]:.2f}, {ci[1]:.2f}] with {c['n_labels']} labels "
            f"(judge alone {j['semantic_privacy']:.2f}{jci})\n"
            f"judge on these labels: Spearman {a['spearman']:.2f}, accuracy {a['accuracy']:.2f}, lean {lean:+.3f} "
            f"(its mean score {'above' if lean >= 0.0005 else 'below' if lean <= -0.0005 else 'at'} the labels'), "
            f"confusion rows label 1/2/3 x judge 1/2/3: {conf}")


def plan(claims: Sequence[JudgedClaim], sizes: Sequence[int] = (50, 100, 200, 400), alpha: float = 0.05) -> list[dict[str, Any]]:
    """Expected interval width of the corrected figure for each number of labels, from the judge's
    ratings alone: the labelling part at a typical and a worst-case within-rating residual
    (:data:`TYPICAL_RESIDUAL_SD`, :data:`WORST_RESIDUAL_SD`) plus the record-sampling part of the judge's scores."""
    from scipy.stats import norm

    z = float(norm.ppf(1 - alpha / 2))
    use = [c for c in claims if not c.fixed]
    total = sum(c.weight for c in use) or 1.0
    weights: dict[int, float] = {}
    counts: dict[int, int] = {}
    squares: dict[int, float] = {}  # sums of squared weights: a simple random draw's variance grows with their spread
    for c in use:
        weights[int(c.rating)] = weights.get(int(c.rating), 0.0) + c.weight / total  # type: ignore[arg-type]
        counts[int(c.rating)] = counts.get(int(c.rating), 0) + 1  # type: ignore[arg-type]
        squares[int(c.rating)] = squares.get(int(c.rating), 0.0) + (c.weight / total) ** 2  # type: ignore[arg-type]
    by_record: dict[int, list[float]] = {}
    for c in claims:
        by_record.setdefault(c.record_index, []).append(c.score)
    p = np.array([np.mean(v) for v in by_record.values()])
    var_sampling = float(np.var(p, ddof=1) / p.size) if p.size > 1 else 0.0
    rows = []
    for n in sizes:
        alloc = allocate(weights, counts, n)
        label_var = sum(counts[s] * squares[s] / alloc[s] for s in alloc if alloc[s])  # W_s^2 mean(a^2) / n_s
        rows.append({"labels": sum(alloc.values()), "per_rating": alloc,
                     "width_typical": 2 * z * math.sqrt(label_var * TYPICAL_RESIDUAL_SD**2 + var_sampling),
                     "width_worst": 2 * z * math.sqrt(label_var * WORST_RESIDUAL_SD**2 + var_sampling)})
    return rows


def attach_labels(report: Any, labels: dict[str, int | None], *, unparsed: str = "leak", source: str = "labels") -> bool:
    """Set ``report.labelled`` when some label matches a judged claim of ``report`` (a
    :class:`~textleak.leakage.report.LeakageReport`); False when none does (labels of another sanitized
    set in the same run)."""
    keys = {c.key for c in judged_claims(report.records, unparsed)}
    if not any(k in keys for k in labels):
        return False
    report.labelled = corrected_privacy(report.records, labels, unparsed=unparsed, source=source,
                                        judge_ci=report.ci95.get("semantic_privacy"))
    return True
