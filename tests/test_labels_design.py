"""The labelling draw and the correction agree on one design whose inclusion probabilities are known."""

from __future__ import annotations

import numpy as np
import pytest

from textleak.leakage.labels import corrected_privacy, draw_sample, judged_claims


def _claim(text: str, rating: int) -> dict:
    return {"text": text, "known": False, "rating": rating, "score": (rating - 1) / 2, "status": "ok"}


def _records() -> list[dict]:
    """Seven records weighing 1/7 each: three with one rating-3 claim (1/7 each), three with three
    rating-3 claims (1/21 each), one with three rating-1 claims."""
    records = [{"index": i, "id": f"lone{i}", "linked_text": "a", "claims": [_claim(f"lone {i}", 3)]} for i in range(3)]
    records += [{"index": 3 + i, "id": f"many{i}", "linked_text": "b", "claims": [_claim(f"many {i} {j}", 3) for j in range(3)]}
                for i in range(3)]
    records += [{"index": 6, "id": "low", "linked_text": "c", "claims": [_claim(f"low {j}", 1) for j in range(3)]}]
    for r in records:
        r["privacy"] = float(np.mean([c["score"] for c in r["claims"]]))
    return records


def test_corrected_privacy_is_unbiased_over_the_labelling_draw():
    """A labeller who calls the heavy lone claims leaked (the judge: private): over 400 seeded draws of
    `textleak label`'s sample, the corrected figure centres on the labeller's figure (3/7). The old draw
    (numpy's weighted choice without replacement, p = weights) took a lone claim with a probability well
    under the labels x weight / stratum weight the estimator assumed (over 1 here): mean 0.59."""
    records = _records()
    claims = judged_claims(records)
    truth = {c.key: 1 if c.claim.startswith(("lone", "low")) else 3 for c in claims}
    target = sum(c.weight * (truth[c.key] - 1) / 2 for c in claims)
    assert target == pytest.approx(3 / 7)
    estimates = [corrected_privacy(records, {c.key: truth[c.key] for c in draw_sample(claims, 12, seed=seed)})["semantic_privacy"]
                 for seed in range(400)]
    assert np.mean(estimates) == pytest.approx(target, abs=0.03)  # standard error of the mean ~0.006
    assert np.std(estimates) > 0.05  # the draw matters: the check could fail


@pytest.mark.parametrize("rating,label", [(1, 3), (3, 1)])
def test_corrected_privacy_and_its_interval_stay_in_0_1(rating, label):
    """Two labels, one on a claim alone in its record (5 times a stratum claim's mean weight): the
    weighted rectifier puts the unclipped estimate at 2.78 (rating 1 labelled 3) or -1.78 (rating 3
    labelled 1); privacy is a share of claims, so the figure and its interval's ends are clipped to [0, 1]."""
    records = [{"index": 0, "id": "lone", "linked_text": "a", "claims": [_claim("lone", rating)]},
               {"index": 1, "id": "many", "linked_text": "b", "claims": [_claim(f"many {j}", rating) for j in range(9)]}]
    for r in records:
        r["privacy"] = (rating - 1) / 2
    claims = judged_claims(records)
    out = corrected_privacy(records, {claims[0].key: label, claims[1].key: label})
    assert out["semantic_privacy"] == (1.0 if label == 3 else 0.0)
    assert 0.0 <= out["ci95"][0] <= out["semantic_privacy"] <= out["ci95"][1] <= 1.0


def test_claims_counted_leaked_because_unread_are_never_labelled_nor_corrected():
    """Released text the judge cannot read counts as leaked by policy (unreadable='leak': status ok,
    rating 1). Those claims were never judged: they are not drawn for labelling, and labels on them (a
    labeller calling them unsupported) leave the corrected figure where the policy put it; before, they
    took the rating-1 stratum's correction (0.0 -> 0.5 here)."""
    from textleak.leakage import evaluate_leakage

    originals = [
        "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle.",
        "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps.",
        "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin.",
        "Dina is 33 years old. Dina is a nurse. Dina lives in Cork. Dina has eczema. Dina keeps two cats."]
    released = [
        "Anna tiene 25 años. Anna es cocinera. Anna vive en Oslo. Anna tiene asma. Anna tiene una bicicleta roja.",
        "Boris tiene 60 años. Boris es piloto. Boris vive en Roma. Boris tiene gota. Boris colecciona mapas antiguos.",
        "Chen is 41 years old. Chen plays the violin.", "Dina lives in Cork. Dina keeps two cats."]
    report = evaluate_leakage(originals, released, judge="lexical", bootstrap=0, use_cache=False)
    assert report.n_unreadable == 2
    claims = judged_claims(report.records)
    unread = [c for c in claims if c.record_index in (0, 1)]
    assert unread and all(c.fixed for c in unread)
    assert not any(c.record_index in (0, 1) for c in draw_sample(claims, 100, seed=0))
    judged = {c.key: c.rating for c in claims if c.record_index > 1}
    base = corrected_privacy(report.records, judged)
    more = corrected_privacy(report.records, judged | {c.key: 3 for c in unread})
    assert more["semantic_privacy"] == pytest.approx(base["semantic_privacy"]) == pytest.approx(report.semantic_privacy)
    assert more["n_on_unparsed"] == len(unread)
