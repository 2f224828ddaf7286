"""Agreement between a judge and labelled claims: the measures of seed 000, table 4.

Spearman correlation (scipy), Cohen's kappa, unweighted and linearly/quadratically weighted
(scikit-learn), Fleiss' kappa (implemented here: neither scipy nor scikit-learn has it), accuracy and
the confusion matrix. :func:`evaluate_judge` runs any :class:`~textleak.judges.Judge` over a
labelled set, so users can validate the judge they bring; :func:`calibrate_thresholds` is the grid
search that sets the embedding and lexical judges' thresholds.

Unparsed ratings are never dropped silently: they are counted (``n_unparsed``, ``coverage``) and
the agreement figures are computed on the parsed claims only, which the report says.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

logger = logging.getLogger(__name__)

LABELS = (1, 2, 3)
CALIBRATION_SET = Path(__file__).resolve().parent.parent / "data" / "judge_calibration.jsonl"
#: hand-written evaluation set (issue 13): 13 categories of (claim, sanitized document) pairs, see docs/judge_eval_set.md
EVAL_SET = Path(__file__).resolve().parent.parent / "data" / "judge_eval.jsonl"
# hand-labelled pairs written to train the NLI judge (its train split) and to test it (its test split: other cases)
HANDWRITTEN_SET = Path(__file__).resolve().parent / "training" / "handwritten.jsonl"


# ---- measures -------------------------------------------------------------------------------------
def spearman(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Spearman's rho and its two-sided p-value; ``nan`` when either side is constant."""
    from scipy.stats import spearmanr

    if len(a) != len(b):
        raise ValueError(f"spearman needs equal lengths, got {len(a)} and {len(b)}")
    if len(a) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return float("nan"), float("nan")
    result = spearmanr(a, b)
    return float(result.statistic), float(result.pvalue)


def cohen_kappa(a: Sequence[int], b: Sequence[int], weights: str | None = None, labels: Sequence[int] = LABELS) -> float:
    """Cohen's kappa between two raters; ``weights`` is None, ``"linear"`` or ``"quadratic"``."""
    from sklearn.metrics import cohen_kappa_score

    if len(a) != len(b):
        raise ValueError(f"cohen_kappa needs equal lengths, got {len(a)} and {len(b)}")
    if not a:
        return float("nan")
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant rater makes kappa undefined: reported as nan
        value = cohen_kappa_score(list(a), list(b), labels=list(labels), weights=weights)
    return float(value)


def fleiss_kappa(ratings: Sequence[Sequence[int]], labels: Sequence[int] = LABELS) -> float:
    """Fleiss' kappa for items each rated by the same number of raters (``ratings[item][rater]``).

    kappa = (P_bar - P_e) / (1 - P_e), with P_bar the mean per-item agreement among rater pairs and
    P_e the chance agreement from the overall label proportions (Fleiss 1971).
    """
    if not ratings:
        return float("nan")
    n_raters = len(ratings[0])
    if n_raters < 2 or any(len(r) != n_raters for r in ratings):
        raise ValueError("fleiss_kappa needs every item rated by the same number (>= 2) of raters")
    index = {label: j for j, label in enumerate(labels)}
    counts = np.zeros((len(ratings), len(labels)))
    for i, item in enumerate(ratings):
        for r in item:
            if r not in index:
                raise ValueError(f"item {i}: rating {r!r} is not one of {tuple(labels)}")
            counts[i, index[r]] += 1
    per_item = (np.sum(counts * counts, axis=1) - n_raters) / (n_raters * (n_raters - 1))
    p_bar = float(per_item.mean())
    proportions = counts.sum(axis=0) / (len(ratings) * n_raters)
    p_e = float(np.sum(proportions**2))
    if p_e >= 1.0:
        return float("nan")
    return (p_bar - p_e) / (1.0 - p_e)


def confusion(gold: Sequence[int], predicted: Sequence[int], labels: Sequence[int] = LABELS) -> list[list[int]]:
    """``matrix[g][p]``: claims with gold label ``labels[g]`` rated ``labels[p]``."""
    index = {label: j for j, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted):
        matrix[index[g]][index[p]] += 1
    return matrix


# categories of the evaluation sets whose fact the document negates, reverses or contradicts (gold 3)
CONTRADICTION_CATEGORIES = ("negation", "antonym", "contradicting_number", "contradiction")


@dataclass
class AgreementReport:
    """Agreement of a judge with gold labels (on the parsed claims) plus coverage."""

    n: int
    n_unparsed: int
    spearman: float
    spearman_p: float
    cohen_kappa: float
    cohen_kappa_linear: float
    cohen_kappa_quadratic: float
    fleiss_kappa: float
    accuracy: float
    confusion: list[list[int]]
    mean_score_judge: float
    mean_score_gold: float
    judge: dict[str, Any] = field(default_factory=dict)
    per_domain: dict[str, dict[str, float]] = field(default_factory=dict)
    per_category: dict[str, dict[str, Any]] = field(default_factory=dict)
    spearman_score: float = float("nan")  # the judge's continuous scores (e.g. expected ratings) against gold
    contradiction_accuracy: float = float("nan")  # negated, flipped and contradicted facts rated 3
    n_contradiction: int = 0

    @property
    def coverage(self) -> float:
        return (self.n - self.n_unparsed) / self.n if self.n else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "coverage": self.coverage}

    def to_markdown(self) -> str:
        lines = [
            f"claims: {self.n} (unparsed: {self.n_unparsed}, coverage {self.coverage:.3f}; figures on parsed claims)",
            "",
            "| measure | value |",
            "|---|---|",
            f"| Spearman rho | {self.spearman:.4f} (p={self.spearman_p:.2e}) |",
            *([f"| Spearman rho of the continuous scores | {self.spearman_score:.4f} |"] if self.spearman_score == self.spearman_score else []),
            *([f"| negated / flipped / contradicted facts rated 3 ({', '.join(CONTRADICTION_CATEGORIES)}) | "
               f"{self.contradiction_accuracy:.4f} (n={self.n_contradiction}) |"] if self.n_contradiction else []),
            f"| Cohen's kappa | {self.cohen_kappa:.4f} |",
            f"| Cohen's kappa, linear weights | {self.cohen_kappa_linear:.4f} |",
            f"| Cohen's kappa, quadratic weights | {self.cohen_kappa_quadratic:.4f} |",
            f"| Fleiss' kappa (judge + gold) | {self.fleiss_kappa:.4f} |",
            f"| accuracy | {self.accuracy:.4f} |",
            f"| mean score judge / gold | {self.mean_score_judge:.4f} / {self.mean_score_gold:.4f} |",
            "",
            "confusion (rows gold 1/2/3, columns judge 1/2/3):",
            "",
            "| gold \\ judge | 1 | 2 | 3 |",
            "|---|---|---|---|",
        ]
        for label, row in zip(LABELS, self.confusion):
            lines.append(f"| {label} | " + " | ".join(str(x) for x in row) + " |")
        if self.per_domain:
            lines += ["", "| domain | n | Spearman | Cohen's kappa (linear) | accuracy |", "|---|---|---|---|---|"]
            for domain, d in sorted(self.per_domain.items()):
                lines.append(f"| {domain} | {d['n']:.0f} | {d['spearman']:.4f} | {d['cohen_kappa_linear']:.4f} | {d['accuracy']:.4f} |")
        if self.per_category:
            lines += ["", "| category | n | accuracy | judge rated 1/2/3 | gold 1/2/3 |", "|---|---|---|---|---|"]
            for category, c in sorted(self.per_category.items()):
                lines.append(
                    f"| {category} | {c['n']} | {c['accuracy']:.4f} | {'/'.join(map(str, c['judge_counts']))} | {'/'.join(map(str, c['gold_counts']))} |"
                )
        return "\n".join(lines)


def per_category_accuracy(gold: Sequence[int], predicted: Sequence[int | None], categories: Sequence[str | None]) -> dict[str, dict[str, Any]]:
    """Accuracy per item category on the parsed items, with the judge's and gold's rating counts.

    Items without a category (``None`` or ``""``) are left out; unparsed ratings are counted in
    ``n_unparsed`` and excluded from the accuracy, as in :func:`agreement`.
    """
    if not len(gold) == len(predicted) == len(categories):
        raise ValueError(f"per_category_accuracy needs equal lengths, got {len(gold)}, {len(predicted)}, {len(categories)}")
    groups: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(categories):
        if c:
            groups[str(c)].append(i)
    out: dict[str, dict[str, Any]] = {}
    for category, idx in groups.items():
        parsed = [i for i in idx if predicted[i] is not None]
        g = [int(gold[i]) for i in parsed]
        p = [int(predicted[i]) for i in parsed]  # type: ignore[arg-type]
        out[category] = {
            "n": len(parsed),
            "n_unparsed": len(idx) - len(parsed),
            "accuracy": float(np.mean([a == b for a, b in zip(g, p)])) if parsed else float("nan"),
            "judge_counts": [p.count(label) for label in LABELS],
            "gold_counts": [g.count(label) for label in LABELS],
        }
    return out


def agreement(
    gold: Sequence[int],
    predicted: Sequence[int | None],
    judge: dict[str, Any] | None = None,
    domains: Sequence[str] | None = None,
    categories: Sequence[str | None] | None = None,
    scores: Sequence[float | None] | None = None,
) -> AgreementReport:
    """Compare predicted ratings (``None`` = unparsed, counted then excluded) with gold ratings.

    ``domains`` and ``categories`` (optional, one per item) add per-domain figures and per-category
    accuracy to the report (and the accuracy on :data:`CONTRADICTION_CATEGORIES`); ``scores`` (the
    judge's normalised scores) adds the Spearman correlation of the scores with gold."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels for {len(predicted)} predictions")
    for i, g in enumerate(gold):
        if g not in LABELS:
            raise ValueError(f"item {i}: gold rating {g!r} is not 1, 2 or 3")
    keep = [i for i, p in enumerate(predicted) if p is not None]
    g = [int(gold[i]) for i in keep]
    p = [int(predicted[i]) for i in keep]
    rho, pval = spearman(g, p)
    contra = [int(gold[i]) == int(predicted[i]) for i in keep if categories is not None and categories[i] in CONTRADICTION_CATEGORIES]
    per_domain: dict[str, dict[str, float]] = {}
    if domains is not None:
        by_domain: dict[str, list[int]] = defaultdict(list)
        for i in keep:
            by_domain[domains[i]].append(i)
        for domain, idx in by_domain.items():
            dg, dp = [int(gold[i]) for i in idx], [int(predicted[i]) for i in idx]
            per_domain[domain] = {
                "n": float(len(idx)),
                "spearman": spearman(dg, dp)[0],
                "cohen_kappa_linear": cohen_kappa(dg, dp, "linear"),
                "accuracy": float(np.mean([a == b for a, b in zip(dg, dp)])),
            }
    return AgreementReport(
        n=len(gold),
        n_unparsed=len(gold) - len(keep),
        spearman=rho,
        spearman_p=pval,
        cohen_kappa=cohen_kappa(g, p),
        cohen_kappa_linear=cohen_kappa(g, p, "linear"),
        cohen_kappa_quadratic=cohen_kappa(g, p, "quadratic"),
        fleiss_kappa=fleiss_kappa([[a, b] for a, b in zip(g, p)]) if g else float("nan"),
        accuracy=float(np.mean([a == b for a, b in zip(g, p)])) if g else float("nan"),
        confusion=confusion(g, p),
        mean_score_judge=float(np.mean([(x - 1) / 2 for x in p])) if p else float("nan"),
        mean_score_gold=float(np.mean([(x - 1) / 2 for x in g])) if g else float("nan"),
        judge=dict(judge or {}),
        per_domain=per_domain,
        per_category=per_category_accuracy(gold, predicted, categories) if categories is not None and any(categories) else {},
        spearman_score=spearman(g, [float(scores[i]) for i in keep])[0] if scores is not None and g else float("nan"),
        contradiction_accuracy=float(np.mean(contra)) if contra else float("nan"),
        n_contradiction=len(contra),
    )


# ---- labelled claims -----------------------------------------------------------------------------
@dataclass
class LabelledClaim:
    claim: str
    document: str
    gold: int
    domain: str = "unknown"
    id: str = ""
    split: str | None = None
    category: str | None = None


def load_labelled_claims(path: str | Path | None = None, split: str | None = None) -> list[LabelledClaim]:
    """Read a JSONL file of ``{"claim", "document", "gold" (or "rating"), "domain"?, "split"?}``.

    ``path=None`` reads the shipped calibration set (:data:`EVAL_SET` is the hand-written evaluation set). ``split`` keeps only items with that ``split``
    field (``"train"``/``"test"``); ``None`` or ``"all"`` keeps everything.
    """
    path = Path(path) if path is not None else CALIBRATION_SET
    items: list[LabelledClaim] = []
    with open(path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{line_no}: not JSON ({err})") from None
            gold = row.get("gold", row.get("rating"))
            if gold not in LABELS or not isinstance(row.get("claim"), str) or not isinstance(row.get("document"), str):
                raise ValueError(f"{path}:{line_no}: need a string 'claim', a string 'document' and 'gold' in 1/2/3, got {sorted(row)}")
            items.append(
                LabelledClaim(
                    claim=row["claim"], document=row["document"], gold=int(gold), domain=row.get("domain", "unknown"),
                    id=str(row.get("id", line_no)), split=row.get("split"), category=row.get("category"),
                )
            )
    if split not in (None, "all"):
        items = [it for it in items if it.split == split]
        if not items:
            raise ValueError(f"{path}: no items with split={split!r}")
    return items


def group_by_document(items: Sequence[LabelledClaim]) -> tuple[list[str], list[list[str]], list[list[int]]]:
    """Documents, their claims, and each claim's position in ``items`` (for one ``Judge.rate`` call)."""
    order: dict[str, int] = {}
    documents: list[str] = []
    claims: list[list[str]] = []
    positions: list[list[int]] = []
    for i, item in enumerate(items):
        j = order.setdefault(item.document, len(documents))
        if j == len(documents):
            documents.append(item.document)
            claims.append([])
            positions.append([])
        claims[j].append(item.claim)
        positions[j].append(i)
    return documents, claims, positions


def rate_labelled(judge: Any, items: Sequence[LabelledClaim], seed: int = 0) -> list[int | None]:
    """Rate every labelled claim with ``judge`` (one batched ``rate`` call); None where unparsed."""
    return rate_labelled_with_scores(judge, items, seed)[0]


def rate_labelled_with_scores(judge: Any, items: Sequence[LabelledClaim], seed: int = 0) -> tuple[list[int | None], list[float | None]]:
    """Ratings and normalised scores of every labelled claim (None where unparsed)."""
    documents, claims, positions = group_by_document(items)
    ratings = judge.rate(claims, documents, seeds=[seed + j for j in range(len(documents))])
    predicted: list[int | None] = [None] * len(items)
    scores: list[float | None] = [None] * len(items)
    for pos, rated in zip(positions, ratings):
        for i, r in zip(pos, rated):
            if r.status == "ok":
                predicted[i], scores[i] = r.rating, r.score
    return predicted, scores


def evaluate_judge(judge: Any, items: Sequence[LabelledClaim], seed: int = 0) -> AgreementReport:
    """Rate every labelled claim with ``judge`` and compare with gold."""
    predicted, scores = rate_labelled_with_scores(judge, items, seed)
    return agreement(
        [it.gold for it in items], predicted, judge=judge.describe(), domains=[it.domain for it in items],
        categories=[it.category for it in items], scores=scores,
    )


# ---- threshold calibration -------------------------------------------------------------------------
def ratings_from_thresholds(similarities: Iterable[float], t1: float, t2: float) -> list[int]:
    """s >= t1 -> 1, t2 <= s < t1 -> 2, else 3 (:func:`textleak.judges.base.threshold_ratings`)."""
    from textleak.judges.base import threshold_ratings

    return [int(r) for r in threshold_ratings(list(similarities), t1, t2)]


def _linear_kappa(gold: np.ndarray, pred: np.ndarray) -> float:
    """Linearly weighted Cohen's kappa over labels 1..3 (numpy; the grid search calls it thousands
    of times). Equals ``cohen_kappa(gold, pred, "linear")``."""
    matrix = np.bincount((gold - 1) * 3 + (pred - 1), minlength=9).reshape(3, 3).astype(float)
    n = matrix.sum()
    weights = np.abs(np.subtract.outer(np.arange(3), np.arange(3))) / 2.0
    expected = np.outer(matrix.sum(axis=1), matrix.sum(axis=0)) / n
    denominator = float((weights * expected).sum())
    return float("nan") if denominator == 0 else 1.0 - float((weights * matrix).sum()) / denominator


def calibrate_thresholds(
    similarities: Sequence[float],
    gold: Sequence[int],
    grid: Sequence[float] | None = None,
    caps: Sequence[int] | None = None,
) -> tuple[float, float, float]:
    """Grid search for thresholds ``t1 > t2`` maximising linearly weighted Cohen's kappa with gold.

    ``caps[i]`` (optional) is the best rating claim ``i`` may get (e.g. 2 when its numbers are
    missing from the matched span): the rating is ``max(threshold rating, cap)``. Ties go to the
    higher Spearman, then to the smaller thresholds, which rate more claims as leaked (fail toward
    leakage). Returns ``(t1, t2, kappa)``.
    """
    from textleak.judges.base import threshold_ratings

    if grid is None:
        grid = [round(x, 3) for x in np.arange(0.05, 1.0001, 0.01)]
    sims = np.asarray(similarities, dtype=float)
    gold_arr = np.asarray([int(g) for g in gold])
    cap_arr = np.asarray(caps) if caps is not None else None
    best: tuple[float, float, float, float] | None = None  # kappa, rho, -t1, -t2
    chosen = (float("nan"), float("nan"))
    for t1 in grid:
        for t2 in grid:
            if t2 >= t1:
                continue
            pred = threshold_ratings(sims, t1, t2)
            if cap_arr is not None:
                pred = np.maximum(pred, cap_arr)
            kappa = _linear_kappa(gold_arr, pred)
            if np.isnan(kappa) or (best is not None and kappa < best[0] - 1e-12):
                continue
            rho = spearman(gold_arr.tolist(), pred.tolist())[0]  # only for candidates: it breaks ties
            key = (round(kappa, 12), -1.0 if np.isnan(rho) else rho, -t1, -t2)
            if best is None or key > best:
                best, chosen = key, (t1, t2)
    if best is None:
        raise ValueError("calibration found no threshold pair with a defined kappa")
    return float(chosen[0]), float(chosen[1]), float(best[0])


_LEAN_SETS = (("eval", "evaluation set"), ("handwritten_test", "other writers' pairs"), ("chat_heldout", "chat requests and pasted logs"),
              ("chat_heldout_unread", "chat writers nobody tuning it read"), ("clinical_heldout", "clinical writers nobody tuning it read"))


def _score_lean(calibration: dict[str, Any]) -> str:
    """The direction of a judge's error on the recorded hand-written sets, the larger lean toward
    privacy when there is one (with the lean on each set): a judge whose mean score lies above the
    labels' overstates privacy, and a reader of its number should know by about how much."""
    leans = {label: calibration[f"{name}_mean_score_judge"] - calibration[f"{name}_mean_score_gold"] for name, label in _LEAN_SETS
             if f"{name}_mean_score_judge" in calibration and f"{name}_mean_score_gold" in calibration}
    if not leans:
        return ""
    each = f" ({', '.join(f'{v:+.2f} on {k}' for k, v in leans.items())})" if len(leans) > 1 else ""
    if max(leans.values()) >= 0.005:
        return f"; its mean score lies {max(leans.values()):.2f} above the labels'{each} (semantic privacy may read about that much high)"
    if min(leans.values()) <= -0.005:
        return f"; its mean score lies {-min(leans.values()):.2f} below the labels'{each} (it overstates leakage)"
    return f"; its mean score matches the labels' within 0.005{each}"


def measured_agreement(description: dict[str, Any]) -> str:
    """One phrase for a report: a judge's measured agreement with labels, from its ``describe()``."""
    calibration = description.get("calibration")
    if isinstance(calibration, dict):
        if "eval_spearman" in calibration:
            others = [f"{calibration[f'{name}_spearman']:.2f} on {calibration.get(f'{name}_n', '?')} {label}"
                      for name, label in (("handwritten_test", "from other writers"), ("chat_heldout", "chat requests and pasted logs"),
                                          ("chat_heldout_unread", "of them from writers nobody tuning it read"),
                                          ("clinical_heldout", "clinical vignettes and notes from writers nobody tuning it read"))
                      if f"{name}_spearman" in calibration]
            other = f" ({', '.join(others)})" if others else ""
            return (f"Spearman {calibration['eval_spearman']:.2f} with {calibration.get('eval_n', '?')} hand-written labels{other}, "
                    f"{calibration.get('eval_contradiction_accuracy', float('nan')):.0%} of contradicted facts rated unsupported"
                    f"{_score_lean(calibration)}")
        if "test_spearman" in calibration:
            return f"Spearman {calibration['test_spearman']:.2f} on the calibration set's held-out split"
    return "agreement not measured for these settings (textleak judge-agreement measures it)"

