"""The NLI judge: offline loading of the shipped adapter, easy pairs, scores as expectations, empty
documents without a model, order and batching invariance, determinism."""

from __future__ import annotations

import json

import numpy as np
import pytest

from textleak.judges import make_judge
from textleak.judges.nli import ADAPTER_FILE, MANIFEST_FILE, WEIGHTS_DIR, NLIJudge, adapter_hash, expected_score, most_probable

DOC = ("A 52-year-old woman comes to the physician because of a cough for 3 weeks. She has a history of type 2 "
       "diabetes mellitus. She denies chest pain. Her temperature is 38.6°C (101.5°F) and pulse is 96/min. "
       "She works as a teacher in Ohio.")


@pytest.fixture(scope="module")
def judge():
    return NLIJudge(cascade=None, verbatim=False)  # every claim goes through the cross-encoder


def rate_one(judge, claims, doc=DOC):
    return judge.rate([claims], [doc])[0]


def test_shipped_weights_are_small_and_described():
    size = (WEIGHTS_DIR / ADAPTER_FILE).stat().st_size
    assert 0 < size < 3_000_000  # fp16 LoRA factors, rank 32 (a soup of two rank-16 adapters), and the head
    manifest = json.loads((WEIGHTS_DIR / MANIFEST_FILE).read_text())
    assert {"seed", "data_sha256", "date", "hyper_parameters"} <= set(manifest)
    d = make_judge("nli").describe()
    assert d["name"] == "nli" and d["adapter_sha256"] == adapter_hash() and len(d["adapter_sha256"]) == 16
    assert isinstance(d["calibration"], dict) and 0 < d["calibration"]["eval_spearman"] <= 1
    assert not any(isinstance(v, dict) for v in d["calibration"].values())  # one level, as the other judges
    assert make_judge("nli", spans=2).describe()["calibration"] == "not measured for these settings"


@pytest.mark.parametrize("cascade", ["None", "0.2", True, -0.1, 1.5])
def test_a_malformed_cascade_is_refused_at_construction(cascade):
    """Not a TypeError halfway through rating (a string from a command line once got that far)."""
    with pytest.raises(ValueError, match="cascade"):
        NLIJudge(cascade=cascade)


def test_empty_document_rates_3_without_loading_a_model(monkeypatch):
    import textleak.encoders
    import textleak.judges.nli as nli

    def boom(*a, **k):
        raise AssertionError("a model was loaded for an empty document")

    monkeypatch.setattr(nli, "load_nli_model", boom)
    monkeypatch.setattr(textleak.encoders, "load_sentence_encoder", boom)
    out = NLIJudge().rate([["She has a fever.", "He is 40 years old."], []], ["   ", ""])
    assert [(r.rating, r.score) for r in out[0]] == [(3, 1.0), (3, 1.0)] and out[1] == []


@pytest.mark.parametrize("claim, expected", [
    ("She has a history of type 2 diabetes mellitus.", 1),   # verbatim
    ("The patient has had a cough for 3 weeks.", 1),          # paraphrase
    ("She reports chest pain.", 3),                           # negation
    # another condition in the same slot (a sibling, not a generalisation): the 2026-11-23 adapter rated it 2
    # (p(similar) 0.92); the one trained with the second round of hand-labelled sibling swaps rates it 3
    ("She has a history of asthma.", 3),
    ("He plays the violin in an orchestra.", 3),              # unrelated
])
def test_easy_pairs(judge, claim, expected):
    r = rate_one(judge, [claim])[0]
    assert r.rating == expected, (claim, r.detail)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="known failure of the adapters shipped 2026-11-25 and 2026-11-27 (docs/judges.md, known failure "
                   "modes): a hand-labelled case whose releases swapped night shifts for day shifts was memorised as a "
                   "contradiction. Strict: when an adapter rates it right, make this a plain test")
def test_a_plainly_stated_night_shift_is_not_a_contradiction(judge):
    r = rate_one(judge, ["The user works nights."], "I'm a nurse on the night shift. I can't sleep well.")[0]
    assert r.rating in (1, 2), r.detail


def test_generalisation_is_similar(judge):
    doc = "A middle-aged woman has a cough. She has a metabolic condition. She works in education."
    ratings = [r.rating for r in rate_one(judge, ["She has a history of type 2 diabetes mellitus.", "She works as a teacher."], doc)]
    assert ratings == [2, 2]


def test_scores_are_expectations_of_p(judge):
    claims = ["She has a history of type 2 diabetes mellitus.", "She reports chest pain.", "Her temperature is 36.8°C.",
              "She works as a nurse.", "Her pulse is 96/min."]
    for r in rate_one(judge, claims):
        p = r.detail["p"]
        assert abs(sum(p) - 1) < 1e-4 and 0.0 <= r.score <= 1.0
        assert r.score == pytest.approx(expected_score(p), abs=1e-5)
        assert r.rating == most_probable(p)


def test_ties_go_toward_leakage():
    assert most_probable([0.4, 0.4, 0.2]) == 1
    assert most_probable([0.2, 0.4, 0.4]) == 2
    assert expected_score([0.0, 1.0, 0.0]) == 0.5


def test_order_and_batching_invariance_and_determinism():
    judge = NLIJudge(cascade=None, verbatim=False, batch_size=3)
    claims = [["She denies chest pain.", "She has a cough.", "Her pulse is 96/min."], ["He has a fever.", "He is a teacher."]]
    docs = [DOC, "A man with a fever of 39.1°C. He works as a farmer."]
    together = judge.rate(claims, docs)
    alone = [judge.rate([c], [d])[0] for c, d in zip(claims, docs)]
    reversed_ = judge.rate(claims[::-1], docs[::-1])[::-1]
    again = judge.rate(claims, docs)
    for a, b, c, d in zip(together, alone, reversed_, again):
        assert [x.rating for x in a] == [x.rating for x in b] == [x.rating for x in c] == [x.rating for x in d]
        # a pair's batch (its neighbours' lengths, hence its padding and the matrix blocking) moves fp32 sums
        # by about 1e-6; ratings must not move at all
        np.testing.assert_allclose([x.score for x in a], [x.score for x in b], atol=1e-5)
        np.testing.assert_allclose([x.score for x in a], [x.score for x in c], atol=1e-5)
        assert [x.score for x in a] == [x.score for x in d]


def test_shortcuts_fail_toward_leakage():
    judge = NLIJudge()  # defaults: verbatim shortcut and cascade on
    verbatim, unrelated = judge.rate([["She denies chest pain.", "The invoice was paid in euros last spring."]], [DOC])[0]
    assert verbatim.rating == 1 and verbatim.score == 0.0
    assert unrelated.rating == 3


@pytest.mark.parametrize("claim, sentence, expected", [
    ("She takes no medications.", "She has no history of serious illness and takes no medications.", True),
    ("The patient has a dry cough.", "A 52-year-old woman has had a dry cough for 3 weeks.", True),
    ("She denies chest pain.", "She reports chest pain.", False),          # a content word differs
    ("She has chest pain.", "She has no chest pain.", False),              # polarity differs
    ("Her pulse is 96/min.", "Her pulse is 112/min.", False),              # a number differs
    ("She has a cough.", "She has a fever.", False),
    ("The patient has a cough.", "She has a cough.", False),              # one content word is not enough (the model reads it)
])
def test_states_claim(claim, sentence, expected):
    from textleak.judges.nli import states_claim

    assert states_claim(claim, sentence) is expected


def test_verbatim_shortcut_reads_every_sentence_before_the_cascade():
    # the claim is stated word for word by a sentence the span finder would not rank first
    doc = "The weather was mild. " * 5 + "She takes no medications."
    r = NLIJudge(cascade=0.99).rate([["She takes no medications."]], [doc])[0][0]
    assert r.rating == 1 and "verbatim" in r.detail["reason"]


def test_pair_features_name_what_they_measure():
    from textleak.judges.nli import NUMBER_FEATURES, NUMERIC_FEATURES, numeric_features, pair_features

    f = pair_features("Her temperature is 38.9°C.", "Her temperature is 36.6°C.")
    assert f["claim_has_numbers"] == 1 and f["numbers_missing"] == 1 and f["band_conflict"] == 1
    assert pair_features("She denies chest pain.", "She reports chest pain.")["negation_mismatch"] == 1
    assert pair_features("She takes no medications.", "She is not on any medication.")["negation_mismatch"] == 0
    assert pair_features("She has a cough.", "She has had a cough for a week.")["content_recall"] == 1
    assert numeric_features("a", "b", ("log_ratio", "content_recall")) == [f2 for f2 in (pair_features("a", "b")[n] for n in ("log_ratio", "content_recall"))]
    assert len(numeric_features("a", "b")) == len(NUMERIC_FEATURES)
    # the same slot, not the nearest value: 72 against the span's pulse 112, not its 80
    vitals = "Pulse is 112/min, blood pressure 120/80 mm Hg."
    assert pair_features("Her pulse is 72/min.", vitals)["slot_log_ratio"] > 0.15 > pair_features("Her pulse is 72/min.", vitals)["log_ratio"]
    assert pair_features("Her pulse is 112/min.", vitals)["slot_log_ratio"] == 0
    assert "slot_log_ratio" not in pair_features("Her pulse is 72/min.", vitals, NUMBER_FEATURES)  # not computed unless named


def test_manual_lora_merge_equals_peft():
    peft = pytest.importorskip("peft")
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModel

    from textleak.encoders import default_encoder_path
    from textleak.judges import nli

    config = json.loads((WEIGHTS_DIR / "config.json").read_text())
    state = load_file(str(WEIGHTS_DIR / ADAPTER_FILE))
    lora = {k: v.float() for k, v in state.items() if not k.startswith("head.")}
    ours = nli.merge_lora(nli.build_lora_model(AutoModel.from_pretrained(default_encoder_path()), config), lora, config)
    base = nli.build_lora_model(AutoModel.from_pretrained(default_encoder_path()), config)
    plain = {k: v.clone() for k, v in base.state_dict().items()}
    wrapped = peft.get_peft_model(base, nli.lora_config(config))
    peft.set_peft_model_state_dict(wrapped, lora)
    theirs = wrapped.merge_and_unload().state_dict()
    a = ours.state_dict()
    assert set(a) == set(theirs)
    assert max(float((a[k] - theirs[k]).abs().max()) for k in a) < 1e-5
    assert any(not torch.equal(a[k], plain[k]) for k in a)  # the adapter changed something


def test_adapter_that_does_not_fit_is_refused():
    from textleak.judges import nli

    config = {"lora_r": 2, "lora_alpha": 4, "lora_targets": ["query"], "lora_layers": [0]}
    import torch
    from transformers import BertConfig, BertModel

    model = BertModel(BertConfig(hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, vocab_size=30), add_pooling_layer=False)
    with pytest.raises(RuntimeError, match="does not fit"):
        nli.merge_lora(model, {"base_model.model.encoder.layer.1.attention.self.query.lora_A.weight": torch.zeros(2, 8),
                               "base_model.model.encoder.layer.1.attention.self.query.lora_B.weight": torch.zeros(8, 2)}, config)


def test_reports_name_the_measured_agreement():
    from textleak.judges.agreement import measured_agreement

    phrase = measured_agreement(make_judge("nli").describe())
    assert "hand-written labels" in phrase and "from other writers" in phrase
    # the direction of its error (or that it has none to speak of), recorded beside the agreement, with each set's lean
    assert ("mean score lies" in phrase or "mean score matches the labels' within 0.005" in phrase) and " on chat requests" in phrase
    assert "from writers nobody tuning it read" in phrase  # the honest chat figure, beside the one that includes tuned writers
    assert "held-out split" in measured_agreement(make_judge("embedding").describe())
    assert "not measured" in measured_agreement(make_judge("nli", cascade=0.5).describe())


def test_the_report_says_which_way_the_judge_errs():
    from textleak.judges.agreement import measured_agreement

    base = {"eval_spearman": 0.7, "eval_n": 10, "eval_contradiction_accuracy": 0.9}
    high = {**base, "eval_mean_score_judge": 0.67, "eval_mean_score_gold": 0.64,
            "handwritten_test_spearman": 0.6, "handwritten_test_mean_score_judge": 0.50, "handwritten_test_mean_score_gold": 0.55}
    assert "0.03 above the labels'" in measured_agreement({"calibration": high})  # the lean toward privacy wins
    low = {**base, "eval_mean_score_judge": 0.60, "eval_mean_score_gold": 0.64}
    assert "0.04 below the labels'" in measured_agreement({"calibration": low})
    assert "mean score" not in measured_agreement({"calibration": base})
    slight = {**low, "handwritten_test_mean_score_judge": 0.552, "handwritten_test_mean_score_gold": 0.55}
    assert "0.04 below the labels'" in measured_agreement({"calibration": slight})  # a lean under 0.005 is no lean


def test_ratings_cached_under_older_rules_are_not_reused(monkeypatch):
    """The rating cache is keyed by describe(): a change of the rules around the model (RULES_VERSION)
    must change the key, or ratings made under the old rules would be served again."""
    import textleak.judges.nli as nli
    from textleak.cache import content_hash

    judge = make_judge("nli")
    before = content_hash("ratings", judge.describe(), ["The user is 30."], "I am 30.", 0)
    monkeypatch.setattr(nli, "RULES_VERSION", nli.RULES_VERSION + "-next")
    assert content_hash("ratings", judge.describe(), ["The user is 30."], "I am 30.", 0) != before


def test_the_span_view_is_the_weights_and_is_applied_inside_predict(tmp_path):
    """A model trained on spans read in the claim's voice reads them so in use: the view is part of the
    weights' config, applied in NLIModel.predict (and by the training script through the same function)."""
    import shutil

    from textleak.judges import nli

    assert nli.span_view_of({}) == "as_written"
    with pytest.raises(ValueError, match="unknown span view"):
        nli.span_view_of({"span_view": "sideways"})
    claim, span = "The user is a freelancer.", "I'm freelancing for a dental practice."
    assert nli.as_model_reads([(claim, span)], "as_written") == [(claim, span)]
    assert nli.as_model_reads([(claim, span)], "claim_voice") == [(claim, "the user is freelancing for a dental practice.")]
    voiced = tmp_path / "voiced"
    shutil.copytree(WEIGHTS_DIR, voiced)
    config = json.loads((voiced / "config.json").read_text())
    (voiced / "config.json").write_text(json.dumps({**config, "span_view": "claim_voice"}))
    plain, read_voiced = nli.NLIModel(WEIGHTS_DIR), nli.NLIModel(voiced)
    assert read_voiced.span_view == "claim_voice"
    assert np.allclose(read_voiced.predict([(claim, span)]), plain.predict([(claim, nli.in_claim_voice(claim, span))]))
    third_person = ("The patient is 45 years old.", "A 45-year-old man presents with chest pain.")  # no first person: as written
    assert np.allclose(read_voiced.predict([third_person]), plain.predict([third_person]))
