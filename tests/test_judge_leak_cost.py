"""NLIJudge(leak_cost=...): an opt-in judge that fails further toward leakage. It may only lower ratings and
scores, its p is the model's with p(unsupported) divided by the cost, and the default is the plain model."""

from __future__ import annotations

import numpy as np
import pytest

from textleak.judges.nli import NLIJudge, expected_score, most_probable, weigh_unsupported

DOC = ("A 52-year-old woman comes to the physician because of a cough for 3 weeks. She has a history of type 2 "
       "diabetes mellitus. She denies chest pain. Her temperature is 38.6°C (101.5°F). She works as a teacher.")
CLAIMS = ["She has a history of type 2 diabetes mellitus.", "She reports chest pain.", "She works as a nurse.",
          "She has had a cough for about a month.", "She has a metabolic disease.", "She lives in Ohio.",
          "Her temperature is 39.5°C."]


def test_weigh_unsupported_is_the_reweighted_distribution():
    assert weigh_unsupported([0.2, 0.2, 0.6], 3.0) == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert weigh_unsupported([0.2, 0.2, 0.6], 2.0) == pytest.approx([2 / 7, 2 / 7, 3 / 7])
    assert most_probable([0.2, 0.35, 0.45]) == 3 and most_probable(weigh_unsupported([0.2, 0.35, 0.45], 2.0)) == 2
    assert weigh_unsupported([0.1, 0.3, 0.6], 1.0) == pytest.approx([0.1, 0.3, 0.6])


@pytest.mark.parametrize("bad", [0.5, 0, -1, True, "2", float("inf"), float("nan")])
def test_leak_cost_below_one_or_not_a_number_is_refused(bad):
    with pytest.raises(ValueError, match="leak_cost"):
        NLIJudge(leak_cost=bad)


def test_default_is_the_plain_model_and_describe_says_otherwise():
    assert NLIJudge().leak_cost == 1.0 and "leak_cost" not in NLIJudge().describe()
    d = NLIJudge(leak_cost=2).describe()
    assert d["leak_cost"] == 2.0 and d["calibration"] == "not measured for these settings"


def test_a_leak_cost_only_moves_ratings_and_scores_toward_leakage():
    plain = NLIJudge(cascade=None, verbatim=False, values=False).rate([CLAIMS], [DOC])[0]
    costly = NLIJudge(cascade=None, verbatim=False, values=False, leak_cost=3).rate([CLAIMS], [DOC])[0]
    moved = 0
    for a, b in zip(plain, costly):
        assert b.rating <= a.rating and b.score <= a.score + 1e-9
        assert b.detail["p"] == pytest.approx(list(weigh_unsupported(a.detail["p"], 3.0)), abs=1e-5)
        assert b.score == pytest.approx(expected_score(b.detail["p"]), abs=1e-5)
        moved += b.score < a.score - 1e-6
    assert moved >= 1  # a claim the model calls at all unsupported scores lower
    assert np.mean([b.score for b in costly]) < np.mean([a.score for a in plain])


def test_weigh_unsupported_reweighs_rows_as_one_distribution_each():
    rows = np.array([[0.2, 0.2, 0.6], [0.1, 0.3, 0.6], [0.0, 0.0, 1.0]])
    both = weigh_unsupported(rows, 2.0)
    assert both.shape == rows.shape
    for got, p in zip(both, rows):
        assert got == pytest.approx(weigh_unsupported(p, 2.0))
    assert weigh_unsupported(rows[:0], 2.0).shape == (0, 3)
