"""Atomization: sentence splitting, the rule atomizer, the LLM atomizer's prompt and parser, caching."""

from __future__ import annotations

import pytest

from textleak.cache import DiskCache
from textleak.atomizers.llm import LLMAtomizer, load_demos, parse_claims
from textleak.atomizers.rules import RuleAtomizer
from textleak.leakage.atomize import atomize_records
from textleak.text import split_sentences
from textleak.llm import ScriptedLM


def test_split_sentences_keeps_abbreviations_decimals_and_initials():
    text = "He saw Dr. Lee at 5 p.m. today. J. Smith came. Is it ok? Yes! Temp 38.5°C. He sleeps.\nLine two"
    assert split_sentences(text) == [
        "He saw Dr. Lee at 5 p.m. today.", "J. Smith came.", "Is it ok?", "Yes!", "Temp 38.5°C.", "He sleeps.", "Line two",
    ]


def test_rule_atomizer_splits_lists_clauses_and_lab_lines():
    text = (
        "A 45-year-old man comes to the physician because of fatigue. He has a history of asthma, gout, and migraine. "
        "His pulse is 90/min, respirations are 16/min, and blood pressure is 120/80 mm Hg. "
        "His vitals include: pulse 88/min, temperature 37.2°C (99°F), and SpO2 97%. "
        "He smokes; he does not drink alcohol. Laboratory studies show:\nHemoglobin 12.1 g/dL\nLeukocyte count 8,900/mm3"
    )
    assert RuleAtomizer().atomize_one(text) == [
        # rule atomizer v2: the demographic opener gives age, sex and complaint as claims of their own,
        # and every vital after the first keeps its possessive (v1: one claim for the opener,
        # "Respirations are 16/min.", "Blood pressure is 120/80 mm Hg.")
        "The patient is 45 years old.",
        "The patient is a man.",
        "The patient comes to the physician because of fatigue.",
        "He has a history of asthma.",
        "He has a history of gout.",
        "He has a history of migraine.",
        "His pulse is 90/min.",
        "His respirations are 16/min.",
        "His blood pressure is 120/80 mm Hg.",
        "His vitals include pulse 88/min.",
        "His vitals include temperature 37.2°C (99°F).",
        "His vitals include SpO2 97%.",
        "He smokes.",
        "He does not drink alcohol.",
        "Hemoglobin 12.1 g/dL.",
        "Leukocyte count 8,900/mm3.",
    ]


def test_rule_atomizer_does_not_split_weak_verbs_or_appositives():
    a = RuleAtomizer()
    # v2 distributes the shared noun over the gerunds (v1 kept the sentence whole); never "She now has climbing stairs."
    assert a.atomize_one("She now has difficulty getting up from chairs, climbing stairs, and combing her hair.") == [
        "She now has difficulty getting up from chairs.", "She now has difficulty climbing stairs.",
        "She now has difficulty combing her hair.",
    ]
    assert a.atomize_one("His heart has a regular rate and rhythm.") == ["His heart has a regular rate and rhythm."]
    assert a.atomize_one("") == []
    assert RuleAtomizer(split_lists=False, split_clauses=False).atomize_one("A, B, and C are here. D is there.") == [
        "A, B, and C are here.", "D is there."]


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Here are the atomic, independent claims broken down into individual lines:\n1. She is 25.\n2. She is a cook.",
         ["She is 25.", "She is a cook."]),
        ("1) She is 25.\n(2) She is a cook.\n3: She lives in Oslo.", ["She is 25.", "She is a cook.", "She lives in Oslo."]),
        ("- She is 25.\n* She is a cook.\n• She lives in Oslo.", ["She is 25.", "She is a cook.", "She lives in Oslo."]),
        ("Claim 1: She is 25.\nClaim 2: **She is a cook.**", ["She is 25.", "She is a cook."]),
        ("Sure! The claims are:\nShe is 25.\nShe is a cook.", ["She is 25.", "She is a cook."]),
        ("She is 25.\nShe is a cook.", ["She is 25.", "She is a cook."]),
        ("```\n1. She is 25.\n```", ["She is 25."]),
        ("Findings:\n1. She is 25.\n2. Vitals:\n3. Pulse 80/min.", ["She is 25.", "Pulse 80/min."]),
        ("", []),
        (None, []),
    ],
)
def test_parse_claims(reply, expected):
    assert parse_claims(reply) == expected


def test_llm_atomizer_prompt_is_a_chat_with_demo_turns():
    lm = ScriptedLM(lambda prompt, i, seed: "1. She is 25.\n2. She is a cook.")
    atomizer = LLMAtomizer(llm=lm, n_demos=1)
    assert atomizer.atomize(["She is a 25-year-old cook.", ""]) == [["She is 25.", "She is a cook."], []]
    (messages,) = lm.calls  # the empty record made no call
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    instruction = "Please breakdown the following input into a set of atomic, independent claims"
    assert messages[0]["content"].startswith(instruction) and messages[2]["content"].startswith(instruction)
    assert messages[2]["content"].endswith("She is a 25-year-old cook.")
    demo = load_demos("medqa")[0]
    assert messages[1]["content"].splitlines()[1] == f"1. {demo.claims[0]}"
    assert atomizer.describe()["prompt_hash"]


def test_llm_atomizer_empty_reply_falls_back():
    lm = ScriptedLM(lambda prompt, i, seed: "")
    atomizer = LLMAtomizer(llm=lm)
    assert atomizer.atomize(["He is 60 years old. He is a pilot."]) == [["He is 60 years old.", "He is a pilot."]]
    assert atomizer.fallbacks == 1 and len(lm.calls) == 2


def test_llm_atomizer_chunks_long_records():
    lm = ScriptedLM(lambda prompt, i, seed: "1. " + prompt[-1]["content"].split("\n\n")[-1][:12])
    atomizer = LLMAtomizer(llm=lm, max_chars=40)
    text = "First sentence is here. Second sentence is here. Third sentence is here."
    (claims,) = atomizer.atomize([text])
    assert len(lm.calls) == 3 and claims == ["First senten", "Second sente", "Third senten"]


def test_atomize_records_caches_and_resumes(tmp_path):
    calls = []

    class CountingAtomizer(RuleAtomizer):
        def atomize(self, texts, seeds=None):
            calls.extend(texts)
            if any("BOOM" in t for t in texts):
                raise RuntimeError("atomizer crashed")
            return super().atomize(texts, seeds)

    cache = DiskCache("claims", root=tmp_path)
    texts = ["A is here. B is there.", "C is here.", "BOOM now.", "A is here. B is there."]
    with pytest.raises(RuntimeError):
        atomize_records(texts, CountingAtomizer(), cache=cache, batch_size=1)
    assert calls == ["A is here. B is there.", "C is here.", "BOOM now."]  # duplicates computed once
    calls.clear()
    texts[2] = "D is here."
    out = atomize_records(texts, CountingAtomizer(), cache=cache, batch_size=1)
    assert calls == ["D is here."]  # the first two came from the cache
    assert out == [["A is here.", "B is there."], ["C is here."], ["D is here."], ["A is here.", "B is there."]]
    # other settings, other cache entries
    calls.clear()
    atomize_records(texts[:1], CountingAtomizer(min_words=1), cache=cache)
    assert calls == ["A is here. B is there."]
