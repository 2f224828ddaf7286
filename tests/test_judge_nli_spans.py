"""Which spans the NLI judge's cross-encoder reads: the bi-encoder's best span, the sentences holding the
claim's written values (``value_spans``, on by default) and, as an option, the sentence sharing most of the
claim's words (``lexical_span``, read for a statement of the claim only). A stub span finder and a stub
cross-encoder make the routing visible without the models."""

from __future__ import annotations

import numpy as np
import pytest

import textleak.judges.nli as nli
from textleak.judges.nli import NLIJudge, lexical_sentence, lexical_span, value_span
from textleak.judges.values import value_verdict

SAME, SIMILAR, UNSUPPORTED = [0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.02, 0.03, 0.95]


class StubModel:
    """p(same) for a span holding ``marker``, ``other`` for every other span; records what it read."""

    def __init__(self, marker: str, other=UNSUPPORTED, hit=SAME):
        self.marker, self.other, self.hit, self.read = marker, other, hit, []

    def predict(self, pairs, batch_size=32):
        self.read += [s for _, s in pairs]
        return np.asarray([self.hit if self.marker in s else self.other for _, s in pairs], dtype=float)


def judge_with(monkeypatch, model: StubModel, best_span: str, similarity: float = 0.5, **options) -> NLIJudge:
    judge = NLIJudge(reader_view=False, **options)
    monkeypatch.setattr(nli, "load_nli_model", lambda *a, **k: model)
    monkeypatch.setattr(judge, "candidate_spans", lambda claims, docs: [[{"similarity": similarity, "spans": [best_span]} for _ in cs] for cs in claims])
    return judge


DOC = ("Hi team. Our nightly backup job has been failing since Monday. "
       "The job runs on the host called orion-db02 and writes to the NAS. "
       "Please advise.")


def test_the_sentence_that_writes_the_value_is_read(monkeypatch):
    model = StubModel("orion-db02")
    judge = judge_with(monkeypatch, model, "Our nightly backup job has been failing since Monday.")
    rating = judge.rate([["The backup job runs on the host orion-db02."]], [DOC])[0][0]
    assert any("orion-db02" in s for s in model.read)
    assert rating.rating == 1 and rating.detail["span"].startswith("The job runs on the host called orion-db02")


def test_without_value_spans_only_the_best_span_is_read(monkeypatch):
    model = StubModel("orion-db02")
    judge = judge_with(monkeypatch, model, "Our nightly backup job has been failing since Monday.", value_spans=0)
    judge.rate([["The backup job runs on the host orion-db02."]], [DOC])
    assert model.read == ["Our nightly backup job has been failing since Monday."]


def test_a_value_sentence_is_read_even_below_the_cascade(monkeypatch):
    """The bi-encoder's similarity alone no longer settles a claim whose value is written."""
    model = StubModel("orion-db02")
    judge = judge_with(monkeypatch, model, "Please advise.", similarity=0.05)
    rating = judge.rate([["The backup job runs on the host orion-db02."]], [DOC])[0][0]
    assert model.read and all("orion-db02" in s for s in model.read) and rating.rating == 1


def test_below_the_cascade_with_no_value_the_claim_stays_unsupported_unread(monkeypatch):
    model = StubModel("never")
    judge = judge_with(monkeypatch, model, "Please advise.", similarity=0.05)
    rating = judge.rate([["The user owns a red bicycle."]], [DOC])[0][0]
    assert model.read == [] and rating.rating == 3 and "below" in rating.detail["reason"]


def test_value_verdict_names_where_the_values_are():
    verdict = value_verdict("The backup job runs on the host orion-db02.", DOC)
    assert verdict.sentences and "orion-db02" in verdict.sentences[0]
    assert value_verdict("The user owns a red bicycle.", DOC).sentences == ()


def test_value_span_is_centred_on_the_value():
    words = [f"w{k}" for k in range(100)]
    sentence = " ".join(words[:70] + ["orion-db02"] + words[70:])
    span = value_span(sentence, ("orion-db02",), 32)
    assert len(span.split()) == 32 and "orion-db02" in span
    assert value_span("short one", ("absent",), 32) == "short one"


def test_lexical_sentence_and_span():
    sentences = ["EDUCATION", "B.Sc. Computer Science, University of Lagos, graduated 2014", "Skills: Go, SQL"]
    assert lexical_sentence("The user graduated in 2014.", sentences) == sentences[1]
    assert lexical_sentence("The user owns a red bicycle.", sentences) is None
    long = " ".join(["filler"] * 60 + ["graduated", "from", "Lagos"] + ["filler"] * 60)
    assert "graduated" in lexical_span(long, "The user graduated from Lagos.", 32)


@pytest.mark.parametrize("lexical_says, expected", [(SAME, 1), (SIMILAR, 3)])
def test_the_lexical_span_counts_only_for_a_statement(monkeypatch, lexical_says, expected):
    """lexical_span=True: the sentence sharing most of the claim's words is read, and moves the rating only
    where the cross-encoder finds the claim stated there (another record's template sentence that is merely
    'similar' does not)."""
    doc = "EDUCATION. I graduated from Ridgeway College in 2014 with honours."
    model = StubModel("graduated", hit=lexical_says)
    judge = judge_with(monkeypatch, model, "EDUCATION.", value_spans=0, lexical_span=True)
    rating = judge.rate([["The user finished college with honours."]], [doc])[0][0]
    assert any("graduated" in s for s in model.read)
    assert rating.rating == expected


@pytest.mark.parametrize("value", [-1, 1.5, True, "1"])
def test_a_malformed_value_spans_is_refused(value):
    with pytest.raises(ValueError, match="value_spans"):
        NLIJudge(value_spans=value)


def test_the_span_options_are_described_and_change_the_cache_key():
    base, lexical = NLIJudge().describe(), NLIJudge(lexical_span=True).describe()
    assert base["value_spans"] == 1 and base["lexical_span"] is False and lexical["lexical_span"] is True
    assert NLIJudge()._default_settings() and not NLIJudge(lexical_span=True)._default_settings()
    assert not NLIJudge(value_spans=0)._default_settings()


LANDLORD = ("Dear Mr Okafor. You have kept £420 of my £1,150 deposit for carpet cleaning. "
            "The carpet had the same marks at check-in, and I have the photos to prove it.")


@pytest.mark.parametrize("at_values, expected", [([0.2, 0.7, 0.1], 1), ([0.02, 0.94, 0.04], 1), ([0.2, 0.35, 0.45], 1),
                                                 ([0.3, 0.2, 0.5], 1), ([0.45, 0.0, 0.55], 1), ([0.2, 0.1, 0.7], 2),
                                                 ([0.1, 0.05, 0.85], 2), (UNSUPPORTED, 2)])
def test_values_written_together_where_the_model_finds_no_contradiction_are_stated(monkeypatch, at_values, expected):
    """'£420' is written, but the claim's relation words (landlord, deducted) are not, so the value rule alone
    allows 2. Read where the value is: p(unsupported) below ``STATED_AT_VALUES_UNSUPPORTED`` (0.7, rules .24) there
    makes it 1 (rules 2026-11-29.6: "similar" at a sentence writing every value of the claim, as dated log lines are
    read, counts); unsupported there, 2."""
    claim = "The landlord deducted £420 from the deposit."
    verdict = value_verdict(claim, LANDLORD)
    assert verdict.cap == 2 and verdict.together and "£420" in verdict.sentences[0]
    model = StubModel("£420", hit=at_values)
    judge = judge_with(monkeypatch, model, "Dear Mr Okafor.")
    rating = judge.rate([[claim]], [LANDLORD])[0][0]
    assert rating.rating == expected
    if expected == 1:
        assert rating.score <= nli.STATED_AT_VALUES_SCORE and "stated_at_values" in rating.detail


def test_values_in_different_sentences_are_not_together():
    verdict = value_verdict("The user flew from Lisbon to Oslo.", "I left Lisbon on Monday. Two days later I was in Oslo.")
    assert set(verdict.values) == {"Lisbon", "Oslo"} and len(verdict.sentences) == 2 and not verdict.together
    assert value_verdict("The user flew from Lisbon to Oslo.", "I flew from Lisbon via Oslo.").together


def test_value_span_is_centred_on_the_value_after_letters_that_change_length_when_lowered():
    """'İ' lowers to two code points: an offset found in the lowered text would land words too late."""
    sentence = " ".join(["İİİİİİİİİİ"] * 30 + ["orion-db02"] + ["tail"] * 40)
    assert "orion-db02" in value_span(sentence, ("orion-db02",), 8)


def test_a_lexical_span_missing_the_claims_number_does_not_count_under_the_number_guard(monkeypatch):
    """With number_guard, a lexical span rated 'same' but missing the claim's number is moved to 'similar'
    first, so it is no statement and leaves the claim to its other spans."""
    doc = "EDUCATION. I graduated from Ridgeway College with honours."
    model = StubModel("graduated", hit=SAME)
    judge = judge_with(monkeypatch, model, "EDUCATION.", value_spans=0, lexical_span=True, number_guard=True, values=False)
    rating = judge.rate([["The user graduated from college with honours in 2014."]], [doc])[0][0]
    assert any("graduated" in s for s in model.read) and rating.rating == 3
