"""Values that are written are leaked (issue 25): a claim's names, identifiers and quantities found in
the released text, the reader's view of that text (typos repaired, units converted), and the NLI
judge's ratings on the cases that defeated it."""

from __future__ import annotations

import pytest

from textleak.judges.values import claim_values, reader_view, value_verdict
from textleak.text.quantities import find_quantities, rewrite_units, same_quantity
from textleak.text.typos import repair_typos


def kinds(claim: str) -> dict[str, str]:
    return {v.text: v.kind for v in claim_values(claim)}


def test_claim_values_find_names_identifiers_and_quantities():
    assert kinds("The PostgreSQL host that pgloader connects to is named 'ariel'.") == {"ariel": "named"}
    assert kinds("The user's Linux username is rickard.")["rickard"] == "named"
    assert kinds("The user's email is john.doe@gmail.com.") == {"john.doe@gmail.com": "named"}
    assert kinds("The user's phone number is (312) 555-0174.") == {"(312) 555-0174": "number"}
    assert kinds("The user is user42 on db01.acme.internal.") == {"user42": "identifier", "db01.acme.internal": "identifier"}
    assert kinds("The user works at Acme Corp.") == {"Acme Corp": "name"}
    assert kinds("He weighs 80 kg.") == {"80 kg": "quantity"}


def test_units_acronyms_durations_and_framing_words_are_not_values():
    for claim in ("His leukocyte count is 16,800/mm3.", "Her urine osmolality is 410 mOsm/kg H2O.", "His hemoglobin A1c is 6.4%.",
                  "Her arterial pH is 7.12.", "An ECG shows ST elevation.", "The patient has had a fever for 2 days.",
                  "The patient is 45 years old.", "The user asks for help on Monday."):
        assert claim_values(claim) == (), claim


def test_a_written_name_is_leaked_and_its_relation_decides_between_1_and_2():
    assert value_verdict("The person's name is Sam.", "What symptoms may Sam experience because of his condition?").cap == 1
    assert value_verdict("The user's Linux username is rickard.", "cannot open /home/rickard/Documents/a.txt").cap == 1
    assert value_verdict("The PostgreSQL host that pgloader connects to is named 'ariel'.",
                         'FATAL Failed to connect to pgsql at "ariel" (port 5432)').cap == 1
    assert value_verdict("The user's phone number is (312) 555-0174.", "call me at 312.555.0174").cap == 1
    # the value is there, the relation is not: not unsupported, not the same
    assert value_verdict("The user works at Acme Corp.", "I bought a printer from Acme Corp last year.").cap == 2
    # masked, or another value: no constraint
    assert value_verdict("The person's name is Sam.", "What symptoms may <PERSON> experience?").cap == 3
    assert value_verdict("The user's Linux username is rickard.", "cannot open /home/rikard/Documents/a.txt").cap == 3


def test_a_single_name_or_quantity_counts_only_beside_another_word_of_the_claim():
    # another patient's record that happens to name the same country in another relation
    assert value_verdict("The patient was born in Mexico.", "She moved from Mexico to Texas in 2001.").cap == 3
    assert value_verdict("The patient was born in Mexico.", "She was born in Mexico and moved in 2001.").cap == 1
    assert value_verdict("She weighs 80 kg.", "The parcel weighs 80 kg.").cap == 1
    assert value_verdict("She weighs 80 kg.", "Her brother lifted 80 kg.").cap == 3


def test_quantities_convert_between_units():
    pairs = [("38.5 C", "101.3 F"), ("80 kg", "176 lb"), ("24 months", "2 years"), ("5'10\"", "178 cm"), ("$2k", "$2,000"),
             ("12 g/dL", "120 g/L")]
    for a, b in pairs:
        qa, qb = find_quantities(a), find_quantities(b)
        assert len(qa) == 1 and len(qb) == 1 and same_quantity(qa[0], qb[0]), (a, b)
    assert not same_quantity(find_quantities("38.5 C")[0], find_quantities("102.5 F")[0])
    assert not same_quantity(find_quantities("80 kg")[0], find_quantities("80 lb")[0])
    assert find_quantities("at 3 in the morning") == ()
    assert rewrite_units("fever of 101.3 F, 176 lb, for 2 years", find_quantities("38.5 C 80 kg 24 months")) == \
        "fever of 38.5 C, 80 kg, for 24 months"


def test_typos_are_repaired_toward_the_claims_but_real_words_are_not():
    assert repair_typos("The ptaient has a hsitory of asthma.", ["patient", "history", "asthma"]) == \
        "The patient has a history of asthma."
    # "adduction" is an English word: a different fact, never a typo of "abduction"
    assert repair_typos("Weak adduction of the hip.", ["abduction"]) == "Weak adduction of the hip."
    # ambiguous: one edit from two claim words
    assert repair_typos("the cart", ["cast", "care"]) == "the cart"
    assert reader_view("Her tmeperature is 101.3 F.", ["Her temperature is 38.5 C."]) == "Her temperature is 38.5 C."


@pytest.mark.slow
def test_nli_judge_rates_written_values_converted_units_and_typos_as_leaked():
    from textleak.judges import make_judge

    judge = make_judge("nli")
    pairs = [
        ("The PostgreSQL host that pgloader connects to is named 'ariel'.",
         'pgloader says: FATAL Failed to connect to pgsql at "ariel" (port 5432): Connection refused. How do I fix it?'),
        ("The person's name is Sam.", "What are the symptoms that Sam may experience because of his neurological condition?"),
        ("The user's Linux username is rickard.", "Error: could not open /home/rickard/Documents/notes.txt (permission denied)"),
        ("Her temperature is 38.5 C.", "A 30-year-old woman comes with a cough. She has a fever of 101.3 F."),
        ("He weighs 80 kg.", "A 40-year-old man comes for a checkup. His weight is 176 lb."),
        ("The cough has lasted 24 months.", "He has had a cough for 2 years."),
        ("The patient has a history of hypertension.", "The ptaient has a hsitory of hyeprtension and asthma."),
    ]
    rated = judge.rate([[c] for c, _ in pairs], [d for _, d in pairs])
    ratings = [rs[0].rating for rs in rated]
    assert ratings[:3] == [1, 1, 1], ratings
    assert all(r in (1, 2) for r in ratings[3:6]), ratings
    assert ratings[6] == 1, ratings
    # a value the text does not hold changes nothing: a masked host stays unsupported
    masked = judge.rate([["The PostgreSQL host that pgloader connects to is named 'ariel'."]],
                        ['FATAL Failed to connect to pgsql at "<HOST>" (port 5432)'])
    assert masked[0][0].rating == 3
