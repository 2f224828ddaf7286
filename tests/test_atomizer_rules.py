"""The rule atomizer v2 (issue 13.3): each splitting rule on hand-written sentences with the exact
claims expected, the cases it must leave whole, negations kept, non-English routes, determinism,
faithfulness on real records, and the counts the pipeline reports."""

from __future__ import annotations

import logging
import re

import pytest

from textleak.atomizers.rules import RuleAtomizer
from textleak.text import extract_numbers
from textleak.text.language import detect_language
from textleak.text.normalize import normalize_text

ATOMIZER = RuleAtomizer()


def claims(text: str) -> list[str]:
    return ATOMIZER.atomize_one(text)


@pytest.mark.parametrize("text, expected", [
    # vitals: one claim per measurement, each with the possessive of the first
    ("Her temperature is 38.9 C, pulse is 110/min, and blood pressure is 90/60 mm Hg.",
     ["Her temperature is 38.9 C.", "Her pulse is 110/min.", "Her blood pressure is 90/60 mm Hg."]),
    ("On the floor, his temperature is 36.8°C (98.2°F), the heart rate is 98/min, the oxygen saturation is 90%.",
     ["On the floor, his temperature is 36.8°C (98.2°F).", "The heart rate is 98/min.", "The oxygen saturation is 90%."]),
    ("His vitals include: pulse 88/min, temperature 37.2°C (99°F), and SpO2 97%.",
     ["His vitals include pulse 88/min.", "His vitals include temperature 37.2°C (99°F).", "His vitals include SpO2 97%."]),
    ("Her vital signs are as follows: blood pressure, 110/70 mmHg; heart rate, 89/min; and temperature, 37.6℃.",
     ["Her vital signs are as follows: blood pressure, 110/70 mmHg.", "Her vital signs are as follows: heart rate, 89/min.",
      "Her vital signs are as follows: temperature, 37.6℃."]),
    # labs: an inline list of values (no "and" needed), a table under a header line
    ("Laboratory studies show: hemoglobin 9.8 g/dL, leukocyte count 12,000/mm3, platelet count 250,000/mm3.",
     ["Laboratory studies show hemoglobin 9.8 g/dL.", "Laboratory studies show leukocyte count 12,000/mm3.",
      "Laboratory studies show platelet count 250,000/mm3."]),
    ("Laboratory studies show:\nHemoglobin 9.8 g/dL\nNa+: 138 mEq/L", ["Hemoglobin 9.8 g/dL.", "Na+: 138 mEq/L."]),
    ("The initial laboratory results are remarkable for hemoglobin of 10 g/dL and creatinine of 2.1 mg/dL.",
     ["The initial laboratory results are remarkable for hemoglobin of 10 g/dL.",
      "The initial laboratory results are remarkable for creatinine of 2.1 mg/dL."]),
])
def test_vitals_and_labs_one_claim_per_value(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("A 45-year-old man with a history of hypertension presents with chest pain.",
     ["The patient is 45 years old.", "The patient is a man.", "The patient has a history of hypertension.",
      "The patient presents with chest pain."]),
    ("A 27-year-old woman, gravida 2, para 1, at 40 weeks' gestation is admitted to the hospital in active labor.",
     ["The patient is 27 years old.", "The patient is a woman.", "The patient is gravida 2.", "The patient is para 1.",
      "The patient is at 40 weeks' gestation.", "The patient is admitted to the hospital in active labor."]),
    ("A 6-day-old male newborn is brought to the physician.",
     ["The patient is 6 days old.", "The patient is male.", "The patient is a newborn.", "The patient is brought to the physician."]),
    ("A 25-year-old woman who works night shifts comes to the physician because of polyuria, polydipsia, and a 10-kg weight loss.",
     ["The patient is 25 years old.", "The patient is a woman.", "The patient works night shifts.",
      "The patient comes to the physician because of polyuria.", "The patient comes to the physician because of polydipsia.",
      "The patient comes to the physician because of a 10-kg weight loss."]),
    ("A previously healthy 80-year-old African American man is brought to the emergency department.",
     ["The patient is 80 years old.", "The patient is previously healthy.", "The patient is African American.",
      "The patient is a man.", "The patient is brought to the emergency department."]),
    ("A 58-year-old white man with hypertension and type 2 diabetes mellitus comes to the physician.",
     ["The patient is 58 years old.", "The patient is white.", "The patient is a man.", "The patient has hypertension.",
      "The patient has type 2 diabetes mellitus.", "The patient comes to the physician."]),
    # not an opener (no age and person noun at the start): left to the other rules
    ("A mother brings her 6-year-old daughter to the pediatrician.", ["A mother brings her 6-year-old daughter to the pediatrician."]),
])
def test_demographic_facts_are_separate_claims_naming_the_patient(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("She denies fever, chills, and weight loss.", ["She denies fever.", "She denies chills.", "She denies weight loss."]),
    ("She has had no fever, abdominal pain, or diarrhea.",
     ["She has had no fever.", "She has had no abdominal pain.", "She has had no diarrhea."]),
    ("He does not smoke or drink alcohol.", ["He does not smoke.", "He does not drink alcohol."]),
    ("He is not oriented to place or time.", ["He is not oriented to place.", "He is not oriented to time."]),
    ("The neurologic exam shows no focal symptoms, no pain on palpation, and no meningeal signs.",
     ["The neurologic exam shows no focal symptoms.", "The neurologic exam shows no pain on palpation.",
      "The neurologic exam shows no meningeal signs."]),
    ("The headache is not accompanied by nausea, vomiting, or photophobia.",
     ["The headache is not accompanied by nausea.", "The headache is not accompanied by vomiting.",
      "The headache is not accompanied by photophobia."]),
    ("There is no history of smoking or drug use, however, she does consume 5 alcoholic drinks per week.",
     ["There is no history of smoking.", "There is no history of drug use.", "She does consume 5 alcoholic drinks per week."]),
    ("Patient has no significant past medical history and takes no medications.",
     ["Patient has no significant past medical history.", "Patient takes no medications."]),
    # outside a negation "or" states alternatives: not split
    ("He takes aspirin or ibuprofen.", ["He takes aspirin or ibuprofen."]),
])
def test_negations_stay_in_every_claim(text, expected):
    out = claims(text)
    assert out == expected
    negated = re.compile(r"\b(?:no|not|denies|don't)\b")
    if negated.search(text.split(",")[0]) and " or " in text:
        assert all(negated.search(c) for c in out[:-1] if "history" in c or "denies" in c or "not" in c)


@pytest.mark.parametrize("text, expected", [
    ("Current medications include metformin, atorvastatin, and clopidogrel.",
     ["Current medications include metformin.", "Current medications include atorvastatin.",
      "Current medications include clopidogrel."]),
    ("Currently, she takes aspirin (81 mg once daily), rosuvastatin (10 mg once daily), and lisinopril (20 mg once daily).",
     ["Currently, she takes aspirin (81 mg once daily).", "Currently, she takes rosuvastatin (10 mg once daily).",
      "Currently, she takes lisinopril (20 mg once daily)."]),
    ("He has a history of asthma, gout, and migraine.",
     ["He has a history of asthma.", "He has a history of gout.", "He has a history of migraine."]),
    ("She has hypertension, hypercholesterolemia, and diabetes.",
     ["She has hypertension.", "She has hypercholesterolemia.", "She has diabetes."]),
    ("An ECG shows sinus tachycardia and low voltage QRS complexes.",
     ["An ECG shows sinus tachycardia.", "An ECG shows low voltage QRS complexes."]),
])
def test_medications_history_and_findings_lists(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("He smoked one pack of cigarettes daily for 30 years but quit 5 years ago.",
     ["He smoked one pack of cigarettes daily for 30 years.", "He quit 5 years ago."]),
    ("The liver is palpated 2 cm below the right costal margin, and the spleen is palpated 1 cm below the left costal margin.",
     ["The liver is palpated 2 cm below the right costal margin.", "The spleen is palpated 1 cm below the left costal margin."]),
    ("He has hyperlipidemia and was diagnosed with major depressive disorder 3 years ago.",
     ["He has hyperlipidemia.", "He was diagnosed with major depressive disorder 3 years ago."]),
    ("His mother has Graves' disease and received propylthiouracil during pregnancy.",
     ["His mother has Graves' disease.", "His mother received propylthiouracil during pregnancy."]),
    ("He is lying supine and is not cyanotic.", ["He is lying supine.", "He is not cyanotic."]),
    ("He was admitted and treated with antibiotics.", ["He was admitted.", "He was treated with antibiotics."]),
    ("He smokes; he does not drink alcohol.", ["He smokes.", "He does not drink alcohol."]),
    ("He is a 60 pack-year smoker, worked as a shipbuilder 30 years ago, and recently traveled to Ohio.",
     ["He is a 60 pack-year smoker.", "He worked as a shipbuilder 30 years ago.", "He recently traveled to Ohio."]),
    # a missed sentence boundary ("hepatitis B. The mother"): the repeated subject is the nearest one
    ("The child was born to a mother with hepatitis B. The mother made it to all of her appointments and took folic acid.",
     ["The child was born to a mother with hepatitis B. The mother made it to all of her appointments.",
      "The mother took folic acid."]),
    # a verb inside a "that" clause is not the main subject's
    ("She reports that she has been taking aspirin and has stopped it.", ["She reports that she has been taking aspirin and has stopped it."]),
])
def test_coordinated_clauses_repeat_their_subject(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("The distal interphalangeal joints are swollen, warm, and painful.",
     ["The distal interphalangeal joints are swollen.", "The distal interphalangeal joints are warm.",
      "The distal interphalangeal joints are painful."]),
    ("His pulse is 104/min and irregular.", ["His pulse is 104/min.", "His pulse is irregular."]),
    ("On examination, he is confused, restless, agitated, and lacks orientation to time.",
     ["On examination, he is confused.", "On examination, he is restless.", "On examination, he is agitated.",
      "He lacks orientation to time."]),
    ("She now has difficulty getting up from chairs, climbing stairs, and combing her hair.",
     ["She now has difficulty getting up from chairs.", "She now has difficulty climbing stairs.",
      "She now has difficulty combing her hair."]),
])
def test_predicate_and_gerund_lists(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize("text", [
    "Examination shows a tender, swollen left knee joint.",  # adjectives without "and"
    "His heart has a regular rate and rhythm.",  # a shared determiner
    "Pelvic examination shows erythema of the vulva and vagina.",  # coordination inside a prepositional object
    "He is free of any educational and work obligations on Sundays.",  # coordinated modifiers
    "S1 and S2 are normal.",  # a coordinated subject
    "Physical examination shows 3+ deep tendon reflexes and increased muscle tone in the left upper and lower extremities.",
    "The patient presents with complaints of nausea, vomiting, and dizziness, which have lasted for 3 hours.",
])
def test_lists_that_are_not_lists_stay_whole(text):
    assert claims(text) == [text]


def test_nested_list_stays_with_its_item():
    assert claims("She complains of a rash involving her chest, face, and arms, a watery nasal discharge, and mild knee pain.") == [
        "She complains of a rash involving her chest, face, and arms.", "She complains of a watery nasal discharge.",
        "She complains of mild knee pain."]


def test_chat_requests_and_stated_facts():
    # the clause rules (requests=False); the third-person claims of the default (requests=True)
    # are pinned in tests/test_atomizer_requests.py
    claims = RuleAtomizer(requests=False).atomize_one
    text = ("I'm a night-shift nurse in Leeds and I keep falling asleep on the bus home. My partner says I should see my GP "
            "but I don't have time until March. Any tips?")
    assert claims(text) == ["I'm a night-shift nurse in Leeds.", "I keep falling asleep on the bus home.",
                            "My partner says I should see my GP.", "I don't have time until March.", "Any tips?"]
    assert claims("critically analyze the film You Shall Not Kill and express an opinion") == [
        "Critically analyze the film You Shall Not Kill.", "Express an opinion."]
    assert claims("I am applying for the job. i have attached my resume, i hope you will consider it") == [
        "I am applying for the job.", "I have attached my resume.", "I hope you will consider it."]
    assert claims("Can you list these firms: 1. Epic Systems 2. Cerner Corporation 3. Allscripts Inc") == [
        "Can you list these firms.", "Epic Systems.", "Cerner Corporation.", "Allscripts Inc."]


@pytest.mark.parametrize("text, route, expected", [
    ("我昨天发了一封邮件。你可以帮我写一封信吗？谢谢你。", "punctuation", ["我昨天发了一封邮件。", "你可以帮我写一封信吗？", "谢谢你。"]),
    ("私は医者です。東京に住んでいます。", "punctuation", ["私は医者です。", "東京に住んでいます。"]),
    ("Je suis sur le point de créer une agence de photographie. Suggère-moi des noms d'entreprise.", "sentences",
     ["Je suis sur le point de créer une agence de photographie.", "Suggère-moi des noms d'entreprise."]),
    ("Мне 45 лет. Я живу в Москве.", "sentences", ["Мне 45 лет.", "Я живу в Москве."]),
])
def test_non_english_records_split_on_their_punctuation(text, route, expected):
    assert ATOMIZER.route(text) == route
    assert claims(text) == expected
    # the pipeline normalises first (NFKC turns ？ into ?): the same claims, normalised
    assert claims(normalize_text(text)) == [normalize_text(c) for c in expected]


def test_a_chinese_only_record_without_punctuation_still_has_a_claim():
    assert claims("我需要一封感谢信") == ["我需要一封感谢信"]


@pytest.mark.parametrize("text, language, segmented", [
    ("The patient is 45 years old and has a history of hypertension.", "en", True),
    ("Je suis sur le point de créer une agence de photographie pour les entreprises.", "fr", True),
    ("Battery Capacity 500-1000mAh Bluetooth Version 5.0 Heart Rate Monitor", "en", True),  # no function word: English
    ("You're given links: https://www.linkedin.com/in/x and http://example.com.br/pagina", "en", True),
    ("Please help translate this into English: 谢谢你的邮件，今天的活动确实非常的有趣，不论是孩子、家长和我们老师们都非常享受这难得的时光。", "han", False),
    ("أحتاج إيميل شكر فخم للفريق", "arabic", True),
    ("สวัสดีครับ ผมชื่อสมชาย", "thai", False),
    ("", "en", True),
])
def test_detect_language(text, language, segmented):
    guess = detect_language(text)
    assert (guess.language, guess.segmented) == (language, segmented)


def test_deterministic_and_batch_independent():
    texts = ["A 45-year-old man presents with fever, cough, and chills. He denies chest pain or dyspnea.",
             "我昨天发了一封邮件。谢谢你。", "", "Her pulse is 90/min, and blood pressure is 120/80 mm Hg."]
    first = RuleAtomizer().atomize(texts)
    assert RuleAtomizer().atomize(list(reversed(texts)))[::-1] == first
    assert [RuleAtomizer().atomize_one(t) for t in texts] == first
    assert first[2] == []


def test_switches_and_version():
    text = "A 45-year-old man presents with fever and cough; he smokes."
    assert RuleAtomizer(split_lists=False, split_clauses=False, split_demographics=False).atomize_one(text) == [text]
    assert RuleAtomizer(split_demographics=False).atomize_one(text) == [
        "A 45-year-old man presents with fever.", "A 45-year-old man presents with cough.", "He smokes."]
    d = RuleAtomizer().describe()
    assert d["version"] == "3.2" and d["split_demographics"] is True  # older claims caches are not reused
    assert d["requests"] is True and RuleAtomizer(requests=False).describe()["requests"] is False  # on by default (issue 25.5)


_ADDED_WORDS = {"the", "patient", "patient's", "is", "a", "an", "has", "was", "years", "year", "months", "month", "weeks",
                "week", "days", "day", "hours", "hour", "old", "his", "her", "their", "its"}


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z0-9]+(?:['’][a-z]+)?", text)}


def test_claims_are_faithful_on_real_records(shared_data):
    """Every number of every claim is a number of its record, every word a word of the record or one
    of the few the rules add ("The patient is ... years old."), and MedQA gets the paper's granularity."""
    from textleak.data.medqa import read_medqa_jsonl

    records = [r["text"] for r in read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl")]
    counts = []
    for text in records:
        out = claims(text)
        counts.append(len(out))
        record_numbers, record_words = extract_numbers(text), _words(text)
        for c in out:
            assert extract_numbers(c) <= record_numbers, (c, text[:80])
            assert _words(c) <= record_words | _ADDED_WORDS, (c, _words(c) - record_words - _ADDED_WORDS)
    assert sum(counts) / len(counts) >= 13  # v1: 10.6; the paper's LLM atomizer: 15.6
    assert sum(n <= 3 for n in counts) <= 2  # the empty profile and one single-sentence record


def test_pipeline_counts_non_english_records_and_warns(caplog):
    from textleak.leakage import evaluate_leakage

    originals = [
        "A 45-year-old man presents with fever, cough, and chills. He denies chest pain. His pulse is 90/min.",
        "A 30-year-old woman presents with a rash. She has asthma and takes albuterol. Her pulse is 80/min.",
        "我昨天发了一封邮件。你可以帮我写一封信吗？谢谢你。我住在北京。",
    ]
    with caplog.at_level(logging.WARNING):
        r = evaluate_leakage(originals, originals, judge="lexical", use_cache=False, bootstrap=0)
    assert r.n_non_english == 1 and r.n_atomizer_fallback == 1
    assert [rec.language for rec in r.records] == ["en", "en", "han"]
    assert len(r.records[2].claims) == 4  # v1 gave this record no claim at all
    assert "1 of 3 records are not in English (han 1)" in caplog.text
    assert r.summary()["n_non_english"] == 1


def test_unscored_counts_follow_the_claims(caplog):
    """Records with at most k claims are counted in n_unscored and warned about; reduce_k scores those
    with at least 2 claims."""
    from textleak.leakage import evaluate_leakage

    originals = [
        "A 45-year-old man presents with fever, cough, and chills. He denies chest pain. His pulse is 90/min.",  # 7
        "A 30-year-old woman presents with a rash.",  # 3 claims: unscored at k=3
        "The sky is blue.",  # 1 claim
        "Her temperature is 38.9 C, pulse is 110/min, and blood pressure is 90/60 mm Hg. She has asthma.",  # 4
    ]
    n = [len(claims(t)) for t in originals]
    assert n == [7, 3, 1, 4]
    with caplog.at_level(logging.WARNING):
        r = evaluate_leakage(originals, originals, judge="lexical", use_cache=False, bootstrap=0)
    assert r.n_unscored == 2 and [rec.status for rec in r.records] == ["ok", "unscored", "unscored", "ok"]
    assert r.n_claims == sum(n) and r.n_scored_claims == (7 - 3) + (4 - 3)
    assert "2 of 4 records (50%) have no claim left to score" in caplog.text
    reduced = evaluate_leakage(originals, originals, judge="lexical", use_cache=False, bootstrap=0, short_records="reduce_k")
    assert reduced.n_unscored == 1 and reduced.records[1].status == "ok" and reduced.records[2].status == "unscored"
