"""Agreement measures (seed 000 table 4) and threshold calibration, checked against hand-computed values."""

import json
import math

import pytest

from textleak.judges.agreement import (
    agreement, calibrate_thresholds, cohen_kappa, confusion, fleiss_kappa, load_labelled_claims, ratings_from_thresholds, spearman,
)


def test_spearman_extremes_and_constant():
    assert spearman([1, 2, 3, 3], [1, 2, 3, 3])[0] == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1])[0] == pytest.approx(-1.0)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3])[0])


def test_cohen_kappa_hand_computed():
    gold = [1, 1, 2, 2, 3, 3]
    pred = [1, 2, 2, 2, 3, 1]
    # p_o = 4/6; p_e = (2*2 + 2*3 + 2*1) / 36 = 1/3; kappa = (2/3 - 1/3) / (2/3) = 0.5
    assert cohen_kappa(gold, pred) == pytest.approx(0.5)
    # linear weights: disagreements cost |i-j|/2; observed cost = (0.5 + 1.0)/6 = 0.25;
    # expected cost = sum over marginals (2*2*0 + ...) computed: 0.5 -> kappa_w = 1 - 0.25/e
    observed = (0.5 + 1.0) / 6
    gold_m, pred_m = [2 / 6, 2 / 6, 2 / 6], [2 / 6, 3 / 6, 1 / 6]
    expected = sum(gold_m[i] * pred_m[j] * abs(i - j) / 2 for i in range(3) for j in range(3))
    assert cohen_kappa(gold, pred, "linear") == pytest.approx(1 - observed / expected)


def test_fleiss_kappa_hand_computed():
    # per-item agreement 1, 1, 0, 1 -> P_bar = 0.75; proportions 3/8, 3/8, 2/8 -> P_e = 22/64
    assert fleiss_kappa([[1, 1], [2, 2], [1, 2], [3, 3]]) == pytest.approx((0.75 - 22 / 64) / (1 - 22 / 64))
    assert fleiss_kappa([[1, 1, 1], [2, 2, 2], [3, 3, 3]]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 2], [1]])
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 4]])


def test_fleiss_kappa_wikipedia_example():
    # Fleiss (1971) worked example as tabulated on Wikipedia: 10 items, 14 raters, 5 categories -> 0.210
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    ratings = [[c + 1 for c, k in enumerate(row) for _ in range(k)] for row in table]
    assert fleiss_kappa(ratings, labels=(1, 2, 3, 4, 5)) == pytest.approx(0.2099, abs=1e-4)


def test_confusion_and_unparsed_are_counted_not_scored():
    assert confusion([1, 2, 3, 3], [1, 3, 3, 1]) == [[1, 0, 0], [0, 0, 1], [1, 0, 1]]
    report = agreement([1, 2, 3, 3], [1, None, 3, None])
    assert report.n == 4 and report.n_unparsed == 2 and report.coverage == 0.5
    assert report.accuracy == 1.0  # on the two parsed claims
    assert report.confusion == [[1, 0, 0], [0, 0, 0], [0, 0, 1]]
    with pytest.raises(ValueError, match="item 1"):
        agreement([1, 4], [1, 1])


def test_calibrate_thresholds_separable_picks_smallest_perfect_pair():
    sims = [0.9, 0.85, 0.6, 0.55, 0.2, 0.1]
    gold = [1, 1, 2, 2, 3, 3]
    t1, t2, kappa = calibrate_thresholds(sims, gold)
    assert (t1, t2, kappa) == (pytest.approx(0.61), pytest.approx(0.21), pytest.approx(1.0))
    assert ratings_from_thresholds(sims, t1, t2) == gold


def test_calibrate_thresholds_respects_caps():
    # claim 0 is similar enough to be "1" but capped at 2 (numbers missing): gold 2 is reachable
    t1, t2, kappa = calibrate_thresholds([0.95, 0.9, 0.1], [2, 1, 3], caps=[2, 1, 1])
    assert kappa == pytest.approx(1.0)


def test_shipped_calibration_set_is_valid_and_split_by_scenario():
    items = load_labelled_claims()
    assert len(items) >= 200
    assert {it.gold for it in items} == {1, 2, 3}
    assert {it.domain for it in items} == {"medqa", "wildchat"}
    train, test = load_labelled_claims(split="train"), load_labelled_claims(split="test")
    assert len(train) + len(test) == len(items)
    assert not {it.document for it in train} & {it.document for it in test}
    assert not {it.id.split("-")[0] for it in train} & {it.id.split("-")[0] for it in test}
    cats = {it.category for it in items}
    assert {"identical", "paraphrase", "generalisation", "changed_number", "removed", "contradiction"} <= cats
    assert all(it.gold != 1 for it in items if it.category in ("changed_number", "generalisation", "removed", "contradiction"))


def test_bad_label_file_names_the_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"claim": "a", "document": "b", "gold": 2}) + "\n" + json.dumps({"claim": "a", "document": "b", "gold": 5}) + "\n")
    with pytest.raises(ValueError, match=r"labels.jsonl:2"):
        load_labelled_claims(path)


def test_fast_linear_kappa_equals_sklearn():
    import numpy as np

    from textleak.judges.agreement import _linear_kappa

    rng = np.random.default_rng(0)
    for _ in range(20):
        g, p = rng.integers(1, 4, 50), rng.integers(1, 4, 50)
        assert _linear_kappa(g, p) == pytest.approx(cohen_kappa(g.tolist(), p.tolist(), "linear"))
