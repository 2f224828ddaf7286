"""Perplexity and MAUVE of synthetic text."""

import math

import pytest
import torch

from textleak.controlled.quality import mauve_score, perplexity
from textleak.synthesis.tiny import tiny_causal_lm


@pytest.fixture(scope="module")
def uniform_lm_path(tmp_path_factory):
    # GPT-2 ties lm_head to the token embeddings: zero them and every logit is 0, a uniform model
    model, tok = tiny_causal_lm("gpt2", seed=0)
    with torch.no_grad():
        model.transformer.wte.weight.zero_()
    path = tmp_path_factory.mktemp("uniform_lm")
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return str(path), len(tok)


def test_perplexity_of_a_uniform_model_is_the_vocabulary_size(uniform_lm_path):
    path, vocab = uniform_lm_path
    texts = ["short", "a somewhat longer text", "x"]
    assert perplexity(texts, model=path, batch_size=1) == pytest.approx(vocab, rel=1e-4)
    assert perplexity(texts, model=path, batch_size=3) == pytest.approx(vocab, rel=1e-4)  # padding never counts


def test_perplexity_is_token_weighted(tmp_path):
    model, tok = tiny_causal_lm("gpt2", seed=3)  # random weights: per-token losses differ
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    # exp(total NLL / total tokens) over both texts, one forward per text, by hand
    nll, n = 0.0, 0
    with torch.no_grad():
        for t in ["ab", "abcdefgh"]:
            ids = torch.tensor([[tok.bos_token_id] + tok(t, add_special_tokens=False)["input_ids"]])
            logits = model(input_ids=ids).logits[0, :-1]
            nll += float(torch.nn.functional.cross_entropy(logits, ids[0, 1:], reduction="sum"))
            n += ids.shape[1] - 1
    assert n == 10
    got = perplexity(["ab", "abcdefgh"], model=str(tmp_path), batch_size=2)
    assert got == pytest.approx(math.exp(nll / n), rel=1e-4)


@pytest.mark.slow
def test_mauve_is_one_for_identical_sets_and_low_across_domains(shared_data):
    from textleak.data.presidio_synth import presidio_synth_records
    from textleak.data.tab import tab_records

    legal = [r["text"] for r in tab_records()]
    chat = [r["text"] for r in presidio_synth_records(shared_data / "presidio_synth" / "generated_small.json", limit=len(legal))]
    assert mauve_score(legal, legal) == pytest.approx(1.0, abs=1e-6)
    assert mauve_score(chat, legal) < 0.5
