"""Issue 27, items 5-6: refusals of every LLM component are recognised by one classifier, never become
output (claims, sanitized text, ratings, paraphrases), are never cached, and are counted in reports.

Each case uses the scripted backend with a real on-disk cache: a "broken" model refuses, then a
"healthy" model with the same name (same fingerprint, same cache keys) must be asked afresh.
"""

from __future__ import annotations

import re

import pytest

from sanitizers import LLMAnonymizer, SanitizeParaphrase
from textleak.atomizers.llm import LLMAtomizer
from textleak.atomizers.rules import RuleAtomizer
from textleak.cache import DiskCache
from textleak.judges.llm import LLMJudge
from textleak.leakage import evaluate_leakage
from textleak.leakage.knowledge import KnowledgeParaphraser
from textleak.llm import ScriptedLM

ORIGINALS = [
    "A 34-year-old woman presents with fever. She works as a nurse in Leeds. She has a cough. Her husband is a pilot.",
    "A 61-year-old man has chest pain. He smokes two packs a day. He lives in Boston. He takes aspirin.",
    "A 25-year-old student reports headaches. She drinks coffee daily. She studies law. Her mother has migraines.",
    "A 45-year-old farmer has a rash on his arm. He keeps goats. He lives near Lyon. He is allergic to penicillin.",
    "A 70-year-old widow reports falls. She lives alone. She takes warfarin. She has two cats.",
    "A 52-year-old teacher has back pain. He runs marathons. He lives in Oslo. He had surgery in 2019.",
    "A 19-year-old soldier reports insomnia. He served in Mali. He drinks alcohol. He has a sister.",
    "A 38-year-old chef has burns on both hands. She owns a bistro. She lives in Rome. She has asthma.",
]
REFUSAL = ("I'm sorry, but I can't help with breaking down this record.\nIt contains private medical information.\n"
           "Sharing it could harm the patient.\nPlease consult a qualified professional.")


def _record(prompt) -> str:
    return prompt[-1]["content"].split("\n\n")[-1]


def _rule_claims_reply(prompt) -> str:
    claims = RuleAtomizer().atomize_one(_record(prompt))
    return "\n".join(f"{k}. {c}" for k, c in enumerate(claims, 1))


def _lm(responder, tmp_path, name="atomizer-model"):
    lm = ScriptedLM(responder, name=name)
    lm.cache = DiskCache("llm", root=tmp_path)
    return lm


def test_atomizer_refusals_never_become_claims_and_are_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "results"))
    refusing = {1, 4}

    def broken(prompt, i, seed):
        return REFUSAL if any(ORIGINALS[r] == _record(prompt) for r in refusing) else _rule_claims_reply(prompt)

    kw = dict(judge="lexical", bootstrap=0)
    healthy_claims = RuleAtomizer().atomize(ORIGINALS)
    report = evaluate_leakage(ORIGINALS, list(ORIGINALS), atomizer=LLMAtomizer(llm=_lm(broken, tmp_path)), **kw)
    # the refused records are atomized by the rules: no line of the refusal is a claim
    for rec in report.records:
        texts = [c["text"] for c in rec.claims]
        assert not any("sorry" in t.lower() or "professional" in t for t in texts)
        assert texts == healthy_claims[rec.index]
    assert report.llm_refusals == {"atomizer": 2, "judge": 0, "paraphraser": 0}
    reference = evaluate_leakage(ORIGINALS, list(ORIGINALS), original_claims=healthy_claims, **kw)
    assert report.semantic_privacy == reference.semantic_privacy  # the identity release's figure

    # the same model, healthy now: the refused records are asked again (neither the refusal nor the
    # rule claims it fell back to were cached), the others come from the cache
    asked = []

    def healthy(prompt, i, seed):
        asked.append(_record(prompt))
        return "1. HEALTHY claim one\n2. HEALTHY claim two"

    lm = _lm(healthy, tmp_path)
    again = evaluate_leakage(ORIGINALS, list(ORIGINALS), atomizer=LLMAtomizer(llm=lm), **kw)
    assert sorted(asked) == sorted(ORIGINALS[r] for r in refusing)
    assert [c["text"] for c in again.records[1].claims] == ["HEALTHY claim one", "HEALTHY claim two"]
    assert again.llm_refusals["atomizer"] == 0


SANITIZER_REFUSALS = [
    "I apologize, but I cannot anonymize this record.",
    "Unfortunately, I cannot fulfil this request as it involves medical data.",
    "As a language model, I must decline to rewrite personal information.",
    "I won't be able to help with this one.",
    "I'm sorry, but I can't help with that.",
    "Lo siento, pero no puedo ayudar con eso.",
    "抱歉，我无法完成这个请求。",
]


@pytest.mark.parametrize("refusal", SANITIZER_REFUSALS)
@pytest.mark.parametrize("where", ["before", "after_hash"])
def test_sanitizer_refusals_are_failures(refusal, where):
    def responder(prompt, i, seed):
        if "guessing game" in prompt[-1]["content"]:
            return "Type: age\nInference: 34\nGuess: 34; 35; 33"
        return refusal if where == "before" else f"I changed nothing.\n#\n{refusal}"

    out = LLMAnonymizer(llm=ScriptedLM(responder), rounds=1)(ORIGINALS[:2], [0, 1])
    assert out["sanitize_status"] == ["refusal", "refusal"]
    assert out["sanitized"] == [None, None]


def test_apologetic_answers_that_do_the_task_are_released():
    answer = "Sorry for the delay, here is the rewritten text:\n#\nThe patient said: \"I'm sorry, I can't sleep.\" An adult with fever."

    def responder(prompt, i, seed):
        return "Type: age" if "guessing game" in prompt[-1]["content"] else answer

    out = LLMAnonymizer(llm=ScriptedLM(responder), rounds=1)([ORIGINALS[0]], [0])
    assert out["sanitize_status"] == ["ok"]
    assert out["sanitized"][0].startswith("The patient said")


def test_failed_sanitizer_answers_are_not_replayed_from_the_cache(tmp_path):
    state = {"broken": True}

    def responder(prompt, i, seed):
        user = prompt[-1]["content"]
        if not user.startswith("Given the following text"):  # step 1 (C.2.1); step 2 paraphrases
            if state["broken"]:
                return "I apologize, but I cannot process medical records."
            return "Done.\n#\nAn adult with a cough."
        return "An adult who coughs."

    lm = _lm(responder, tmp_path, name="sanitizer-model")
    san = SanitizeParaphrase(llm=lm)
    assert san(ORIGINALS[:8], list(range(8)))["sanitize_status"] == ["refusal"] * 8
    state["broken"] = False
    lm2 = _lm(responder, tmp_path, name="sanitizer-model")
    out = SanitizeParaphrase(llm=lm2)(ORIGINALS[:8], list(range(8)))
    assert out["sanitize_status"] == ["ok"] * 8
    assert out["sanitized"][0] == "An adult who coughs."
    # the answers that worked are cached: a third run asks nothing
    lm3 = _lm(responder, tmp_path, name="sanitizer-model")
    SanitizeParaphrase(llm=lm3)(ORIGINALS[:8], list(range(8)))
    assert lm3.calls == []


def test_judge_refusals_are_unparsed_counted_and_not_cached(tmp_path):
    def refusing(prompt, i, seed):
        # a refusal that happens to hold "Rating: 3" must give no vote
        return "I'm sorry, but I cannot rate these claims. Rating: 3 would be a guess."

    lm = _lm(refusing, tmp_path, name="judge-model")
    out = LLMJudge(lm, max_retries=1).rate([["She is 34."]], ["A woman, 34."])[0]
    assert out[0].status == "unparsed" and out[0].score is None and out[0].detail.get("refusal")

    def healthy(prompt, i, seed):
        return "**Output**:\n- Claim 1 Similarity Rating: 1"

    lm2 = _lm(healthy, tmp_path, name="judge-model")
    out = LLMJudge(lm2, max_retries=1).rate([["She is 34."]], ["A woman, 34."])[0]
    assert out[0].status == "ok" and out[0].rating == 1
    assert lm2.calls  # asked afresh


def test_judge_refusals_are_counted_in_the_report(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "results"))
    lm = _lm(lambda p, i, s: "As an AI language model, I cannot evaluate medical records.", tmp_path, name="judge-report")
    report = evaluate_leakage(ORIGINALS, list(ORIGINALS), judge=LLMJudge(lm, max_retries=0), bootstrap=0,
                              max_unparsed_share=1.0)
    assert report.llm_refusals["judge"] == report.unparsed_claims > 0
    assert report.semantic_privacy == 0.0  # unparsed="leak": refused claims count as leaked


def test_paraphraser_refusals_keep_the_claim_verbatim(tmp_path):
    lm = _lm(lambda p, i, s: "I'm sorry, but I can't paraphrase that.", tmp_path, name="para")
    para = KnowledgeParaphraser(llm=lm)
    assert para.paraphrase(["She is 34.", "He lives in Oslo."], [0, 1]) == ["She is 34.", "He lives in Oslo."]
    assert para.refusals == 2 and para.failures == 2
    lm2 = _lm(lambda p, i, s: "#\nShe is in her thirties.", tmp_path, name="para")
    assert KnowledgeParaphraser(llm=lm2).paraphrase(["She is 34."], [0]) == ["She is in her thirties."]
