"""Lab values in the other unit system (issue 25 item 1, rules 2026-11-29.31): the factor depends on the analyte."""

from __future__ import annotations

import pytest

from textleak.judges.values import reader_view
from textleak.text.lab_values import find_lab_values, rewrite_lab_values, same_lab_value


def test_a_lab_value_in_si_units_is_written_in_the_claims_conventional_unit():
    assert rewrite_lab_values("creatinine 133 µmol/L (up from 62)", ["Her creatinine is 1.5 mg/dL."]) == "creatinine 1.5 mg/dL (up from 62)"
    assert rewrite_lab_values("Fasting glucose 7.0 mmol/L; HbA1c 53 mmol/mol.", ["Fasting glucose 126 mg/dL.", "HbA1c 7%."]) \
        == "Fasting glucose 126 mg/dL; HbA1c 7%."
    # and the other way
    assert rewrite_lab_values("Cr 1.5 mg/dL", ["His creatinine is 133 umol/L."]) == "Cr 133 umol/L"


def test_the_factor_is_the_analytes_not_the_units():
    # 5.2 mmol/L is 201 mg/dL of cholesterol but 94 mg/dL of glucose
    claims = ["His total cholesterol is 201 mg/dL."]
    assert rewrite_lab_values("total cholesterol 5.2 mmol/L", claims) == "total cholesterol 201 mg/dL"
    assert rewrite_lab_values("glucose 5.2 mmol/L", claims) == "glucose 5.2 mmol/L"
    # LDL and HDL are two analytes
    assert rewrite_lab_values("HDL 3.4 mmol/L", ["His LDL is 131 mg/dL."]) == "HDL 3.4 mmol/L"


def test_a_changed_value_is_not_rewritten():
    assert rewrite_lab_values("Glucose 7.5 mmol/L", ["His glucose is 126 mg/dL."]) == "Glucose 7.5 mmol/L"
    assert rewrite_lab_values("creatinine 150 µmol/L", ["Her creatinine is 1.5 mg/dL."]) == "creatinine 150 µmol/L"
    # the same unit is the number guard's business, not a conversion
    a, b = find_lab_values("glucose 126 mg/dL")[0], find_lab_values("glucose 127 mg/dL")[0]
    assert not same_lab_value(a, b)


def test_micro_in_any_spelling_and_words_between_the_analyte_and_its_value():
    for unit in ("µmol/L", "μmol/L", "umol/l", "micromol/L"):
        assert find_lab_values(f"creatinine level was 133 {unit}")[0].unit == "umol/l"
    assert find_lab_values("Her blood sugar (fasting) was 5.3 mmol/L")[0].analyte == "glucose"


def test_the_reader_view_reads_lab_values():
    assert "creatinine 1.5 mg/dL" in reader_view("Creatinine rose: creatinine 133 µmol/L today.", ["Her creatinine is 1.5 mg/dL."])


@pytest.mark.slow
def test_nli_judge_reads_a_lab_value_in_si_units_as_the_claim():
    from textleak.judges import make_judge

    rated = make_judge("nli").rate([["Her creatinine is 1.5 mg/dL.", "Her fasting glucose is 126 mg/dL."]],
                                   ["Bloods this morning: creatinine 133 µmol/L, fasting glucose 7.0 mmol/L, potassium 4.1."])
    assert [r.rating for r in rated[0]] == [1, 1]


def test_a_value_a_claim_writes_as_the_text_writes_it_is_not_rewritten_away():
    """The review of rules .31: another claim's "133 µmol/L" must stay where it is written."""
    claims = ["Her creatinine is 1.5 mg/dL.", "The lab reported 133 µmol/L."]
    assert rewrite_lab_values("The lab reported creatinine 133 µmol/L.", claims) == "The lab reported creatinine 133 µmol/L."


def test_a_value_belongs_to_the_analyte_named_right_before_it():
    assert rewrite_lab_values("HDL cholesterol and LDL 3.4 mmol/L", ["His HDL is 131 mg/dL."]) == "HDL cholesterol and LDL 3.4 mmol/L"
    assert [v.analyte for v in find_lab_values("glucose, creatinine 133 µmol/L")] == ["creatinine"]


def test_a_rewrite_after_a_typo_repair_still_has_the_text_as_written_read_too():
    """The judge reads the text as written wherever the reader's view rewrote terms, decided on the view itself: the
    check used to run on the raw text, where "creatinnie" names no analyte, so the rewrite went unnoticed."""
    from textleak.judges.values import reader_views

    view, as_written = reader_views("Bloods: creatinnie 133 µmol/L today.", ["Her creatinine is 1.5 mg/dL."])
    assert "creatinine 1.5 mg/dL" in view
    assert as_written is not None and "133 µmol/L" in as_written
    assert reader_views("Bloods: creatinine 1.5 mg/dL today.", ["Her creatinine is 1.5 mg/dL."])[1] is None
