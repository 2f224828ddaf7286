"""The language model's view of the context with the real embedded Gemma 3 270M: the one-pass-per-
sentence scores equal the exact ``LanguageModel.score`` for single-piece words; the other reads work."""

from __future__ import annotations

import numpy as np
import pytest

from textleak.attacks.lm_context import ContextScorer

CONTEXTS = [["it", "'s", "a", "charming", "and", "often", "affecting", "journey", "."],
            ["the", "acting", ",", "costumes", "and", "music", "are", "astounding"]]
QUERIES = [(0, 3, ["charming", "table", "delightful"]), (0, 0, ["it"]), (1, 3, ["costumes", "sets"]), (0, 7, ["journey", "film"])]


@pytest.fixture(scope="module")
def scorer():
    return ContextScorer("embedded")


def test_sentence_pass_matches_exact_scores_for_single_piece_words(scorer):
    fast = scorer.score(CONTEXTS, QUERIES)
    exact = ContextScorer("embedded", exact=True).score(CONTEXTS, QUERIES)
    for f, e in zip(fast, exact):
        np.testing.assert_allclose(f, e, atol=2e-3)
    assert fast[3][1] > fast[3][0]  # "a charming ... affecting film" over "journey": a real preference


def test_unconditional_and_next_word(scorer):
    un = scorer.unconditional(["the", "charming", "unfunny"])
    assert un["the"] > un["charming"] > un["unfunny"]  # frequent words first; a word of several pieces costs more
    words = scorer.next_words(CONTEXTS, [(0, 2), (0, 0)])
    assert all(w and w.strip() == w and w.isalpha() for w in words)
