"""Prediction-powered inference (PPI, PPI++): a mean that carries the judge's error.

The judge rates every claim; a person labels a small sample of them. The judge's mean is biased by
whatever the judge gets wrong; the labels' mean alone is unbiased but wide. PPI (Angelopoulos et
al., *Science* 2023) adds to the judge's mean over all claims the mean error of the judge on the
labelled sample (the *rectifier*): the estimate is unbiased whatever the judge, and its interval holds
with the labelled sample's size, narrowed by as much as the judge agrees with the labels. PPI++
(Angelopoulos, Duchi and Zrnic 2023) scales the judge by a power-tuning ``lam`` in [0, 1] chosen to
minimise the estimated variance (``lam=0`` is the labels alone, ``lam=1`` plain PPI).

:func:`ppi_mean` is the mean estimator of ``ppi-python`` (``ppi_py.ppi_mean_pointestimate`` and
``ppi_mean_ci``, the authors' code), written here once so textleak does not depend on numba,
statsmodels and gdown; ``tests/test_ppi.py`` checks that both agree on fixed inputs.
:func:`stratified_ppi_mean` is the form ``textleak evaluate --labels`` uses: the labelled sample is
drawn within the judge's ratings (so every rating is labelled), as a simple random sample in each (its
inclusion probability ``n_s / N_s`` is known exactly, whatever claims a labeller skips), each claim carries
the weight it has in the report's aggregate (records weighted equally, claims equally within a record)
and enters the rectifier Horvitz-Thompson weighted by it, and the interval adds the record-sampling
variance the report's bootstrap covers.

All scores are normalised ratings ``(r - 1) / 2`` in [0, 1] (0: leaked, 1: private).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy.stats import norm


@dataclass
class PPIEstimate:
    """A corrected mean and its ``1 - alpha`` interval."""

    estimate: float
    ci: tuple[float, float]
    std_error: float
    lam: float | dict[str, float]  # the power-tuning used (per stratum for the stratified estimator)
    n_labelled: int
    n_unlabelled: int
    alpha: float
    method: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ci"] = [float(self.ci[0]), float(self.ci[1])]
        return d


def _as_array(x: Sequence[float], name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float).reshape(-1)
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: every value must be a finite number")
    return arr


def _weights(w: Sequence[float] | None, n: int, name: str) -> np.ndarray:
    """ppi-python's convention: weights rescaled to mean 1 (None: all ones)."""
    if w is None:
        return np.ones(n)
    arr = _as_array(w, name)
    if arr.size != n:
        raise ValueError(f"{name}: {arr.size} weights for {n} values")
    if np.any(arr < 0) or arr.sum() <= 0:
        raise ValueError(f"{name}: weights must be >= 0 with a positive sum")
    return arr / arr.sum() * n


def _tuned_lam(grads: np.ndarray, grads_hat: np.ndarray, grads_hat_unlabelled: np.ndarray) -> float:
    """PPI++'s variance-minimising lam for a mean (ppi-python's ``_calc_lam_glm``, identity Hessian), clipped to [0, 1]."""
    n, N = grads.size, grads_hat_unlabelled.size
    cov = 2 * np.mean((grads - grads.mean()) * (grads_hat - grads_hat.mean()))
    pooled = np.concatenate([grads_hat, grads_hat_unlabelled])
    var = np.var(pooled, ddof=1) if pooled.size > 1 else 0.0
    if var <= 0:
        return 1.0  # the judge is constant: lam does not change the variance
    return float(np.clip(cov / (2 * (1 + n / N) * var), 0.0, 1.0))


def _interval(estimate: float, se: float, alpha: float) -> tuple[float, float]:
    z = float(norm.ppf(1 - alpha / 2))
    return float(estimate - z * se), float(estimate + z * se)


def ppi_mean(
    judge_unlabelled: Sequence[float],
    judge_labelled: Sequence[float],
    labels: Sequence[float],
    *,
    alpha: float = 0.05,
    weights_labelled: Sequence[float] | None = None,
    weights_unlabelled: Sequence[float] | None = None,
    power_tuning: bool = True,
    lam: float | None = None,
) -> PPIEstimate:
    """The prediction-powered estimate of the labels' mean and its ``1 - alpha`` interval.

    ``judge_unlabelled``: the judge's scores on the claims nobody labelled; ``judge_labelled`` and
    ``labels``: the judge's scores and the labels' scores on the labelled claims (same order). The
    labelled claims must be a random sample of the same population as the unlabelled ones. Optional
    weights (per claim, ppi-python's convention: rescaled to mean 1 within each set) make the estimand
    a weighted mean. ``power_tuning`` picks PPI++'s ``lam``; ``lam`` fixes it (1: plain PPI, 0: the
    labels alone). Same numbers as ``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci``.
    """
    f_u = _as_array(judge_unlabelled, "judge_unlabelled")
    f_l = _as_array(judge_labelled, "judge_labelled")
    y = _as_array(labels, "labels")
    if f_l.size != y.size:
        raise ValueError(f"{f_l.size} judge scores on the labelled claims for {y.size} labels")
    if y.size < 2 or f_u.size < 1:
        raise ValueError(f"need at least 2 labelled claims and 1 unlabelled claim, got {y.size} and {f_u.size}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    n, N = y.size, f_u.size
    w = _weights(weights_labelled, n, "weights_labelled")
    w_u = _weights(weights_unlabelled, N, "weights_unlabelled")
    if lam is None:
        if power_tuning:
            theta1 = float(np.mean(w_u * f_u) + np.mean(w * (y - f_l)))
            lam = _tuned_lam(w * (y - theta1), w * (f_l - theta1), w_u * (f_u - theta1))
        else:
            lam = 1.0
    lam = float(lam)
    estimate = float(np.mean(w_u * lam * f_u) + np.mean(w * (y - lam * f_l)))
    imputed_se = float(np.std(w_u * lam * f_u) / np.sqrt(N))
    rectifier_se = float(np.std(w * (y - lam * f_l)) / np.sqrt(n))
    se = float(np.sqrt(imputed_se**2 + rectifier_se**2))
    return PPIEstimate(estimate, _interval(estimate, se, alpha), se, lam, n, N, alpha, "ppi++" if power_tuning else "ppi",
                       {"imputed_se": imputed_se, "rectifier_se": rectifier_se})


def classical_mean(labels: Sequence[float], *, alpha: float = 0.05, weights: Sequence[float] | None = None) -> PPIEstimate:
    """The labels alone: their (weighted) mean and normal interval (``ppi_py.classical_mean_ci``)."""
    y = _as_array(labels, "labels")
    if y.size < 2:
        raise ValueError(f"need at least 2 labels, got {y.size}")
    w = _weights(weights, y.size, "weights")
    estimate = float(np.mean(w * y))
    se = float(np.std(w * y) / np.sqrt(y.size))
    return PPIEstimate(estimate, _interval(estimate, se, alpha), se, 0.0, y.size, 0, alpha, "classical")


def stratified_ppi_mean(
    judge_scores: Sequence[float],
    strata: Sequence[Any],
    labelled: Sequence[bool],
    labels: Sequence[float],
    *,
    weights: Sequence[float] | None = None,
    groups: Sequence[Any] | None = None,
    alpha: float = 0.05,
    power_tuning: bool = True,
    include_sampling: bool = True,
) -> PPIEstimate:
    """PPI++ within strata of claims, for an estimand ``sum_i weights[i] * label_i`` over all claims.

    ``judge_scores``, ``strata`` (e.g. the judge's rating), ``labelled`` (a mask) and ``weights`` (the
    claim's weight in the estimand, as given: default ``1/N``) run over every claim; ``labels`` are the
    labels' scores of the labelled claims, in order. The labelled claims of a stratum must be a simple
    random sample of it (``textleak label`` draws so): each has inclusion probability ``n_s / N_s``, so the
    rectifier is weighted by ``a_i = N_s w_i / W_s`` (Horvitz-Thompson, unbiased for any weights);
    every stratum with weight needs at least 2 labels, or all of its claims labelled (then its part is
    known exactly); a ``ValueError`` says which stratum falls short.

    Per stratum s with weight W_s: ``theta_s = lam_s * (weighted judge mean of s) + mean of the labels'
    a * (y - lam_s * f)``; the estimate is ``sum_s W_s theta_s``, i.e. ``sum_i weights[i] * c_i`` with the
    calibrated score ``c_i = lam_s * f_i + rectifier_s``. With ``power_tuning``, ``lam_s`` is PPI++'s on the
    unweighted scores: a stratum whose judge scores are one value (a rating's) gets 1, i.e. PPI, unbiased
    for any weights, and labels that equal the judge's scores give the judge's figure. Its variance is
    the labelling part ``sum_s W_s^2 var_s(a (y - lam_s f)) / n_s`` plus, with ``include_sampling``, the
    sampling of the units in ``groups`` (records; default: each claim) from the variance of their calibrated means, which is
    what the report's bootstrap interval covers for the judge's figure.
    """
    f = _as_array(judge_scores, "judge_scores")
    mask = np.asarray(labelled, dtype=bool).reshape(-1)
    y = _as_array(labels, "labels")
    strata_arr = np.asarray([str(s) for s in strata])
    n_all = f.size
    if mask.size != n_all or strata_arr.size != n_all:
        raise ValueError(f"judge_scores, strata and labelled must have one entry per claim ({n_all}, {strata_arr.size}, {mask.size})")
    if int(mask.sum()) != y.size:
        raise ValueError(f"{int(mask.sum())} claims marked labelled for {y.size} labels")
    w = np.full(n_all, 1.0 / max(n_all, 1)) if weights is None else _as_array(weights, "weights")
    if w.size != n_all or np.any(w < 0):
        raise ValueError("weights: one non-negative weight per claim")
    y_full = np.full(n_all, np.nan)
    y_full[mask] = y
    calibrated = np.empty(n_all)
    var_label = 0.0
    lams: dict[str, float] = {}
    per_stratum: dict[str, dict[str, float]] = {}
    for s in sorted(set(strata_arr.tolist())):
        in_s = strata_arr == s
        W = float(w[in_s].sum())
        lab = in_s & mask
        n_s = int(lab.sum())
        if W <= 0:
            calibrated[in_s] = f[in_s]
            continue
        if n_s == int(in_s.sum()):  # every claim of the stratum labelled: its part is known exactly
            calibrated[in_s] = y_full[in_s]
            lams[s] = 0.0
            per_stratum[s] = {"weight": W, "claims": n_s, "labels": n_s, "judge_mean": float(np.sum(w[in_s] * f[in_s]) / W),
                              "label_mean": float(np.sum(w[in_s] * y_full[in_s]) / W), "estimate": float(np.sum(w[in_s] * y_full[in_s]) / W)}
            continue
        if n_s < 2:
            raise ValueError(f"stratum {s!r} holds {int(in_s.sum())} claims ({W:.1%} of the estimate) but {n_s} label(s): "
                             "it needs at least 2 (textleak label draws some in every judge rating)")
        f_mean = float(np.sum(w[in_s] * f[in_s]) / W)
        f_l, y_l = f[lab], y_full[lab]
        a = w * (int(in_s.sum()) / W)  # the claim's share of the stratum over its inclusion probability, times n_s
        a_l = a[lab]
        if power_tuning:  # lam from how the labels follow the judge, not from the weights: 1 where the judge's score is one value
            rest = in_s & ~mask
            f_u = f[rest] if rest.any() else f[in_s]
            lam = _tuned_lam(y_l, f_l, f_u)  # (its covariance and variance are centred: no theta needed)
        else:
            lam = 1.0
        rect = a_l * (y_l - lam * f_l)
        calibrated[in_s] = lam * f[in_s] + float(rect.mean())
        var_label += W**2 * float(np.var(rect, ddof=1)) / n_s
        lams[s] = lam
        per_stratum[s] = {"weight": W, "claims": int(in_s.sum()), "labels": n_s, "judge_mean": f_mean,
                          "label_mean": float(np.mean(a_l * y_l)), "estimate": lam * f_mean + float(rect.mean())}
    total_w = float(w.sum())
    estimate = float(np.sum(w * calibrated))
    var_sampling = 0.0
    if include_sampling:
        g = np.arange(n_all) if groups is None else np.asarray([str(x) for x in groups])
        if g.size != n_all:
            raise ValueError("groups: one entry per claim")
        _, inverse = np.unique(g, return_inverse=True)
        G = np.bincount(inverse, weights=w)
        keep = G > 0
        p = np.bincount(inverse, weights=w * calibrated)[keep] / G[keep]
        G = G[keep]
        R = G.size
        if R > 1:
            centre = np.sum(G * p) / G.sum()
            var_sampling = float(np.sum(G**2 * (p - centre) ** 2) * R / (R - 1))
    se = float(np.sqrt(var_label + var_sampling))
    return PPIEstimate(estimate, _interval(estimate, se, alpha), se, lams, int(mask.sum()), int((~mask).sum()), alpha,
                       "stratified ppi++" if power_tuning else "stratified ppi",
                       {"label_se": float(np.sqrt(var_label)), "sampling_se": float(np.sqrt(var_sampling)),
                        "weight_total": total_w, "strata": per_stratum})
