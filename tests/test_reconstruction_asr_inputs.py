"""Issue 27, item 9: reconstruction_asr refuses predictions and references swapped, and a mechanism
built by name without an epsilon."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from textleak.metrics.reconstruction_asr import ReconstructionASR
from textleak.word_embeddings import WordEmbeddings

WORDS = [a + b for a in "bcdfghjk" for b in "aeiou"]  # 40 words, no digits (numbers are not checked)
EMB = WordEmbeddings(WORDS, np.random.default_rng(0).normal(size=(40, 4)))
CORPUS = [" ".join(WORDS[(i * 7 + j * 3) % 40] if j % 3 else WORDS[j % 4] for j in range(12)) for i in range(30)]
KW = dict(attacks=["embedding_inversion"], bounds=[])


def _sanitized():
    from sanitizers import SanTextPlus

    san = SanTextPlus(epsilon=1.0, p=0.5, sensitive_fraction=0.8, embeddings=EMB).fit(CORPUS)
    return san, san(CORPUS, list(range(len(CORPUS))))["sanitized"]


def test_swapped_predictions_and_references_are_refused():
    san, sanitized = _sanitized()
    metric = ReconstructionASR(embeddings=EMB)
    ok = metric.compute(predictions=sanitized, references=CORPUS, mechanism=san, **KW)
    assert ok["n_tokens"] > 0
    with pytest.raises(ValueError, match="swapped"):
        metric.compute(predictions=CORPUS, references=sanitized, mechanism=san, **KW)


def test_swap_is_also_caught_for_a_mechanism_built_by_name():
    _, sanitized = _sanitized()
    metric = ReconstructionASR(embeddings=EMB)
    args = dict(mechanism="santext+", epsilon=1.0, mechanism_options={"p": 0.5, "sensitive_fraction": 0.8}, **KW)
    metric.compute(predictions=sanitized, references=CORPUS, **args)
    with pytest.raises(ValueError, match="swapped"):
        metric.compute(predictions=CORPUS, references=sanitized, **args)


def test_predictions_from_another_mechanism_are_warned(caplog):
    _, sanitized = _sanitized()
    shuffled = [" ".join(reversed(t.split())) for t in sanitized]  # same lengths, not this mechanism's output
    with caplog.at_level(logging.WARNING):
        ReconstructionASR(embeddings=EMB).compute(predictions=shuffled, references=CORPUS, mechanism="santext+", epsilon=1.0,
                                                  mechanism_options={"p": 0.5, "sensitive_fraction": 0.8}, **KW)
    assert "either direction" in caplog.text or "swapped" in caplog.text


def test_a_mechanism_by_name_needs_epsilon():
    _, sanitized = _sanitized()
    with pytest.raises(ValueError, match="needs epsilon"):
        ReconstructionASR(embeddings=EMB).compute(predictions=sanitized, references=CORPUS, mechanism="santext+", **KW)
