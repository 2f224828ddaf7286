"""Failure paths of the hand-label correction that must never report more privacy than the report measured."""

from __future__ import annotations

import pytest

from textleak.leakage.labels import corrected_privacy, judged_claims, read_labels


def _records(odd_status: str, odd_score):
    """Six records, each with rated claims 1/3/2 and one claim of a status the judge did not rate 'ok'."""
    def claim(text, rating, status="ok", score=None):
        return {"text": text, "known": False, "rating": rating,
                "score": (rating - 1) / 2 if rating is not None else score, "status": status}

    records = [{"index": i, "id": f"r{i}", "linked_text": f"released {i}",
                "claims": [claim(f"c{i}a", 1), claim(f"c{i}b", 3), claim(f"c{i}c", 2),
                           claim(f"c{i}d", None, odd_status, odd_score)]} for i in range(6)]
    for r in records:  # as textleak.leakage.aggregate counts them under unparsed="leak": any status but ok is 0
        r["privacy"] = sum(c["score"] if c["status"] == "ok" else 0.0 for c in r["claims"]) / 4
    return records


@pytest.mark.parametrize("status,score", [("error", None), ("error", 1.0), ("unparsed", 1.0)])
def test_a_claim_not_rated_ok_counts_as_leaked_like_the_report(status, score):
    """aggregate counts every claim whose status is not 'ok' (nor 'unreadable') as unparsed: leaked (0)
    under unparsed='leak'. The correction must do the same, not keep a score nor drop the claim."""
    records = _records(status, score)
    claims = judged_claims(records)
    assert len(claims) == 24
    assert sum(c.weight * c.score for c in claims) == pytest.approx(records[0]["privacy"])
    labels = {c.key: c.rating for c in claims if not c.fixed}
    out = corrected_privacy(records, labels)
    assert out["judge_alone"]["semantic_privacy"] == pytest.approx(records[0]["privacy"])
    assert out["semantic_privacy"] <= records[0]["privacy"] + 1e-9


def test_exclude_leaves_out_every_claim_not_rated_ok():
    records = _records("error", 1.0)
    assert all(c.claim[-1] != "d" for c in judged_claims(records, unparsed="exclude"))


@pytest.mark.parametrize("bad", ["2.5", "3.7", 2.5, True])
def test_read_labels_rejects_a_label_that_is_not_a_whole_rating(tmp_path, bad):
    """'2.5' or 3.7 is not a rating on the rubric: truncating it (to 2 or 3, more private) would invent
    privacy; it is one error naming the file and the line."""
    import json

    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"key": "a", "label": 1}) + "\n" + json.dumps({"key": "b", "label": bad}) + "\n")
    with pytest.raises(ValueError, match=r"labels.jsonl:2: label"):
        read_labels(path)


def test_the_interval_covers_the_records_spread_in_unparsed_claims():
    """Unparsed claims are fixed at 0, but how many a record has varies from record to record: that spread
    is record sampling and belongs in the interval. Here the labels agree with the judge everywhere, so the
    whole width comes from it; without it the interval was a point and its lower end claimed more privacy
    than the records support."""
    def claim(text, rating, status="ok"):
        return {"text": text, "known": False, "rating": rating, "score": None if rating is None else (rating - 1) / 2,
                "status": status}

    records = []
    for i in range(20):
        claims = [claim(f"c{i}a", 1), claim(f"c{i}b", 3)] + [claim(f"c{i}u{k}", None, "unparsed") for k in range(2 * (i % 2))]
        records.append({"index": i, "id": f"r{i}", "linked_text": f"released {i}", "claims": claims,
                        "privacy": sum(c["score"] or 0.0 for c in claims) / len(claims)})
    claims = judged_claims(records)
    out = corrected_privacy(records, {c.key: c.rating for c in claims if not c.fixed})
    mean = sum(r["privacy"] for r in records) / len(records)
    assert out["semantic_privacy"] == pytest.approx(mean)
    assert out["ci95"][0] < mean - 0.03 and out["ci95"][1] > mean + 0.03
    assert out["n_labels"] == 40
