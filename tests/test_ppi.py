"""The PPI estimator (textleak.leakage.ppi): agrees with ppi-python, is unbiased for a biased judge,
and its stratified form reproduces the report's record-weighted aggregate."""

from __future__ import annotations

import numpy as np
import pytest

from textleak.leakage.ppi import classical_mean, ppi_mean, stratified_ppi_mean


def _fixed(seed: int = 3, n: int = 60, N: int = 700):
    rng = np.random.default_rng(seed)
    y_all = rng.choice([0.0, 0.5, 1.0], size=n + N, p=[0.3, 0.2, 0.5])
    f_all = np.clip(0.6 * y_all + 0.3 + rng.normal(0, 0.15, n + N), 0, 1)  # biased upward, noisy
    return f_all[N:], y_all[N:], f_all[:N], rng.uniform(0.2, 2.0, n), rng.uniform(0.2, 2.0, N)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("lam", [None, 1.0, 0.0, 0.4])
def test_agrees_with_ppi_python(weighted, lam):
    ppi_py = pytest.importorskip("ppi_py")
    f_l, y, f_u, w, w_u = _fixed()
    kw = {"w": w, "w_unlabeled": w_u} if weighted else {}
    ours = ppi_mean(f_u, f_l, y, alpha=0.05, lam=lam, weights_labelled=w if weighted else None,
                    weights_unlabelled=w_u if weighted else None)
    point = ppi_py.ppi_mean_pointestimate(y, f_l, f_u, lam=lam, **kw)
    lo, hi = ppi_py.ppi_mean_ci(y, f_l, f_u, alpha=0.05, lam=lam, **kw)
    assert ours.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-10)
    assert ours.ci[0] == pytest.approx(float(np.ravel(lo)[0]), abs=1e-10)
    assert ours.ci[1] == pytest.approx(float(np.ravel(hi)[0]), abs=1e-10)


def test_classical_agrees_with_ppi_python():
    ppi_py = pytest.importorskip("ppi_py")
    _, y, _, _, _ = _fixed()
    lo, hi = ppi_py.classical_mean_ci(y, alpha=0.05)
    r = classical_mean(y)
    assert r.ci == pytest.approx((float(np.ravel(lo)[0]), float(np.ravel(hi)[0])), abs=1e-10)


def test_published_formula_by_hand():
    """Plain PPI (lam=1): judge mean on the unlabelled + mean of (label - judge) on the labelled."""
    f_u = [0.9, 0.8, 1.0, 0.7]
    f_l, y = [1.0, 0.5, 0.9], [0.5, 0.5, 0.0]
    r = ppi_mean(f_u, f_l, y, lam=1.0)
    assert r.estimate == pytest.approx(0.85 + (-0.5 + 0.0 - 0.9) / 3)
    se = np.sqrt(np.var(f_u) / 4 + np.var(np.subtract(y, f_l)) / 3)
    assert r.ci == pytest.approx((r.estimate - 1.959964 * se, r.estimate + 1.959964 * se), abs=1e-6)


def test_corrects_a_biased_judge_and_tuning_narrows():
    """A judge 0.2 too high: its mean misses, PPI's estimate does not; PPI++ is no wider than PPI or the labels alone."""
    rng = np.random.default_rng(0)
    errors, covered = [], 0
    for _ in range(300):
        y = rng.choice([0.0, 0.5, 1.0], size=3000)
        f = np.clip(y + 0.2 + rng.normal(0, 0.1, y.size), 0, 1.2)
        idx = rng.choice(y.size, 100, replace=False)
        mask = np.zeros(y.size, bool)
        mask[idx] = True
        r = ppi_mean(f[~mask], f[mask], y[mask])
        errors.append(r.estimate - y.mean())
        covered += r.ci[0] <= y.mean() <= r.ci[1]
    assert abs(np.mean(errors)) < 0.01
    assert abs(f.mean() - y.mean()) > 0.1
    assert covered >= 0.92 * 300
    one = ppi_mean(f[~mask], f[mask], y[mask])
    assert one.ci[1] - one.ci[0] < classical_mean(y[mask]).ci[1] - classical_mean(y[mask]).ci[0]


def test_stratified_with_a_perfect_judge_is_the_record_weighted_aggregate():
    """Labels that equal the judge's scores: the estimate is the report's aggregate (mean over records of
    the mean over their claims) exactly, whichever claims were labelled."""
    rng = np.random.default_rng(1)
    sizes = [1, 4, 2, 7, 3, 5]
    groups = np.repeat(np.arange(len(sizes)), sizes)
    w = np.concatenate([[1 / (len(sizes) * s)] * s for s in sizes])
    f = rng.choice([0.0, 0.5, 1.0], size=groups.size)
    strata = (f * 2).astype(int) + 1
    mask = np.zeros(groups.size, bool)
    for s in (1, 2, 3):
        mask[np.flatnonzero(strata == s)[:2]] = True
    r = stratified_ppi_mean(f, strata, mask, f[mask], weights=w, groups=groups)
    expected = np.mean([f[groups == g].mean() for g in range(len(sizes))])
    assert r.estimate == pytest.approx(expected)
    assert r.detail["label_se"] == pytest.approx(0.0)


def test_stratified_is_unbiased_under_its_design_and_covers():
    """Labels drawn within the judge's ratings, a simple random sample in each (as textleak label draws),
    claims weighted by their records: the estimate centres on the labels' aggregate and the interval covers it."""
    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 8, 400)
    groups = np.repeat(np.arange(sizes.size), sizes)
    w = np.concatenate([[1 / (sizes.size * s)] * s for s in sizes])
    y = rng.choice([0.0, 0.5, 1.0], size=groups.size, p=[0.25, 0.15, 0.6])
    f = np.clip(0.5 * y + 0.45 + rng.normal(0, 0.1, y.size), 0, 1)
    rating = np.digitize(f, [1 / 3, 2 / 3]) + 1
    truth = float(np.sum(w * y))
    errs, cover = [], 0
    for _ in range(200):
        mask = np.zeros(y.size, bool)
        for s in np.unique(rating):
            idx = np.flatnonzero(rating == s)
            take = rng.choice(idx, size=min(idx.size, 35), replace=False)
            mask[take] = True
        r = stratified_ppi_mean(f, rating, mask, y[mask], weights=w, groups=groups, include_sampling=False)
        errs.append(r.estimate - truth)
        cover += r.ci[0] <= truth <= r.ci[1]
    assert abs(np.mean(errs)) < 0.01
    assert abs(np.sum(w * f) - truth) > 0.05  # the judge alone is off
    assert cover >= 0.9 * 200


def test_stratum_without_labels_is_refused():
    f = [0.1, 0.2, 0.9, 0.8, 0.95]
    with pytest.raises(ValueError, match="stratum '3'.*1 label"):
        stratified_ppi_mean(f, [1, 1, 3, 3, 3], [True, True, True, False, False], [0.0, 0.5, 1.0])


@pytest.mark.parametrize("bad", [dict(judge_labelled=[0.5], labels=[0.5, 1.0]), dict(judge_labelled=[0.5], labels=[0.5]),
                                 dict(judge_labelled=[0.5, float("nan")], labels=[0.5, 1.0])])
def test_bad_inputs_are_one_clear_error(bad):
    with pytest.raises(ValueError):
        ppi_mean([0.5, 0.6], **bad)


def test_a_stratum_labelled_whole_is_known_exactly():
    f = [0.1, 0.2, 0.3, 0.9, 0.8, 0.95]
    r = stratified_ppi_mean(f, [1, 1, 1, 3, 3, 3], [True, True, False, True, True, True], [0.0, 0.5, 1.0, 0.0, 1.0],
                            include_sampling=False, power_tuning=False)
    assert r.detail["strata"]["3"]["estimate"] == pytest.approx(2 / 3)
    rect = np.subtract([0.0, 0.5], [0.1, 0.2])
    assert r.estimate == pytest.approx((0.5 * np.mean(f[:3]) + 0.5 * rect.mean()) + 0.5 * (2 / 3))
    assert r.detail["label_se"] == pytest.approx(0.5 * np.std(rect, ddof=1) / np.sqrt(2))
