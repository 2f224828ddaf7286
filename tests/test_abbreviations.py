"""Clinical abbreviations in the reader's view (issue 25, rules 2026-11-29.28): "PMH: CKD stage 3" states "chronic
kidney disease", and "chronic kidney disease" states "CKD"; only toward what a claim writes."""

from __future__ import annotations

import pytest

from textleak.judges.values import reader_view
from textleak.text.abbreviations import CLINICAL, CLINICAL_MORE, EVERYDAY, MEDICINES, _merged, expand_toward


def test_an_abbreviation_is_written_as_the_expansion_a_claim_writes():
    assert expand_toward("PMH: CKD stage 3, HTN.", ["He has chronic kidney disease."]) == "PMH: chronic kidney disease stage 3, HTN."
    assert expand_toward("CTA: right MCA occlusion.", ["CT angiography shows a right middle cerebral artery occlusion."]) \
        == "CT angiography: right middle cerebral artery occlusion."
    # the claim's own spelling and case ("haemoglobin" in a British record)
    assert expand_toward("Hb 82 g/L", ["Her haemoglobin was 82 g/L."]) == "haemoglobin 82 g/L"
    assert expand_toward("RR 32, SpO2 94% on air", ["Her oxygen saturation is 94%."]) == "RR 32, oxygen saturation 94% on air"


def test_an_expansion_is_written_as_the_abbreviation_a_claim_writes():
    assert expand_toward("She has chronic kidney disease and atrial fibrillation.", ["She has CKD.", "She has AF."]) \
        == "She has CKD and AF."
    assert expand_toward("a chronic-kidney disease", ["She has CKD."]) == "a CKD"  # a hyphen or a space alike


def test_nothing_changes_without_a_claim_that_writes_the_other_form():
    text = "PMH: CKD stage 3, hypertension."
    assert expand_toward(text, []) == text
    assert expand_toward(text, ["He has diabetes."]) == text
    # a claim that writes both forms needs no rewriting
    assert expand_toward(text, ["He has chronic kidney disease (CKD)."]) == text


def test_an_ambiguous_abbreviation_is_left_when_the_claims_write_two_of_its_meanings():
    claims = ["She has multiple sclerosis.", "She has mitral stenosis."]
    assert expand_toward("Known MS, on interferon.", claims) == "Known MS, on interferon."
    assert expand_toward("Known MS, on interferon.", claims[:1]) == "Known multiple sclerosis, on interferon."


def test_an_abbreviation_inside_a_host_a_file_name_or_a_path_is_left_as_written():
    claims = ["The user deploys to production.", "The configuration is wrong.", "The environment is missing a variable."]
    assert expand_toward("prod.example.com, config.yaml, .env, /srv/prod/app", claims) == "prod.example.com, config.yaml, .env, /srv/prod/app"
    assert expand_toward("it broke in prod. the config is fine", claims) == "it broke in production. the configuration is fine"


def test_an_abbreviation_with_two_meanings_takes_the_one_the_claims_write():
    assert expand_toward("HR 110, BP 120/80.", ["His heart rate is 110."]) == "heart rate 110, BP 120/80."
    assert expand_toward("I emailed HR twice.", ["The user emailed human resources."]) == "I emailed human resources twice."
    assert expand_toward("HR 110; I emailed HR.", ["His heart rate is 110.", "He emailed human resources."]) == "HR 110; I emailed HR."


def test_an_abbreviation_matches_only_as_a_whole_token_in_its_case():
    claims = ["She has aortic stenosis.", "Her oxygen saturation is 94%."]
    assert expand_toward("I said it as a joke; ASAP; the AS-400 box", claims) == "I said it as a joke; ASAP; the AS-400 box"
    assert expand_toward("AS on the scan", claims) == "aortic stenosis on the scan"
    assert expand_toward("spo2 94", claims) == "spo2 94"  # not listed in lower case


def test_every_listed_abbreviation_and_expansion_is_usable():
    merged = _merged()
    for abbreviation, expansions in [*CLINICAL.items(), *CLINICAL_MORE.items(), *EVERYDAY.items(), *MEDICINES.items()]:
        assert abbreviation == abbreviation.strip() and abbreviation
        for expansion in expansions.split("|"):
            assert expansion.strip() == expansion and expansion.lower() != abbreviation.lower()
            # each expansion is found in a claim and the abbreviation rewritten toward it (unless another of the
            # abbreviation's expansions is part of this one, which the rule reads as two meanings)
            others = [e for e in expansions.split("|") if e != expansion and e.lower() in expansion.lower()]
            if not others and merged[abbreviation] == expansions:  # an entry with meanings from two lists: the ambiguity test
                assert expand_toward(f"x {abbreviation} y", [f"It is {expansion}."]) == f"x {expansion} y", (abbreviation, expansion)


def test_a_medicine_is_read_under_its_other_names():
    assert expand_toward("She takes apixaban 5 mg twice daily.", ["She takes Eliquis."]) == "She takes Eliquis 5 mg twice daily."
    assert expand_toward("on eliquis and ventolin prn", ["She takes apixaban.", "She uses salbutamol."]) == "on apixaban and salbutamol prn"
    assert expand_toward("Paracetamol 1 g four times a day", ["He takes acetaminophen."]) == "acetaminophen 1 g four times a day"
    assert expand_toward("She takes apixaban.", ["She takes warfarin."]) == "She takes apixaban."  # another drug stays


def test_the_reader_view_reads_abbreviations():
    assert reader_view("PMH: CKD stage 3.", ["He has chronic kidney disease."]) == "PMH: chronic kidney disease stage 3."


@pytest.mark.slow
def test_nli_judge_reads_a_clinical_abbreviation_as_the_claim_and_keeps_its_negation():
    from textleak.judges import make_judge

    judge = make_judge("nli")
    pairs = [
        ("He has chronic kidney disease.", "PMH: CKD stage 3, hypertension on hydrochlorothiazide."),
        ("CT angiography shows a right middle cerebral artery occlusion.", "CTA: right MCA occlusion. Thrombectomy called."),
        ("She has CKD.", "She has chronic kidney disease and takes ramipril."),
        ("He has chronic kidney disease.", "PMH: hypertension. No CKD, no diabetes."),
    ]
    rated = judge.rate([[c] for c, _ in pairs], [d for _, d in pairs])
    ratings = [rs[0].rating for rs in rated]
    assert ratings == [1, 1, 1, 3], ratings


@pytest.mark.slow
def test_where_abbreviations_were_rewritten_the_text_as_written_is_read_too(monkeypatch):
    """Rules .29: a rewritten sentence can read differently to the cross-encoder, so the span of the text as written
    is read beside it and the lowest score counts: a rewrite can add a statement, never hide one."""
    from textleak.judges import make_judge
    from textleak.judges.nli import load_nli_model

    judge = make_judge("nli")
    model = load_nli_model(judge.weights, judge.int8, judge.device, judge.dtype)  # the judge's own (cached) model
    read: list[tuple[str, str]] = []
    predict = model.predict
    monkeypatch.setattr(model, "predict", lambda pairs, batch_size=32: (read.extend(pairs), predict(pairs, batch_size))[1])
    claim = "His chronic kidney disease is at the third stage."  # not stated verbatim: the cross-encoder reads it
    judge.rate([[claim]], ["PMH: CKD stage 3 and hypertension, on ramipril. Seen in clinic today with ankle swelling."])
    spans = [span for c, span in read if c == claim]
    assert any("chronic kidney disease stage 3" in s for s in spans), spans
    assert any("CKD stage 3" in s for s in spans), spans


def test_clinical_age_and_sex_shorthand_is_written_as_the_claims_write_that_age_and_sex():
    claims = ["The patient is an 81-year-old woman.", "He is a 45-year-old man."]
    assert expand_toward("Jane, 81F, attended clinic.", claims) == "Jane, 81-year-old woman, attended clinic."
    assert expand_toward("45 M; 45yo M; 45 y/o male", claims) == "45-year-old man; 45-year-old man; 45-year-old man"
    # another age, the other sex, or a size is left as written
    assert expand_toward("45F, 82F, size 10M, 81 Fahrenheit", claims) == "45F, 82F, size 10M, 81 Fahrenheit"


def test_a_sides_letter_is_written_as_the_side_a_claim_writes_but_not_litres():
    claims = ["Her right intraocular pressure was 26 mmHg.", "His left ABPI is 0.94."]
    assert expand_toward("IOP R 26 mmHg, L 24 mmHg; ABPI L 0.94", claims) \
        == "intraocular pressure right 26 mmHg, left 24 mmHg; ABPI left 0.94"
    assert expand_toward("Give 2 L of fluid; 1L bag", claims) == "Give 2 L of fluid; 1L bag"
    assert expand_toward("IOP R 26 mmHg", ["Her intraocular pressure was 26 mmHg."]) == "intraocular pressure R 26 mmHg"  # no side


def test_notes_state_a_measurement_without_its_noun():
    """Rules .34: the verbatim shortcut reads "Braden 14" as "Her Braden score is 14"; a claim of one word and its
    numbers is stated only where each number is written right after that word ("Pulse 104", not "BP 104/60, pulse 88")."""
    from textleak.judges.nli import stating_sentence

    assert stating_sentence("Her Braden score is 14.", ["Skin: Braden 14 (moderate risk)."]) is not None
    assert stating_sentence("His pulse is 104.", ["Pulse 104 and regular."]) is not None
    assert stating_sentence("His pulse is 104.", ["BP 104/60, pulse 88."]) is None  # another number in the slot
    assert stating_sentence("His pulse is 104.", ["Pulse 96, BP 104/60."]) is None
    assert stating_sentence("Her Braden score is 14.", ["Braden 16."]) is None
    assert stating_sentence("The user lives alone.", ["Lives with her son."]) is None  # no number: two words still needed


def test_a_number_before_its_noun_still_states_a_one_word_claim():
    """The review of rules .34: only a number the claim's word gives another value rules the sentence out."""
    from textleak.judges.nli import stating_sentence

    assert stating_sentence("The user has 2 cats.", ["I live with my 2 cats in Leeds."]) is not None
    assert stating_sentence("She has 3 children.", ["Mother of 3 children, works nights."]) is not None
    assert stating_sentence("His pulse is 104.", ["Pulse was measured at 104."]) is not None


def test_what_the_review_found_rewritten_by_mistake_is_left_as_written():
    # an expansion inside a longer one the claims write
    claims = ["He has HF.", "He has congestive heart failure."]
    assert expand_toward("Known congestive heart failure; new heart failure.", claims) == "Known congestive heart failure; new HF."
    # a name's initial is not a side
    sides = ["Her right intraocular pressure is 26 mmHg.", "She has a left nosebleed."]
    assert expand_toward("Patient John R Smith, seen by Dr L Jones", sides) == "Patient John R Smith, seen by Dr L Jones"
    # e-mail addresses and URL queries
    assert expand_toward("CKD@example.com, ?q=CKD", ["He has chronic kidney disease."]) == "CKD@example.com, ?q=CKD"
    # Roman numerals
    assert expand_toward("Henry IV; stage IV; given IV", ["It was given intravenously."]) == "Henry IV; stage IV; given intravenously"


def test_a_bare_age_is_written_in_years_where_a_claim_writes_that_age():
    """Rules .36: "I'm 49," states "The user is 49 years old"; a number that measures something else does not."""
    claims = ["The user is 49 years old."]
    assert expand_toward("I'm 49, male.", claims) == "I'm 49 years old, male."
    assert expand_toward("aged 49. Pt 49 yo", claims) == "aged 49 years old. Pt 49 years old"
    assert expand_toward("I'm 49 minutes late; I'm 50, male", claims) == "I'm 49 minutes late; I'm 50, male"
    assert expand_toward("I'm 49, male.", ["He is a 49-year-old man."]) == "I'm 49 years old, male."


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="known (rules .28-.36): abbreviations match only in their listed case, so a release "
                   "written all in lower case ('pmh: ckd stage 3') reads as the old judge did, unsupported; on the unread "
                   "clinical writers lower case leans +0.037 against +0.028 as written (docs/judges.md). Reading listed "
                   "abbreviations in any case where a text has no capitals would mend it; when it does, make this a plain test")
def test_a_release_in_lower_case_keeps_its_abbreviations_read():
    from textleak.judges import make_judge
    from textleak.text.normalize import normalize_release

    claims = ["He has chronic kidney disease.", "CT angiography shows a right middle cerebral artery occlusion."]
    text = "PMH: CKD stage 3, hypertension on hydrochlorothiazide. CTA: right MCA occlusion. Thrombectomy called."
    rated = make_judge("nli").rate([claims, claims], [normalize_release(text), normalize_release(text.lower())])
    assert [r.rating for r in rated[0]] == [1, 1]  # as written: read
    assert [r.rating for r in rated[1]] == [1, 1]  # in lower case: not yet
