"""PIPP, ELP and ROUGE on hand-made examples whose values are computed by hand in the comments."""

import pytest

from textleak.controlled.entity_metrics import (
    contains_entity,
    corpus_leakage,
    find_spans,
    icl_leakage,
    max_rouge,
    unique_entities,
)


@pytest.mark.parametrize(
    "text,value,edge,word",
    [
        ("He was paid $87,500 in 2004.", "$87,500", True, False),  # \b before "$" needs a word char
        ("a rise of 45% last year", "45%", True, False),
        ("a rise of 145% last year", "45%", False, False),
        ("Mr John Smith's house", "john smith", True, True),  # case-insensitive, "'s" is a boundary
        ("Johnny Smithers", "John Smith", False, False),
        ("Mr John\n  Smith", "John Smith", True, False),  # any whitespace run inside a value
        ("Anne went home", "Ann", False, False),
        ("Özpolat v. Turkey", "özpolat", True, True),
        ("US$87,500", "$87,500", True, True),  # \b after "S" happens to hold here
    ],
)
def test_boundary_rules(text, value, edge, word):
    assert contains_entity(text, value, "edge") is edge
    assert contains_entity(text, value, "word") is word


def test_find_spans_gives_character_offsets():
    assert find_spans("Ann met ann and Anne.", "Ann") == [(0, 3), (8, 11)]


def test_unique_entities_dedups_case_and_space_and_drops_empty():
    assert unique_entities(["Ann Lee", "ann  lee", "", '"Bob"', "Bob"]) == ["Ann Lee", "Bob"]


def test_icl_leakage_hand_computed():
    preds = [
        "Ms Ann Lee lives in Oslo.",  # leaks Ann Lee, Oslo of {Ann Lee, Oslo, 12/04} -> 2/3
        "Nothing private here.",  # 0/2
        "Paid $87,500 to Bob.",  # leaks $87,500 of {$87,500, Carl} -> 1/2
    ]
    entities = [["Ann Lee", "Oslo", "12/04", "ann lee"], ["Dan", "Eve"], ["$87,500", "Carl"]]
    res = icl_leakage(preds, entities)
    assert res.pipp == pytest.approx(2 / 3)
    assert res.elp == pytest.approx((2 / 3 + 0 + 1 / 2) / 3)
    assert res.num_entities == 7 and res.num_leaked_entities == 3
    # released: no dedup (Ann Lee twice: 3/4 in sample 1) and \b matching (misses $87,500: 0/2)
    assert res.extras["elp_released"] == pytest.approx((3 / 4 + 0 + 0) / 3)


def test_icl_leakage_without_entities_is_clean_and_left_out_of_elp():
    res = icl_leakage(["Ann", "Ann"], [[], ["Ann"]])
    assert res.pipp == 0.5
    assert res.elp == 1.0
    assert res.extras["num_without_entities"] == 1
    assert icl_leakage(["x"], [[]]).elp is None


def test_icl_leakage_rejects_mismatched_lengths_and_bare_strings():
    with pytest.raises(ValueError, match="2 predictions but 1"):
        icl_leakage(["a", "b"], [["x"]])
    with pytest.raises(TypeError, match="prediction 0"):
        icl_leakage(["a"], ["Ann"])


def test_corpus_leakage_paper_denominator_and_released_variants():
    train_entities = ["Ann Lee", "Oslo", "Bob", "ann lee", "Carl", "$5"]  # 5 distinct
    preds = ["Ann Lee met Bob.", "Bob again in Oslo", "clean", "clean too"]
    res = corpus_leakage(preds, train_entities)
    assert res.pipp == pytest.approx(2 / 4)
    assert res.elp == pytest.approx(3 / 5)  # Ann Lee, Bob, Oslo of 5
    assert res.extras["elp_unique_over_predictions"] == pytest.approx(3 / 4)  # released bug: / #generations
    assert res.extras["elp_per_prediction"] == pytest.approx((2 / 5 + 2 / 5 + 0 + 0) / 4)
    assert res.extras["leaked_entities"] == ["Ann Lee", "Bob", "Oslo"]


def test_max_rouge_takes_the_best_reference():
    preds = ["the cat sat on the mat"]
    exact = max_rouge(preds, [["a dog barked", "the cat sat on the mat"]])
    assert exact == {"rouge2": pytest.approx(1.0), "rougeL": pytest.approx(1.0)}
    # "the cat sat" vs "the cat ran": bigrams {the cat, cat sat} vs {the cat, cat ran}: P=R=1/2
    # LCS "the cat" = 2 of 3 tokens: P=R=2/3
    half = max_rouge(["the cat sat"], ["the cat ran"])
    assert half["rouge2"] == pytest.approx(0.5)
    assert half["rougeL"] == pytest.approx(2 / 3)
