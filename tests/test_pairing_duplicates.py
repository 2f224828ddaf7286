"""Duplicate originals pair: a sanitized set of a data set with repeated records is not taken for synthetic data."""

from __future__ import annotations

import re

import pytest

from textleak.leakage import evaluate_leakage
from textleak.leakage.pairing import text_pairing

PEOPLE = ["Anna Berg is 25 years old, works as a cook in Oslo and was treated for asthma in March.",
          "Boris Kral is 60 years old, flies planes out of Rome and has had gout since last winter.",
          "Chen Wei is 41 years old, teaches music in Lima and has migraines twice a week.",
          "Dina Moss is 33 years old, nurses night shifts in Cork and has eczema on both hands.",
          "Emil Roth is 52 years old, drives a bus in Graz and takes insulin for diabetes."]
ORIGINALS = [t for t in PEOPLE for _ in range(2)]  # every record twice (a data set with duplicates)
SANITIZED = [re.sub(r"\d+", "[AGE]", t) for t in ORIGINALS[:8]]  # the last two records lost


def test_each_copy_of_a_duplicated_original_takes_one_released_record():
    """Before: a copy was the runner-up with the same share, so no record paired (0 of 8)."""
    pairing = text_pairing(ORIGINALS, SANITIZED)
    assert pairing.paired == 8 and pairing.one_to_one
    assert sorted(pairing.matches.values()) == list(range(8))
    assert text_pairing(ORIGINALS, SANITIZED[:1] * 3).paired == 0  # three records, two copies: none is sure


def test_a_sanitized_set_of_duplicated_records_is_refused_unaligned():
    with pytest.raises(ValueError, match="lost records"):
        evaluate_leakage(ORIGINALS, SANITIZED, alignment="none", judge="lexical", bootstrap=0, use_cache=False)
