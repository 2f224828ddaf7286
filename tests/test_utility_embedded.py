"""The utility measures once with the real embedded model (Gemma 3 270M, CPU): prompts go through a
real tokenizer and log-prob scoring, and the predictions agree with scoring the prompts directly."""

from __future__ import annotations

import numpy as np
import pytest

from textleak import utility as U
from textleak.data import load

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lm():
    from textleak.llm import load_llm

    return load_llm("embedded")


def test_medqa_logprob_and_coherence_with_the_embedded_model(lm, tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path))
    ds = load("medqa", "fixture", split="test").select(range(2))
    options = list(ds["options"])
    res = U.medqa_accuracy(lm, ds["text"], ds["question"], options, ds["answer_idx"], demos=None)
    assert res["method"] == "logprob" and res["unparsed"] == 0 and res["failed"] == 0
    assert res["model"]["backend"] == "embedded"
    # the prediction is the argmax of the model's own log-probabilities of " A".." D"
    prompts = [U.medqa_prompt(p, q, o, ()) for p, q, o in zip(ds["text"], ds["question"], options)]
    scores = np.array(lm.score(prompts, [" A", " B", " C", " D"]))
    assert np.isfinite(scores).all()
    assert res["predictions"] == [U.LETTERS[int(i)] for i in scores.argmax(1)]
    assert res["correct"] == sum(p == a for p, a in zip(res["predictions"], ds["answer_idx"]))

    coh = U.coherence(lm, ds["text"][:1], domain="medqa", scoring="logprob")
    assert coh["n_scored"] == 1 and coh["ratings"][0] in (1, 2, 3, 4, 5)
